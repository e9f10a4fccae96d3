"""When a gap between two medians is a finding: one rule for every display (the CLI's report and
``compare``, the app's Statistics tab and comparison screen, exports, the why list of a run over several
environments).

A gap is a finding when its 95 % interval excludes 1 — and, for two medians measured in two processes
(two environments, two runs), only when that interval includes the process-to-process spread: one
process per side cannot tell a gap from where each process happened to land (two runs of the same
interpreter read 1.8 % apart with an interval of 1.0–2.9 % that left the process part out).

The p-value beside a ratio is Mann-Whitney's over every sample, which flags any difference of shape
(p < 1e-6 for an A/A pair of 16,000 samples whose ratio interval holds 1). It is shown only where it
agrees with the interval's decision; where the two disagree the interval decides, and no p is shown
("—"). Pure: no numpy (the UI uses it).
"""

from __future__ import annotations

import math

from tuiperf.common.units import format_p
from tuiperf.results.covers import PROCESSES
from tuiperf.results.model import Comparison, Interval, RunResult

ALPHA = 0.05  # the level the 95 % intervals are at


def holds_one(ci95: tuple[float, float]) -> bool:
    lo, hi = ci95
    return lo <= 1.0 <= hi


def is_finding(ci95: tuple[float, float], covers: str | None = None, two_processes: bool = False) -> bool:
    """Whether a ratio with this interval is a gap beyond noise. ``covers``: what the interval covers
    (:mod:`tuiperf.results.covers`); ``two_processes``: the two medians came from two processes."""
    if holds_one(ci95):
        return False
    return not two_processes or covers == PROCESSES


def agreeing_p(p: float | None, finding: bool) -> float | None:
    """``p`` where it agrees with the interval's decision (below :data:`ALPHA` for a finding, not below
    it for a gap inside noise); None where the interval decides alone."""
    if p is None or not math.isfinite(p):
        return None
    return p if (p < ALPHA) == finding else None


def p_cell(p: float | None, finding: bool) -> str:
    """The p-value as a table shows it under the one rule: "—" where the interval decides alone."""
    return format_p(agreeing_p(p, finding))


def in_two_processes(result: RunResult, a: str, b: str) -> bool:
    """Whether two variants of one result were measured in two processes (two environments)."""
    va, vb = result.variant(a), result.variant(b)
    return va is not None and vb is not None and va.environment != vb.environment


def comparison_finding(result: RunResult, row: Comparison) -> bool:
    """The rule for one of a result's ratios."""
    covers = row.interval.covers if isinstance(row.interval, Interval) else None
    return is_finding(row.ci95, covers, in_two_processes(result, row.a, row.b))
