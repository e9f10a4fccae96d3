"""What the result panels show, computed from a result without Textual (and unit-tested as such).

A sweep's panels show one point (the last by default), labelled with its value; the histogram gets
each measured variant's samples, medians and cluster centres; the warnings come in the core's order
with a severity each; the header names the scenario, device, dispatch mode and parameter values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from tuiperf.common.text import inert_data, one_line
from tuiperf.results.crossover import sentences
from tuiperf.results.grid import GridTable, grid_tables
from tuiperf.results.model import RunResult, Sweep

CLUSTER_SHARE = 0.02  # cluster centres drawn on the histogram: those holding at least this share


@dataclass
class ResultView:
    shown: RunResult | None  # the document the panels show: the run, or one point of a sweep
    sweep: Sweep | None = None
    order: list[str] = field(default_factory=list)
    series: dict[str, list[float]] = field(default_factory=dict)
    medians: dict[str, float] = field(default_factory=dict)
    marks: list[float] = field(default_factory=list)
    note: str = ""
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (severity, text)
    header: str = ""
    crossovers: list[str] = field(default_factory=list)  # a sweep over a size: does the extra cost matter?
    grid: list[GridTable] = field(default_factory=list)  # a grid (two --sweep): each variant's table of cells

    @property
    def warning_count(self) -> int:
        return sum(1 for severity, _ in self.warnings if severity != "info")


def view_of(result: RunResult | None, order: list[str] | None = None) -> ResultView:
    """The panels' view of ``result`` (None: nothing measured yet). Every text in it is inert (the
    panels draw from it alone): a result file's names cannot put escape sequences on the terminal."""
    result, order = inert_data(result), inert_data(order)
    if result is None:
        return ResultView(None, order=list(order or []))
    shown = result.shown
    note = "PARTIAL" if result.partial else ""
    if result.sweep is not None and shown is not result:
        shown = msgspec.structs.replace(shown, partial=result.partial, warnings=result.warnings)
        note = f"{note} ({one_line(point_of(result.sweep, shown))})".strip()
    variants = shown.variants
    return ResultView(
        shown=shown,
        sweep=result.sweep,
        order=[v.name for v in variants] or list(order or []),
        series={v.name: v.sampling.samples_ns for v in variants if v.ok},
        medians={v.name: v.sampling.stats.median_ns for v in variants if v.sampling.stats is not None},
        marks=[m.center_ns for v in variants if v.ok for m in v.sampling.modes if m.fraction >= CLUSTER_SHARE],
        note=note,
        warnings=collect_warnings(shown),
        header=header_of(shown, result),
        crossovers=sentences(result, compute=False),
        grid=grid_tables(result),
    )


def header_of(shown: RunResult, run: RunResult | None = None) -> str:
    """``scenario · device · 4 devices · dispatch · a=1 b=2``: what produced the figures on screen;
    for a sweep (``run``), ``sweep over n (3 points) · size=1 · at n=16`` (the point on screen); for a
    grid, ``grid over n × size (6 cells) · at n=16, size=64``."""
    run = run or shown
    swept = run.sweep.parameters if run.sweep is not None else []
    params = " ".join(f"{one_line(k)}={one_line(v)}" for k, v in shown.params.items() if k not in swept)
    shape = ""
    if run.sweep is not None:
        shape = one_line(run.sweep.title())
        params = f"{params} · at {one_line(point_of(run.sweep, shown))}".lstrip(" ·")
    processes = run.options.processes if run.cluster is None else run.cluster.processes
    parts = [
        one_line(run.scenario.id),
        one_line(run.device.id),
        f"{run.device.count} devices" if run.device.count > 1 else "",
        f"{processes} {'cluster ' if run.cluster else ''}processes" if processes > 1 else "",
        f"{one_line(run.options.dispatch)} dispatch",
        shape,
        params,
    ]
    return " · ".join(p for p in parts if p)


def point_of(sweep: Sweep, point: RunResult) -> str:
    """``n_args=16``, or a grid cell's ``n_args=16, size=64``: the point ``point`` is of ``sweep``."""
    return ", ".join(f"{name}={point.params.get(name)}" for name in sweep.parameters)


def collect_warnings(result: RunResult | None) -> list[tuple[str, str]]:
    """(severity, text) pairs, severity "error", "warning" or "info".

    The result's own ``warnings`` come first, in the core's order (partial run, unfair comparisons,
    failures, then each variant's); the variants' notes and skip reasons follow as information.
    """
    if result is None:
        return []
    failed = {f"{v.name} failed: " for v in result.variants if v.failure}
    unfair = {m.a for m in result.equivalence.mismatches}
    out: list[tuple[str, str]] = []
    for text in dict.fromkeys(result.warnings):
        serious = any(text.startswith(prefix) for prefix in failed) or any(
            text.startswith(f"{name} does not compute") for name in unfair
        )
        out.append(("error" if serious else "warning", text))
    out.extend(("info", f"guard: {note}") for note in result.equivalence.notes)  # equal values, other programs
    for v in result.variants:
        notes = "; ".join(v.notes)
        if v.skipped:
            out.append(("info", f"{v.name}: skipped — {notes or 'no reason given'}"))
        elif notes:
            out.append(("info", f"{v.name}: {notes}"))
    return out


def partial_cause(result: RunResult) -> str:
    """Why a partial result stopped, in a word: a crash (a segfault, a kill, a timeout) is not a cancel."""
    if result.crash is not None and result.error:
        return "timed out" if "did not return within" in result.crash.how else "crashed"
    if result.error:
        return "stopped"
    return "cancelled"
