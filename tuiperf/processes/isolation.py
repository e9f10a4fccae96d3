"""One variant that crashes its measuring process does not stop the others.

pyperf and hyperfine lose one benchmark, not the run: here the variant that crashed (a segfault, an
abort, an exit inside its code) fails with its reason, and a fresh measuring process measures every
other variant again, in the same rounds as each other, so that their figures stay comparable. At most
:data:`MAX_RESTARTS` fresh processes per run; the result says how many it took. A process that is
stopped (a timeout, a cancel) or that crashes with no variant to blame ends the run as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from tuiperf.contract.events import Event, PhaseChanged
from tuiperf.contract.request import RunRequest
from tuiperf.results import document
from tuiperf.results.model import Crash, Failure, RunResult, VariantResult

MAX_RESTARTS = 3


@dataclass(frozen=True)
class Attempt:
    """One measuring process's go at a request: its result (partial if it stopped; None if it gave
    none), the crash to blame on a variant (None: it did not crash, or no variant is to blame), and
    the variants it was measuring."""

    result: RunResult | None
    crash: Crash | None
    names: list[str]


def isolating(
    attempt: Callable[[RunRequest, bool], Attempt], request: RunRequest, on_event: Callable[[Event], None] | None
) -> RunResult | None:
    """``attempt(request, fresh)`` again without each variant that crashed its process, until none does
    or :data:`MAX_RESTARTS` fresh processes were started; the last result, with the crashed variants."""
    crashed: list[VariantResult] = []
    asked, order = request, list(request.variants or [])
    for restart in range(MAX_RESTARTS + 1):
        tried = attempt(asked, restart > 0)
        order = order or tried.names
        crash = tried.crash
        rest = [n for n in tried.names if crash is None or n != crash.variant]
        if crash is None or crash.variant is None or not rest or restart == MAX_RESTARTS:
            return with_crashed(tried.result, crashed, order, restart)
        crashed.append(crashed_variant(crash))
        if on_event is not None:
            on_event(
                PhaseChanged(
                    "setup", None, f"{crash.variant} crashed the measuring process: measuring the others in a fresh one"
                )
            )
        asked = dataclasses.replace(request, variants=rest)
    raise AssertionError("unreachable: the last attempt returns")


def crashed_variant(crash: Crash) -> VariantResult:
    notes = [f"the measuring process's output is in {crash.log_path}"] if crash.log_path else []
    failure = Failure(error=f"crashed the measuring process: {crash.how}", phase=crash.phase)
    return document.variant_result(crash.variant or "", failure=failure, notes=notes)


def with_crashed(
    result: RunResult | None, crashed: list[VariantResult], order: list[str], restarts: int
) -> RunResult | None:
    """``result`` with the variants that crashed earlier processes, each in its place (in every point
    of a sweep), and a warning that says how many fresh processes it took."""
    if result is None or not crashed:
        return result
    names = ", ".join(v.name for v in crashed)
    said = (
        f"{names} crashed the measuring process and failed; the other variants were measured again in a fresh "
        f"process ({restarts} restart{'s' if restarts != 1 else ''}, at most {MAX_RESTARTS})"
    )
    if result.sweep is not None:
        points = [_with_variants(point, crashed, order) for point in result.points]
        sweep = msgspec.structs.replace(
            result.sweep,
            medians_ns={**result.sweep.medians_ns, **{v.name: [None] * len(points) for v in crashed}},
            slopes={**result.sweep.slopes, **dict.fromkeys((v.name for v in crashed), None)},
        )
        merged = msgspec.structs.replace(result, points=points, sweep=sweep)
    else:
        merged = _with_variants(result, crashed, order)
    merged.options = msgspec.structs.replace(merged.options, variants=order or merged.options.variants)
    merged.warnings = [said, *merged.warnings]
    return merged


def _with_variants(result: RunResult, crashed: list[VariantResult], order: list[str]) -> RunResult:
    known = {v.name for v in result.variants}
    variants = [*result.variants, *(v for v in crashed if v.name not in known)]
    rank = {name: index for index, name in enumerate(order)}
    variants.sort(key=lambda v: rank.get(v.name, len(rank)))
    options = msgspec.structs.replace(result.options, variants=order or result.options.variants)
    return msgspec.structs.replace(result, variants=variants, options=options)
