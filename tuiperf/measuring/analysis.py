"""The analyse step of a pass, after sampling: each variant's breakdown (:mod:`~tuiperf.measuring.breakdown_step`),
its Python profile, its result, then the guard (:mod:`~tuiperf.measuring.guard_step`)."""

from __future__ import annotations

import functools
import time
from typing import Any

import msgspec
import numpy as np

from tuiperf.api.scenario import Bench
from tuiperf.api.step import Carrier
from tuiperf.contract.events import PhaseChanged
from tuiperf.measuring.breakdown_step import breakdowns
from tuiperf.measuring.compile_time import Subject, persistent_cache, repeat_compiles, trace_profile, with_repeats
from tuiperf.measuring.context import Outcomes, Point, RunContext, describe_exception
from tuiperf.measuring.guard_step import guard
from tuiperf.measuring.ops_step import OpsTarget, Programs, operations
from tuiperf.measuring.prepare import Prepared
from tuiperf.measuring.profiling import profile_call
from tuiperf.measuring.progress import (
    ANALYSE_SHARE,
    COMPILE_SHARE,
    PREPARE_SHARE,
    REPEATS_PART,
    SAMPLE_SHARE,
    PassProgress,
)
from tuiperf.measuring.sampler import Timed
from tuiperf.measuring.sampling import Sampled
from tuiperf.results import document
from tuiperf.results.model import Breakdown, Failure, Operations, Profile


def analyse(
    ctx: RunContext, point: Point, prepared: list[Prepared], sampled: Sampled, found: Outcomes, progress: PassProgress
) -> None:
    measured = [p for p in prepared if sampled.target(p.name).error is None and sampled.target(p.name).samples]
    broken_down = breakdowns(ctx, measured, sampled, anchor=point.anchor)
    tables = ops_tables(ctx, measured, sampled, broken_down)
    path = ctx.resolved.scenario.path
    compiling = ctx.settings.measure == "compile"
    analysed = ANALYSE_SHARE * (1 - COMPILE_SHARE) if compiling else ANALYSE_SHARE  # the rest: compile repeats
    for index, item in enumerate(prepared):
        target = sampled.target(item.name)
        built, notes = item.built, list(item.remarks.notes)
        profile, breakdown, failure, program = Profile(), None, None, built.program
        if target.error is not None:
            failure = Failure(error=describe_exception(target.error, path), phase="sample")
        else:
            if isinstance(item.bench.fn, Carrier):
                notes.append(item.bench.fn.progress_note())
            profile = msgspec.structs.replace(profile_of(ctx, item, target), host_bytes=host_bytes(item.bench))
            breakdown = broken_down.get(item.name)
            program = msgspec.structs.replace(program, ops=tables.get(item.name))
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
            progress.report(PREPARE_SHARE + SAMPLE_SHARE + analysed * (index + 1) / len(prepared), sampled.targets)
    own = [p for p in prepared if p.name in ctx.resolved.scenario.variants]  # not the remedies tuiperf tried
    guard(ctx, point.params, own, found)

    if compiling:
        compile_repeats(ctx, point, [p for p in own if found.results[p.name].ok], found, progress)


def compile_repeats(
    ctx: RunContext, point: Point, prepared: list[Prepared], found: Outcomes, progress: PassProgress
) -> None:
    """``--measure compile``: every measured variant's compile stages repeated, variants in turn, after
    everything else that calls them (the repeats clear JAX's caches); then its persistent cache cold and warm.
    The progress bar's last part (:data:`COMPILE_SHARE` of the analysis) follows the repeats' budget, then
    each variant's profile and cache: it stood at 100 % throughout before."""
    subjects = [
        Subject(p.name, *p.bench.fn.aot_target(), call=False)  # a step may donate its state: not called again
        if isinstance(p.bench.fn, Carrier)
        else Subject(p.name, p.bench.fn, p.bench.args)
        for p in prepared
    ]
    subjects = [s for s in subjects if hasattr(s.fn, "trace") or hasattr(s.fn, "lower")]
    if not subjects or ctx.cancel.is_set():
        return

    began = time.monotonic()
    before = PREPARE_SHARE + SAMPLE_SHARE + ANALYSE_SHARE * (1 - COMPILE_SHARE)
    repeats_share = ANALYSE_SHARE * COMPILE_SHARE * REPEATS_PART
    each_share = ANALYSE_SHARE * COMPILE_SHARE * (1 - REPEATS_PART) / len(subjects)  # a variant's profile, cache
    budget_s = max(ctx.settings.budget_s, 1e-9)

    def on_turn(subject: Subject, round_index: int) -> None:
        ctx.hooks.turn(subject.name, point.index)
        ctx.emit(PhaseChanged("compile", subject.name, f"compile repeat {round_index + 1}, caches cleared"))
        progress.report(before + repeats_share * min((time.monotonic() - began) / budget_s, 1.0))

    try:
        rounds, why = repeat_compiles(subjects, ctx.settings.budget_s, stop=ctx.cancel.is_set, on_turn=on_turn)
    except BaseException as exc:  # noqa: BLE001 - the call was measured; say why its compile was not repeated
        for subject in subjects:
            error = describe_exception(exc, ctx.resolved.scenario.path)
            found.amend(subject.name, warnings=[f"compile repeats failed: {error}"])
        return
    for done, subject in enumerate(subjects, start=1):
        ctx.hooks.turn(subject.name, point.index)
        ctx.emit(PhaseChanged("compile", subject.name, "profiling one trace"))
        profile = trace_profile(subject, ctx.resolved.scenario.path)
        ctx.emit(PhaseChanged("compile", subject.name, "persistent compilation cache, cold then warm"))
        caches = [persistent_cache(subject)]
        if caches[0].hits == 0:
            caches.append(persistent_cache(subject, thresholds_zero=True))
        was = found.results[subject.name]
        found.restage(subject.name, with_repeats(was.stages, subject, rounds, why, caches, profile))
        progress.report(before + repeats_share + each_share * done)


def host_bytes(bench: Bench) -> int:
    """Bytes of the host (NumPy) arrays among a call's arguments (a Step's state and inputs): each
    call copies them to the device as they cross the jit boundary."""
    import jax

    args = bench.fn.call_args() if isinstance(bench.fn, Carrier) else bench.args
    return sum(int(leaf.nbytes) for leaf in jax.tree.leaves(args) if isinstance(leaf, np.ndarray))


def ops_tables(
    ctx: RunContext, measured: list[Prepared], sampled: Sampled, broken_down: dict[str, Breakdown]
) -> dict[str, Operations]:
    """Every measured variant's operations table, from one trace made after its samples and breakdown
    are final (none where the run did not ask for them)."""
    if not ctx.settings.ops or not ctx.settings.profile or not measured:  # --no-profile skips both profiles
        return {}
    if ctx.policy.profile_refusal is not None:
        return {p.name: Operations(note="not traced: " + ctx.policy.profile_refusal) for p in measured}
    if ctx.cancel.is_set():
        return {p.name: Operations(note="not traced (the run stopped first)") for p in measured}
    ctx.emit(PhaseChanged("ops", None, "tracing the programs' operations"))
    targets = []
    for item in measured:
        breakdown = broken_down.get(item.name)
        compute = breakdown.stages.get("compute") if breakdown is not None and breakdown.reliable else None
        programs = Programs(item.built.hlo, item.bench.jit_fn, item.bench.jit_args)
        median = float(np.median(sampled.target(item.name).samples))
        call = functools.partial(_call, item.bench.fn, item.bench.args, item.first.block)
        targets.append(OpsTarget(item.name, call, programs, compute.ns if compute is not None else None, median))
    path = ctx.resolved.scenario.path
    try:
        return operations(targets, path, on_turn=ctx.hooks.turn)
    except BaseException as exc:  # noqa: BLE001 - the tables are optional; the timing is not
        return {p.name: Operations(note=f"no operations table: {describe_exception(exc, path)}") for p in measured}


def _call(fn: Any, args: tuple[Any, ...], block: Any) -> None:
    block(fn(*args))


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
