"""What a result's 95 % intervals cover, in words (:mod:`tuiperf.results.intervals` makes them). No numpy:
the TUI uses it."""

from __future__ import annotations

from tuiperf.common.text import one_line
from tuiperf.results.model import Interval, RunResult

SAMPLES = "samples"  # the i.i.d. bootstrap of one process's samples (what results before issue 42 hold)
ROUNDS = "rounds"  # time-correlated: groups of rounds, block bootstrap; one process
PROCESSES = "rounds and processes"  # plus the process-to-process part
CALIBRATE_HINT = "run `tuiperf calibrate` once (or --processes N) to include process-to-process spread"


def describe(interval: Interval | None) -> str:
    """What an interval covers, in words (None: a result stored before intervals said so)."""
    if interval is not None and interval.covers == ROUNDS:
        return "slow spells and drift over the run's rounds, in one process (not process-to-process spread)"
    if interval is not None and interval.covers == PROCESSES:  # its source is text from a file: inert
        return f"slow spells and drift over the rounds, and process-to-process spread ({one_line(interval.processes)})"
    return "the samples of one process only (a re-run may land outside it)"


def representative(result: RunResult) -> Interval | None:
    """The interval a result's ratios (else its medians) were given: the widest kind among them."""
    kinds = [c.interval for c in result.comparisons] or [v.sampling.median_interval for v in result.measured]
    order = {PROCESSES: 0, ROUNDS: 1, SAMPLES: 2}
    return min(kinds, key=lambda i: order.get(i.covers, 2) if i else 3) if kinds else None


def line(result: RunResult) -> str | None:
    """``95 % intervals cover …`` for a report, with the hint when process spread is left out."""
    if not result.measured:
        return None
    interval = representative(result)
    hint = "" if interval is not None and interval.covers == PROCESSES else f"; {CALIBRATE_HINT}"
    return f"95 % intervals cover {describe(interval)}{hint}"
