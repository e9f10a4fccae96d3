"""One variant that crashes its measuring process, or outlasts the run's ``--timeout``, does not stop the others.

pyperf and hyperfine lose one benchmark, not the run: here the variant that crashed (a segfault, an
abort, an exit inside its code) or did not finish within the time limit (a compile or a call that
never returns; the process is killed) fails *at the point where it did* with its reason, and a fresh
measuring process measures the run again without it there (:class:`~tuiperf.contract.request.LeftOut`):
every other variant at that point, and every variant, that one included, at every other point of a
sweep or cell of a grid (a variant too slow at the largest size is often fine at the others). A
failure in a point's set-up, which no variant owns, leaves out every variant at that point.

The run is measured again from its start, not from the point that failed, so that what is reported
was measured together: a plain run's variants in the same rounds; an interleaved sweep's points in
the same rounds (all of them were sampled together, so nothing of the stopped process is kept); a
sequential sweep's points in one process, and its drift check against the same first point. The
cost is the time of the run again, once per failure.

At most :data:`MAX_RESTARTS` fresh processes for a run, and one more for each further point of a
sweep; the result says how many it took. A process that is cancelled, that crashes or times out with
no variant or point to blame, or the last one allowed, ends the run as before (what it measured is
kept, marked partial).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from tuiperf.contract.events import Event, PhaseChanged
from tuiperf.contract.request import LeftOut, RunRequest
from tuiperf.results import document
from tuiperf.results.model import Crash, RunResult

MAX_RESTARTS = 3
CRASHED = "crashed the measuring process"


@dataclass(frozen=True)
class Attempt:
    """One measuring process's go at a request: its result (partial if it stopped; None if it gave
    none), the crash or timeout to blame on a variant or a point (None: it did not stop so, or nothing
    is to blame), the variants it was measuring, the index of the sweep point it stopped at (0: no
    sweep) and, when it was killed for its silence, the time limit it outlasted."""

    result: RunResult | None
    crash: Crash | None
    names: list[str]
    point: int = 0
    timed_out: float | None = None


def sweep_cells(request: RunRequest) -> list[str]:
    """The label of each point of the request's sweep or grid ("size=3", "size=3, batch=8"), in the
    order the measuring process takes them; empty for a run that is no sweep."""
    axes = [axis for axis in (request.sweep, request.grid) if axis is not None]
    if not axes:
        return []
    return [
        ", ".join(f"{name}={value}" for (name, _), value in zip(axes, values, strict=True))
        for values in itertools.product(*(list(values) for _, values in axes))
    ]


def isolating(
    attempt: Callable[[RunRequest, bool], Attempt],
    request: RunRequest,
    on_event: Callable[[Event], None] | None,
    cancelled: Callable[[], bool] = lambda: False,
) -> RunResult | None:
    """``attempt(request, fresh)`` again without each variant, at each point, that crashed its process or
    outlasted its time limit, until none does, the restarts are spent or the user cancelled (a run
    cancelled is never measured again: a process killed after the cancel may read as a crash, and the
    fresh one, no longer told to stop, ran the hung variant again, for ever); the last result, with
    the variants that failed so in their place and a warning."""
    cells = sweep_cells(request)
    allowed = MAX_RESTARTS + max(len(cells) - 1, 0)
    left: list[LeftOut] = []
    asked = request
    for restart in range(allowed + 1):
        tried = attempt(asked, restart > 0)
        gone = _to_leave_out(tried, cells, {(g.point, g.variant) for g in left})
        pairs = max(len(cells), 1) * len(tried.names or request.variants or [])
        if not gone or restart == allowed or len(left) + len(gone) >= pairs or cancelled():
            return with_left_out(tried.result, left, restart, allowed, cells)
        left.extend(gone)
        if on_event is not None:
            on_event(PhaseChanged("setup", None, f"{_failed(gone, cells)}: measuring the rest in a fresh process"))
        asked = dataclasses.replace(request, left_out=[*request.left_out, *left])
    raise AssertionError("unreachable: the last attempt returns")


def _to_leave_out(tried: Attempt, cells: list[str], already: set[tuple[int, str]]) -> list[LeftOut]:
    """What to leave out after ``tried``: the variant it blames, at the point it stopped at (a set-up
    that failed: every variant there); nothing when no variant or point is to blame or it was left out
    already (then the blame is not to be trusted)."""
    crash = tried.crash
    if crash is None:
        return []
    point = tried.point if tried.point < len(cells) else 0  # past the last point: the drift check's first
    if crash.variant is not None:
        blamed = [crash.variant]
    elif cells and crash.phase == "setup":
        blamed = list(tried.names)
    else:
        return []
    at = f" at {cells[point]}" if cells else ""
    if tried.timed_out is not None:
        error = f"did not finish within --timeout {tried.timed_out:g} s{at} (raise it with --timeout)"
    else:
        error = f"{CRASHED}: {crash.how}"
    notes = (f"the measuring process's output is in {crash.log_path}",) if crash.log_path else ()
    gone = [LeftOut(point, name, error, crash.phase, notes) for name in blamed]
    return [] if not gone or any((g.point, g.variant) in already for g in gone) else gone


def _failed(gone: list[LeftOut], cells: list[str]) -> str:
    """What failed where, as a warning says it: ``v crashed the measuring process``, ``v at size=3
    did not finish within --timeout 60 s (raise it with --timeout)``, ``a, b at size=3 (its set-up) ...``."""
    names = ", ".join(g.variant for g in gone)
    at = f" at {cells[gone[0].point]}" if cells else ""
    setup = " (its set-up)" if gone[0].phase == "setup" else ""
    error = gone[0].error
    what = CRASHED if error.startswith(CRASHED) else error.replace(at, "") if at else error  # how: in its error
    return f"{names}{at}{setup} {what}"


def with_left_out(
    result: RunResult | None, left: list[LeftOut], restarts: int, allowed: int, cells: list[str]
) -> RunResult | None:
    """``result`` with a warning that says which variants failed where, and how many fresh processes
    it took; a plain run's last, stopped process may not have reported them: they are put in place."""
    if result is None or not left:
        return result
    failures = "; ".join(_failed([g for g in left if g.point == p and g.error == e], cells) for p, e in _where(left))
    others = "every other variant there, and every variant at the other points, was"
    others = others if cells else "the other variants were"
    said = (
        f"{failures} and failed{' there' if cells else ''}; {others} measured again in a fresh process "
        f"({restarts} restart{'s' if restarts != 1 else ''}, at most {allowed})"
    )
    merged = result if result.sweep is not None else _with_variants(result, [g for g in left if g.point == 0])
    merged.warnings = [said, *merged.warnings]
    return merged


def _where(left: list[LeftOut]) -> list[tuple[int, str]]:
    return list(dict.fromkeys((g.point, g.error) for g in left))


def _with_variants(result: RunResult, left: list[LeftOut]) -> RunResult:
    gone = {g.variant: g for g in left}
    variants = [
        document.failed(v.name, g.error, g.phase, document.sampling(v.sampling.samples_ns), g.notes)
        if (g := gone.get(v.name)) is not None and (v.failure is None or v.failure.error != g.error)
        else v
        for v in result.variants
    ]
    known = {v.name for v in variants}
    variants += [document.failed(g.variant, g.error, g.phase, notes=g.notes) for g in left if g.variant not in known]
    return msgspec.structs.replace(result, variants=variants)
