"""The analyse step of a pass, after sampling: each variant's breakdown (:mod:`~tuiperf.measuring.breakdown_step`),
its Python profile, its result, then the guard (:mod:`~tuiperf.measuring.guard_step`)."""

from __future__ import annotations

import msgspec
import numpy as np

from tuiperf.api.step import Carrier
from tuiperf.contract.events import PhaseChanged
from tuiperf.measuring.breakdown_step import breakdowns
from tuiperf.measuring.context import Outcomes, Point, RunContext, describe_exception
from tuiperf.measuring.guard_step import guard
from tuiperf.measuring.ops_step import OpsTarget, Programs, operations
from tuiperf.measuring.prepare import Prepared
from tuiperf.measuring.profiling import profile_call
from tuiperf.measuring.progress import ANALYSE_SHARE, PREPARE_SHARE, SAMPLE_SHARE, PassProgress
from tuiperf.measuring.sampler import Timed
from tuiperf.measuring.sampling import Sampled
from tuiperf.results import document
from tuiperf.results.model import Breakdown, Failure, Operations, Profile


def analyse(
    ctx: RunContext, point: Point, prepared: list[Prepared], sampled: Sampled, found: Outcomes, progress: PassProgress
) -> None:
    measured = [p for p in prepared if sampled.target(p.name).error is None and sampled.target(p.name).samples]
    broken_down = breakdowns(ctx, measured, sampled, anchor=point.anchor)
    path = ctx.resolved.scenario.path
    for index, item in enumerate(prepared):
        target = sampled.target(item.name)
        built, notes = item.built, list(item.remarks.notes)
        profile, breakdown, failure, program = Profile(), None, None, built.program
        if target.error is not None:
            failure = Failure(error=describe_exception(target.error, path), phase="sample")
        else:
            if isinstance(item.bench.fn, Carrier):
                notes.append(item.bench.fn.progress_note())
            profile = profile_of(ctx, item, target)
            breakdown = broken_down.get(item.name)
            program = msgspec.structs.replace(program, ops=ops_of(ctx, item, target, breakdown))
            if built.paths is not None and breakdown is None and target.samples and not ctx.cancel.is_set():
                notes.append("no overhead breakdown: one of its lower-level paths failed while being timed")
        found.finish(
            document.variant_result(
                item.name,
                sampled.sampling(target),
                failure=failure,
                notes=notes,
                warnings=item.remarks.warnings,
                stages=built.stages,
                program=program,
                recompiles=sampled.recompiles(item.name, item.bench.eager),
                profile=profile,
                breakdown=breakdown,
            )
        )
        if failure is None:
            progress.report(PREPARE_SHARE + SAMPLE_SHARE + ANALYSE_SHARE * (index + 1) / len(prepared), sampled.targets)
    guard(ctx, point.params, prepared, found)


def ops_of(ctx: RunContext, item: Prepared, target: Timed, breakdown: Breakdown | None) -> Operations | None:
    """The variant's operations table, after its samples and breakdown are final (None: not asked for)."""
    if not ctx.settings.ops or not ctx.settings.profile:  # --no-profile skips both profiles of a call
        return None
    if ctx.policy.profile_refusal is not None:
        return Operations(note="not traced: " + ctx.policy.profile_refusal)
    if ctx.cancel.is_set() or not target.samples:
        return Operations(note="not traced (the run stopped first)")
    ctx.emit(PhaseChanged("ops", item.name, "tracing the program's operations"))
    compute = breakdown.stages.get("compute") if breakdown is not None and breakdown.reliable else None
    compute_ns = compute.ns if compute is not None else None
    programs = Programs(item.built.hlo, item.bench.jit_fn, item.bench.jit_args)
    opened = OpsTarget(item.bench.fn, item.bench.args, item.first.block, programs, compute_ns)
    try:
        return operations(opened, float(np.median(target.samples)), ctx.resolved.scenario.path)
    except BaseException as exc:  # noqa: BLE001 - the table is optional; the timing is not
        return Operations(note=f"no operations table: {describe_exception(exc, ctx.resolved.scenario.path)}")


def profile_of(ctx: RunContext, item: Prepared, target: Timed) -> Profile:
    """The Python profile of one call, or why there is none."""
    if ctx.policy.profile_refusal is not None:
        return Profile(note=ctx.policy.profile_refusal)
    if not ctx.settings.profile:
        return Profile(note="not profiled (profiling was turned off for this run)")
    if ctx.cancel.is_set() or not target.samples:
        return Profile(note="not profiled (the run stopped first)")
    ctx.emit(PhaseChanged("profile", item.name, "Python profile of one call"))
    try:
        rows, note = profile_call(
            item.bench.fn,
            item.bench.args,
            item.first.block,
            item.first.estimate_ns,
            median_ns=float(np.median(target.samples)),
        )
    except BaseException as exc:  # noqa: BLE001 - the profile is optional; the timing is not
        return Profile(note=f"no profile: {describe_exception(exc, ctx.resolved.scenario.path)}")
    return Profile(rows=rows, note=note)
