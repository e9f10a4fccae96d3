"""One pass over the variants at one set of parameter values, start to end: set up, prepare, sample,
break down, profile, guard.

Runners call :func:`tuiperf.measuring.execute.execute` (in this process or in the measuring process),
which runs one pass or a sweep of them and passes ``emit`` to receive :mod:`tuiperf.contract.events`.
Requests are checked first (:mod:`tuiperf.measuring.resolve`); documents are assembled by
:mod:`tuiperf.results.document`.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from tuiperf.api.devices import use_devices
from tuiperf.api.step import DONATED_HINT, Carrier
from tuiperf.common.errors import ScenarioError, Skip
from tuiperf.common.units import format_ns
from tuiperf.contract.events import Event, PhaseChanged, Progress, RunStarted, SamplesAdded, VariantFinished
from tuiperf.contract.options import stored
from tuiperf.contract.protocol import ANALYSE, SAMPLE, START
from tuiperf.contract.request import RunRequest
from tuiperf.measuring.breakdown import BreakdownInput, TimedPath, compiling_breakdown, measure_breakdowns
from tuiperf.measuring.env import all_devices, describe_device, device_id, dispatch_mode, environment, run_devices
from tuiperf.measuring.guard import Subject, check, describe, digest
from tuiperf.measuring.prepare import Prepared, as_bench, prepare
from tuiperf.measuring.profiling import PROFILE_SECONDS, profile_call
from tuiperf.measuring.resolve import Resolved
from tuiperf.measuring.sampler import Target, block_size, needs_warm_up, sample_interleaved
from tuiperf.measuring.sentinel import sentinel
from tuiperf.measuring.timing import choose_loops, harness_overhead_ns, timer_resolution_ns
from tuiperf.measuring.turns import ALONE, Turns
from tuiperf.measuring.xla_costs import process_memory
from tuiperf.results import document
from tuiperf.results.document import RunHeader
from tuiperf.results.model import (
    Breakdown,
    Calibration,
    DeviceInfo,
    Equivalence,
    Mismatch,
    ProfileRow,
    RunResult,
    ScenarioRef,
    VariantResult,
)
from tuiperf.results.outputs import OutputDigest
from tuiperf.results.stats import median_ci

Emit = Callable[[Event], None]

# Share of a run's progress bar spent in each phase.
PREPARE_SHARE, SAMPLE_SHARE = 0.25, 0.6


# JAX's dispatch-mode switch is a CPU setting: an accelerator's calls are always asynchronous.
ASYNC_ON_ACCELERATORS = (
    "calls to an accelerator are always dispatched asynchronously: --dispatch sync applies to the CPU only, "
    "so this run is recorded as async"
)

LONG_RUN_S = 60.0  # a plan longer than this is announced as soon as the calls' cost is known


# The breakdown phase: about a third of the sampling budget, at least 1 s, at most 20 s.
def breakdown_budget(budget_s: float, variants: int) -> float:
    return min(20.0, max(1.0, budget_s / 3, 0.3 * variants))


# The live estimate (shown as "≈") is the median of the latest samples: ten times a second, a
# median over every sample of every variant would cost the measuring process tens of milliseconds.
ESTIMATE_WINDOW = 5000


def device_scope(device: Any) -> Any:
    """``jax.default_device(device)``, or nothing where ``device`` is the default already.

    A thread-local default device slows every ``jax.jit`` call's C++ fast path (see the README's
    fidelity figures): measured inside one, every figure read above a plain script that has none.
    Inputs are committed to the device either way.
    """
    import jax

    if device == jax.devices()[0] and getattr(jax.config, "jax_default_device", None) is None:
        return contextlib.nullcontext()
    return jax.default_device(device)


def describe_exception(exc: BaseException, path: str) -> str:
    """``file.py:LINE: Type: message`` at the deepest frame inside the scenario file."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == Path(path).resolve():
            line = frame.lineno
    try:
        message = f"{type(exc).__name__}: {exc}".strip()
    except BaseException:  # noqa: BLE001 - an exception whose str() fails is still reported
        message = f"{type(exc).__name__} (its message could not be shown)"
    first_line = message.splitlines()[0] if message else type(exc).__name__
    if "deleted or donated" in message:
        first_line += f" ({DONATED_HINT})"
    return f"{Path(path).name}:{line}: {first_line}" if line else first_line


class Run:
    """State of one pass over the variants at one set of parameter values."""

    lockstep = False  # a cluster's run (measuring.cluster): every call decided ahead, the same in every process

    def __init__(
        self,
        resolved: Resolved,
        params: dict[str, Any],
        request: RunRequest,
        emit: Emit,
        cancel: threading.Event,
        span: tuple[float, float] = (0.0, 1.0),
        sweep_value: Any = None,
        sweep_started: float | None = None,
        on_turn: Callable[[str], None] | None = None,
        anchor: bool = False,
        point: int = 0,
        turns: Turns = ALONE,
        digests: dict[str, OutputDigest] | None = None,
    ) -> None:
        self.anchor = anchor
        self.point, self.turns, self.digests = (
            point,
            turns,
            digests,
        )  # a sweep's first point measured again: medians only, no breakdown
        self.scenario, self.names, self.device = resolved.scenario, resolved.names, resolved.device
        self.params = params
        self.request, self.emit, self.cancel = request, emit, cancel
        self.dispatch = dispatch_mode(self.device)  # what applies here: JAX's CPU setting, or async on an accelerator
        self.span, self.sweep_value = span, sweep_value
        self.on_turn = on_turn
        self.sampling_started_ns = time.perf_counter_ns()
        self.plan_s: dict[str, float] = {}
        self.started = time.monotonic()
        self.sweep_started = sweep_started if sweep_started is not None else self.started  # for the ETA
        self.results: dict[str, VariantResult] = {}
        self.warnings: list[str] = []
        self.compile_counts: dict[str, tuple[int, int]] = {}  # (traces, compiles) during sampling
        self.compile_causes: dict[str, list[str]] = {}  # what changed between calls, per variant
        self.equivalence = Equivalence()

    def header(self, *, with_env: bool = True, resolution: float | None = None) -> RunHeader:
        request = self.request
        env = environment(self.device, resolution) if with_env and resolution is not None else None
        calibration = (
            Calibration(timer_resolution_ns=resolution, harness_overhead_ns=harness_overhead_ns())
            if with_env and resolution is not None
            else None
        )
        return RunHeader(
            scenario=ScenarioRef(
                id=self.scenario.id,
                title=self.scenario.title,
                path=self.scenario.path,
                source_sha256=self.scenario.source_sha256 or None,
            ),
            params=self.params,
            device=DeviceInfo(
                **describe_device(self.device, all_devices().index(self.device)), count=self.request.settings.devices
            ),
            options=stored(request.settings, self.names, dispatch=self.dispatch, baseline=self.baseline()),
            env=env,
            calibration=calibration,
            started_at=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        )

    def baseline(self) -> str | None:
        """The variant ratios are against: the one asked for, else one the scenario marks reference=True."""
        if self.request.settings.baseline is not None:
            return self.request.settings.baseline
        marked = next((v.name for v in self.scenario.variants.values() if v.reference), None)
        return marked if marked in self.names else None

    # -- progress ---------------------------------------------------------------------------------
    def remaining_s(self, fraction: float) -> float | None:
        """Seconds left in this pass from its plan (compile so far, then the sampling budget or planned
        samples, the breakdown budget, the profiles), plus as long again for each sweep value to come."""
        elapsed = time.monotonic() - self.started
        if fraction < PREPARE_SHARE:
            done = max(fraction / PREPARE_SHARE, 1e-9)
            prepare_left = elapsed / done * (1 - done) if fraction > 0 else None
            if prepare_left is None:
                return None
            left = (
                prepare_left + self.plan_s.get("sample", self.request.settings.budget_s) + self.plan_s.get("after", 0.0)
            )
        elif fraction < PREPARE_SHARE + SAMPLE_SHARE:
            done = (fraction - PREPARE_SHARE) / SAMPLE_SHARE
            left = self.plan_s.get("sample", 0.0) * (1 - done) + self.plan_s.get("after", 0.0)
        else:
            done = (fraction - PREPARE_SHARE - SAMPLE_SHARE) / (1 - PREPARE_SHARE - SAMPLE_SHARE)
            left = self.plan_s.get("after", 0.0) * (1 - done)
        lo, hi = self.span
        points_after = round((1 - hi) / (hi - lo)) if hi > lo else 0
        return left + points_after * (elapsed + left)

    def plan(self, prepared: list[Prepared]) -> None:
        """How long sampling, breakdown and profiles should take, now that each call's cost is known;
        say so at once if that is long (a size or sample count the user may not have meant)."""
        calls_s = sum(p.estimate_ns for p in prepared) / 1e9
        samples = self.request.settings.samples
        self.plan_s["sample"] = self.request.settings.budget_s if samples is None else samples * calls_s * 1.1
        with_paths = [p for p in prepared if p.paths is not None]
        breakdown = breakdown_budget(self.request.settings.budget_s, len(with_paths)) if with_paths else 0.0
        profile = min(PROFILE_SECONDS + 5 * max((p.estimate_ns for p in prepared), default=0) / 1e9, 5.0)
        self.plan_s["after"] = breakdown + (profile * len(prepared) if self.request.settings.profile else 0.0)
        total = self.plan_s["sample"] + self.plan_s["after"]
        if total > LONG_RUN_S:
            why = (
                f"{samples:,} samples × {format_ns(calls_s * 1e9)} of calls per round"
                if samples is not None
                else f"breakdown of calls of {format_ns(max(p.estimate_ns for p in prepared))}"
            )
            self.emit(PhaseChanged("sample", None, f"about {total / 60:.0f} min still to go ({why})"))

    def progress(self, fraction: float, targets: list[Target] | tuple[()] = ()) -> None:
        lo, hi = self.span
        overall = lo + (hi - lo) * min(max(fraction, 0.0), 1.0)
        elapsed = time.monotonic() - self.sweep_started
        eta = self.remaining_s(min(max(fraction, 0.0), 1.0))
        self.emit(
            Progress(
                fraction=overall,
                elapsed_s=elapsed,
                eta_s=eta,
                estimates_ns={t.name: float(np.median(t.samples[-ESTIMATE_WINDOW:])) for t in targets if t.samples},
                counts={t.name: len(t.samples) for t in targets},
            )
        )

    def finish(self, result: VariantResult) -> None:
        self.results[result.name] = result
        self.emit(VariantFinished(result))

    # -- the run ----------------------------------------------------------------------------------
    def measure(self) -> RunResult:

        resolution = timer_resolution_ns()
        header = self.header(resolution=resolution)
        self.emit(
            RunStarted(self.scenario.id, self.names, device_id(self.device), self.dispatch, self.sweep_value, header)
        )
        use_devices(self.run_device_list())
        self.turns.wait((self.point, START, 0))
        with device_scope(self.device):
            ctx = self.setup()
            prepared = self.prepare_all(ctx)
            self.plan(prepared)
            targets = self.sample(prepared, resolution)
            self.turns.wait((self.point, ANALYSE, 0))
            self.analyse(prepared, targets, resolution)
        return self.document(header)

    def prepare_point(self) -> list[Prepared]:
        """Set up and compile this pass's variants and plan its sampling (no RunStarted: the caller says
        when the pass starts; an interleaved sweep prepares every point before sampling any)."""
        ctx = self.setup()
        prepared = self.prepare_all(ctx)
        self.plan(prepared)
        return prepared

    def run_device_list(self) -> list[Any]:
        """The devices a variant may use (tuiperf.devices): the chosen one first, then its platform's others."""
        return run_devices(self.device)[: self.request.settings.devices]

    def setup(self) -> Any:
        self.emit(PhaseChanged("setup", None, "building inputs and weights"))
        if self.scenario.setup_fn is None:
            return None
        try:
            return self.scenario.setup_fn(SimpleNamespace(**self.params))
        except BaseException as exc:  # noqa: BLE001 - reported with the scenario file's line
            raise ScenarioError(
                f"setup failed: {describe_exception(exc, self.scenario.path)}", where=self.scenario.id
            ) from None

    def prepare_all(self, ctx: Any) -> list[Prepared]:
        prepared = []
        for index, name in enumerate(self.names):
            if self.cancel.is_set():
                break
            self.emit(PhaseChanged("compile", name, "building, compiling and warming up"))
            variant = self.scenario.variants[name]
            try:
                bench = as_bench(variant.build(SimpleNamespace(**self.params), ctx))
                prepared.append(
                    prepare(name, bench, self.cancel, self.device, self.request.settings.budget_s, self.lockstep)
                )
            except Skip as why:
                self.finish(document.variant_result(name, status="skipped", notes=[str(why)]))
            except BaseException as exc:  # noqa: BLE001 - one failing variant never stops the others
                self.finish(
                    document.variant_result(
                        name, status="failed", failed_phase="compile", error=describe_exception(exc, self.scenario.path)
                    )
                )
            self.progress(PREPARE_SHARE * (index + 1) / len(self.names))
        return prepared

    def targets_of(self, prepared: list[Prepared], resolution: float) -> list[Target]:
        """What the sampler times for each prepared variant."""
        return [
            Target(
                p.name,
                p.bench.fn,
                p.bench.args,
                p.block,
                loops=choose_loops(p.estimate_ns, resolution),
                per_turn=block_size(p.estimate_ns),
                warm_up=needs_warm_up(p.estimate_ns),
            )
            for p in prepared
        ]

    def sample(self, prepared: list[Prepared], resolution: float) -> list[Target]:
        targets = self.targets_of(prepared, resolution)
        if not targets or self.cancel.is_set():
            return targets
        self.emit(PhaseChanged("sample", None, "steady-state sampling"))
        watch = sentinel()
        before = {t.name: watch.snapshot(t.name) for t in targets}
        sent = {t.name: 0 for t in targets}

        def on_tick(elapsed: float, fraction: float) -> None:
            for target in targets:
                new = target.samples[sent[target.name] :]
                if new:
                    sent[target.name] += len(new)
                    self.emit(SamplesAdded(target.name, list(new)))
            self.progress(PREPARE_SHARE + SAMPLE_SHARE * fraction, targets)

        def on_turn(target: Target) -> None:
            watch.current = target.name
            if self.on_turn is not None:
                self.on_turn(target.name)

        self.sampling_started_ns = time.perf_counter_ns()
        for target in targets:
            watch.take_causes(target.name)  # only cache misses while sampling are explained below
        with watch.explaining():
            sample_interleaved(
                targets,
                samples=self.request.settings.samples,
                budget_s=self.request.settings.budget_s,
                cancel=self.cancel,
                interleave=self.request.settings.interleave,
                on_tick=on_tick,
                on_turn=on_turn,
                gate=lambda round_index, done: self.turns.wait((self.point, SAMPLE, round_index), done),
                scope=functools.partial(device_scope, self.device),
            )
        watch.current = None
        on_tick(0.0, 1.0)
        for target in targets:
            traces, compiles = watch.snapshot(target.name)
            self.compile_counts[target.name] = (traces - before[target.name][0], compiles - before[target.name][1])
            self.compile_causes[target.name] = watch.take_causes(target.name)
        return targets

    def sample_span(self, target: Target) -> tuple[float | None, float | None, int | None, int | None]:
        """When (seconds after sampling began) and in which rounds a target was sampled."""

        def seconds(ns: int | None) -> float | None:
            return None if ns is None else (ns - self.sampling_started_ns) / 1e9

        return seconds(target.first_ns), seconds(target.last_ns), target.first_round, target.last_round

    def analyse(self, prepared: list[Prepared], targets: list[Target], resolution: float) -> None:
        by_name = {t.name: t for t in targets}
        measured = [p for p in prepared if by_name[p.name].error is None and by_name[p.name].samples]
        breakdowns = self.breakdowns(measured, by_name, resolution)
        for index, item in enumerate(prepared):
            target = by_name[item.name]
            traces, compiles = self.compile_counts.get(item.name, (0, 0))
            common: dict[str, Any] = dict(
                notes=item.notes,
                warnings=item.warnings,
                samples_ns=target.samples,
                loops_per_sample=target.loops,
                span=self.sample_span(target),
                stages_ms=item.stages_ms,
                flops=item.flops,
                transcendentals=item.transcendentals,
                memory=item.memory,
                param_count=item.param_count,
                retraces=traces,
                recompiles=compiles,
                recompile_causes=self.compile_causes.get(item.name, []) if compiles else [],
                eager=item.bench.eager,
            )
            if target.error is not None:
                error = describe_exception(target.error, self.scenario.path)
                self.finish(
                    document.variant_result(item.name, status="failed", failed_phase="sample", error=error, **common)
                )
                continue
            if isinstance(item.bench.fn, Carrier):
                item.notes.append(item.bench.fn.progress_note())
            profile, profile_note = self.profile(item, target)
            breakdown = breakdowns.get(item.name)
            if item.paths is not None and breakdown is None and target.samples and not self.cancel.is_set():
                item.notes.append("no overhead breakdown: one of its lower-level paths failed while being timed")
            self.finish(
                document.variant_result(
                    item.name, breakdown_ns=breakdown, profile=profile, profile_note=profile_note, **common
                )
            )
            share = 1 - PREPARE_SHARE - SAMPLE_SHARE
            self.progress(PREPARE_SHARE + SAMPLE_SHARE + share * (index + 1) / len(prepared), targets)
        self.guard(prepared)

    def profile(self, item: Prepared, target: Target) -> tuple[list[ProfileRow], str | None]:
        """The Python profile of one call, or why there is none."""
        if not self.request.settings.profile:
            return [], "not profiled (profiling was turned off for this run)"
        if self.cancel.is_set() or not target.samples:
            return [], "not profiled (the run stopped first)"
        self.emit(PhaseChanged("profile", item.name, "Python profile of one call"))
        try:
            rows, note = profile_call(
                item.bench.fn, item.bench.args, item.block, item.estimate_ns, median_ns=float(np.median(target.samples))
            )
        except BaseException as exc:  # noqa: BLE001 - the profile is optional; the timing is not
            return [], f"no profile: {describe_exception(exc, self.scenario.path)}"
        return rows, note

    def breakdowns(
        self, measured: list[Prepared], targets: dict[str, Target], resolution: float
    ) -> dict[str, Breakdown]:
        """Every measured variant's breakdown paths, sampled together in the same rounds."""
        inputs = []
        withheld: dict[str, Breakdown] = {}
        for item in measured:
            if item.paths is None:
                continue
            samples = targets[item.name].samples
            compiles = self.compile_counts.get(item.name, (0, 0))[1]
            if compiles:
                withheld[item.name] = compiling_breakdown(float(np.median(samples)), compiles, len(samples))
                continue
            inputs.append(
                BreakdownInput(
                    name=item.name,
                    call=TimedPath(item.bench.fn, item.bench.args),
                    paths=item.paths,
                    total_ns=float(np.median(samples)),
                    total_ci_ns=median_ci(samples),
                    call_flops=item.call_flops,
                )
            )
        if not inputs or self.cancel.is_set() or self.anchor:
            return withheld
        self.emit(PhaseChanged("breakdown", None, "timing the lower-level paths of every variant together"))
        watch = sentinel()
        before = {item.name: watch.snapshot(item.name)[1] for item in inputs}

        def on_turn(target: Target) -> None:
            variant = target.name.split("/", 1)[0]
            watch.current = variant
            if self.on_turn is not None:
                self.on_turn(variant)

        try:
            found = measure_breakdowns(
                inputs,
                resolution_ns=resolution,
                budget_s=breakdown_budget(self.request.settings.budget_s, len(inputs)),
                cancel=self.cancel,
                interleave=self.request.settings.interleave,
                dispatch=self.dispatch,
                on_turn=on_turn,
                scope=functools.partial(device_scope, self.device),
            )
        finally:
            watch.current = None
        for timed in inputs:  # a call that compiled while its paths were timed: the same, found later
            compiles = watch.snapshot(timed.name)[1] - before[timed.name]
            if compiles and timed.name in found:
                found[timed.name] = compiling_breakdown(timed.total_ns, compiles, None)
        return {**found, **withheld}

    def guard(self, prepared: list[Prepared]) -> None:
        self.emit(PhaseChanged("guard", None, "checking that equivalent variants compute the same thing"))
        subjects = [
            Subject(
                p.name,
                p.output,
                p.flops,
                p.param_count,
                compare=p.bench.compare,
                tolerance=p.bench.tolerance,
                transcendentals=p.transcendentals,
                check_costs=self.scenario.variants[p.name].check_costs,
            )
            for p in prepared
            if self.scenario.variants[p.name].same_as_default and self.results[p.name].ok
        ]
        reference = self.scenario.reference_name()
        reference = reference if any(s.name == reference for s in subjects) else None
        tolerance = self.scenario.tolerance_for(SimpleNamespace(**self.params))
        self.keep_outputs(prepared, tolerance)
        findings = check(subjects, tolerance, reference)
        found = findings.mismatches
        self.warnings.extend(describe(found))
        for m in found:
            self.results[m["a"]].warnings.append(f"differs from {m['b']} in {m['quantity']}: {m['detail']}")
        self.equivalence = Equivalence(
            reference=reference or (subjects[0].name if subjects else None),
            checked=[s.name for s in subjects],
            mismatches=[Mismatch(**m) for m in found],
            notes=findings.notes,
        )

    def keep_outputs(self, prepared: list[Prepared], tolerance: float) -> None:
        """Each measured variant's output, for the comparison across environments (when asked)."""
        if self.digests is None:
            return
        for p in prepared:
            if not self.results[p.name].ok:
                continue
            subject = Subject(
                p.name, p.output, p.flops, p.param_count, compare=p.bench.compare, tolerance=p.bench.tolerance
            )
            try:
                self.digests[p.name] = digest(subject, tolerance)
            except BaseException as exc:  # noqa: BLE001 - a projection that fails is reported by the guard
                self.results[p.name].notes.append(
                    f"its output could not be carried out for the comparison across environments: {type(exc).__name__}"
                )

    def document(self, header: RunHeader) -> RunResult:
        partial = self.cancel.is_set()
        variants = [
            self.results.get(n)
            or document.variant_result(n, status="failed", error="not measured: the run was cancelled")
            for n in self.names
        ]
        warnings = []
        if partial:
            measured = ", ".join(v.name for v in variants if v.samples_ns) or "none"
            warnings.append(f"partial result: the run was cancelled (variants with samples: {measured})")
        warnings.extend(self.warnings)  # unfair comparisons
        if self.request.settings.dispatch == "sync" and self.device.platform != "cpu":
            warnings.append(ASYNC_ON_ACCELERATORS)
        clustered = [v.name for v in variants if len(v.modes) > 1]
        if clustered and self.dispatch == "async" and self.device.platform == "cpu":
            warnings.append(
                f"{len(clustered)} of {len(variants)} variants have clustered per-call times: expected with JAX's "
                "asynchronous CPU dispatch; compare medians with care, or run with sync dispatch for stable figures"
            )
        result = document.run_result(
            header,
            variants,
            duration_s=time.monotonic() - self.started,
            partial=partial,
            equivalence=self.equivalence,
            warnings=warnings,
        )
        result.memory = process_memory(self.device)
        return result
