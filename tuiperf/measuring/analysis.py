"""The analyse step of a pass, after sampling: each variant's breakdown (:mod:`~tuiperf.measuring.breakdown_step`),
its Python profile, its result, then the guard (:mod:`~tuiperf.measuring.guard_step`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tuiperf.api.step import Carrier
from tuiperf.contract.events import PhaseChanged
from tuiperf.measuring.breakdown_step import breakdowns
from tuiperf.measuring.context import Outcomes, Point, RunContext, describe_exception
from tuiperf.measuring.guard_step import guard
from tuiperf.measuring.prepare import Prepared
from tuiperf.measuring.profiling import profile_call
from tuiperf.measuring.progress import ANALYSE_SHARE, PREPARE_SHARE, SAMPLE_SHARE, PassProgress
from tuiperf.measuring.sampler import Target
from tuiperf.measuring.sampling import Sampled
from tuiperf.results import document
from tuiperf.results.model import ProfileRow


def analyse(
    ctx: RunContext, point: Point, prepared: list[Prepared], sampled: Sampled, found: Outcomes, progress: PassProgress
) -> None:
    measured = [p for p in prepared if sampled.target(p.name).error is None and sampled.target(p.name).samples]
    broken_down = breakdowns(ctx, measured, sampled, anchor=point.anchor)
    path = ctx.resolved.scenario.path
    for index, item in enumerate(prepared):
        target = sampled.target(item.name)
        seen = sampled.compiles_of.get(item.name)
        compiles = seen.compiles if seen is not None else 0
        common: dict[str, Any] = dict(
            notes=item.notes,
            warnings=item.warnings,
            samples_ns=target.samples,
            loops_per_sample=target.pace.loops,
            span=sampled.span_of(target),
            round_starts=target.round_starts,
            stages_ms=item.stages_ms,
            flops=item.flops,
            transcendentals=item.transcendentals,
            memory=item.memory,
            param_count=item.param_count,
            retraces=seen.traces if seen is not None else 0,
            recompiles=compiles,
            recompile_causes=seen.causes if seen is not None and compiles else [],
            eager=item.bench.eager,
        )
        if target.error is not None:
            error = describe_exception(target.error, path)
            found.finish(
                document.variant_result(item.name, status="failed", failed_phase="sample", error=error, **common)
            )
            continue
        if isinstance(item.bench.fn, Carrier):
            item.notes.append(item.bench.fn.progress_note())
        profile, profile_note = profile_of(ctx, item, target)
        breakdown = broken_down.get(item.name)
        if item.paths is not None and breakdown is None and target.samples and not ctx.cancel.is_set():
            item.notes.append("no overhead breakdown: one of its lower-level paths failed while being timed")
        found.finish(
            document.variant_result(
                item.name, breakdown_ns=breakdown, profile=profile, profile_note=profile_note, **common
            )
        )
        progress.report(PREPARE_SHARE + SAMPLE_SHARE + ANALYSE_SHARE * (index + 1) / len(prepared), sampled.targets)
    guard(ctx, point.params, prepared, found)


def profile_of(ctx: RunContext, item: Prepared, target: Target) -> tuple[list[ProfileRow], str | None]:
    """The Python profile of one call, or why there is none."""
    if ctx.policy.profile_refusal is not None:
        return [], ctx.policy.profile_refusal
    if not ctx.settings.profile:
        return [], "not profiled (profiling was turned off for this run)"
    if ctx.cancel.is_set() or not target.samples:
        return [], "not profiled (the run stopped first)"
    ctx.emit(PhaseChanged("profile", item.name, "Python profile of one call"))
    try:
        rows, note = profile_call(
            item.bench.fn, item.bench.args, item.block, item.estimate_ns, median_ns=float(np.median(target.samples))
        )
    except BaseException as exc:  # noqa: BLE001 - the profile is optional; the timing is not
        return [], f"no profile: {describe_exception(exc, ctx.resolved.scenario.path)}"
    return rows, note
