"""One measurement run, start to end: validate, set up, prepare, sample, break down, profile, guard.

This is the only module that drives a whole run; runners call :func:`execute` (in this process or in
the worker) and pass ``emit`` to receive :mod:`tuiperf.core.events`.
"""

from __future__ import annotations

import datetime as _dt
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from tuiperf import __version__
from tuiperf.core import results
from tuiperf.core.breakdown import measure_breakdown
from tuiperf.core.catalog import load_catalog
from tuiperf.core.env import all_devices, describe_device, device_id, dispatch_mode, environment, pick_device
from tuiperf.core.errors import ParamError, ScenarioError, Skip, TuiperfError
from tuiperf.core.events import PhaseChanged, Progress, RunStarted, SamplesAdded, VariantFinished
from tuiperf.core.guard import Subject, check_equivalence, describe
from tuiperf.core.params import validate
from tuiperf.core.prepare import Prepared, prepare
from tuiperf.core.profiling import profile_call
from tuiperf.core.runner import DISPATCH_MODES, RunRequest
from tuiperf.core.sampler import Target, block_size, sample_interleaved
from tuiperf.core.scenario import Scenario
from tuiperf.core.sentinel import sentinel
from tuiperf.core.timing import choose_loops, harness_overhead_ns, timer_resolution_ns

Emit = Callable[[Any], None]

# Share of a run's progress bar spent in each phase.
PREPARE_SHARE, SAMPLE_SHARE = 0.25, 0.6
# The live estimate (shown as "≈") is the median of the latest samples: ten times a second, a
# median over every sample of every variant would cost the measuring process tens of milliseconds.
ESTIMATE_WINDOW = 5000


def describe_exception(exc: BaseException, path: str) -> str:
    """``file.py:LINE: Type: message`` at the deepest frame inside the scenario file."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == Path(path).resolve():
            line = frame.lineno
    message = f"{type(exc).__name__}: {exc}".strip()
    first_line = message.splitlines()[0] if message else type(exc).__name__
    return f"{Path(path).name}:{line}: {first_line}" if line else first_line


def resolve(request: RunRequest) -> tuple[Scenario, dict[str, Any], list[str], Any]:
    """Check everything the user chose before anything runs; raise TuiperfError with one line."""
    if request.dispatch not in DISPATCH_MODES:
        raise TuiperfError(f"dispatch must be one of {', '.join(DISPATCH_MODES)}, got {request.dispatch!r}")
    if request.samples is not None and request.samples < 1:
        raise ParamError(f"samples must be at least 1, got {request.samples}")
    if request.budget_s <= 0:
        raise ParamError(f"budget must be positive, got {request.budget_s}")
    scenario = load_catalog(request.scenario_dirs).get(request.scenario)
    params = validate(scenario.params, request.params)
    check_together(scenario, params)
    names = list(scenario.variants)
    if request.variants:
        unknown = [n for n in request.variants if n not in scenario.variants]
        if unknown:
            raise ParamError(f"unknown variant {unknown[0]!r} (variants: {', '.join(names)})")
        names = [n for n in names if n in request.variants]
    if request.sweep is not None:
        parameter, values = request.sweep
        if parameter not in scenario.params:
            raise ParamError(f"cannot sweep unknown parameter {parameter!r} (parameters: {', '.join(scenario.params)})")
        if not values:
            raise ParamError(f"sweep over {parameter!r} needs at least one value")
        for value in values:
            check_together(scenario, {**params, parameter: scenario.params[parameter].parse(value)})
    return scenario, params, names, pick_device(request.device)


def check_together(scenario: Scenario, params: dict[str, Any]) -> None:
    """Run the scenario's own check of values that depend on each other."""
    if scenario.check_fn is None:
        return
    try:
        scenario.check_fn(SimpleNamespace(**params))
    except ValueError as exc:
        raise ParamError(str(exc)) from None


def execute(request: RunRequest, emit: Emit, cancel: threading.Event) -> dict[str, Any]:
    scenario, params, names, device = resolve(request)
    if request.sweep is None:
        return Run(scenario, params, names, device, request, emit, cancel).measure()
    parameter, raw_values = request.sweep
    values = [scenario.params[parameter].parse(v) for v in raw_values]
    runs: list[dict[str, Any]] = []
    stopped: list[str] = []
    started = time.monotonic()
    for index, value in enumerate(values):
        span = (index / len(values), (index + 1) / len(values))
        run = Run(scenario, {**params, parameter: value}, names, device, request, emit, cancel, span, value, started)
        try:
            runs.append(run.measure())
        except TuiperfError as exc:
            if not runs:
                raise
            stopped.append(f"sweep stopped at {parameter}={value}: {exc}")  # keep the values measured so far
            break
        if runs[-1]["partial"]:
            break
    last = runs[-1]
    return {
        **last,
        "params": params,
        "partial": any(r["partial"] for r in runs) or len(runs) < len(values),
        "sweep": results.sweep_summary(parameter, values, runs),
        "runs": runs,
        "warnings": stopped + list(dict.fromkeys(w for r in runs for w in r["warnings"])),
    }


class Run:
    """State of one pass over the variants at one set of parameter values."""

    def __init__(
        self,
        scenario: Scenario,
        params: dict[str, Any],
        names: list[str],
        device: Any,
        request: RunRequest,
        emit: Emit,
        cancel: threading.Event,
        span: tuple[float, float] = (0.0, 1.0),
        sweep_value: Any = None,
        sweep_started: float | None = None,
    ) -> None:
        self.scenario, self.params, self.names, self.device = scenario, params, names, device
        self.request, self.emit, self.cancel = request, emit, cancel
        self.span, self.sweep_value = span, sweep_value
        self.started = time.monotonic()
        self.sweep_started = sweep_started if sweep_started is not None else self.started  # for the ETA
        self.entries: dict[str, dict[str, Any]] = {}
        self.warnings: list[str] = []
        self.compile_counts: dict[str, tuple[int, int]] = {}  # (traces, compiles) during sampling
        self.mismatches: list[dict[str, str]] = []
        self.checked: list[str] = []

    # -- progress ---------------------------------------------------------------------------------
    def progress(self, fraction: float, targets: list[Target] = ()) -> None:
        lo, hi = self.span
        overall = lo + (hi - lo) * min(max(fraction, 0.0), 1.0)
        elapsed = time.monotonic() - self.sweep_started
        eta = elapsed / overall * (1 - overall) if overall > 0.02 else None
        self.emit(
            Progress(
                fraction=overall,
                elapsed_s=elapsed,
                eta_s=eta,
                estimates_ns={t.name: float(np.median(t.samples[-ESTIMATE_WINDOW:])) for t in targets if t.samples},
                counts={t.name: len(t.samples) for t in targets},
            )
        )

    def finish(self, name: str, entry: dict[str, Any]) -> None:
        self.entries[name] = entry
        self.emit(VariantFinished(entry))

    # -- the run ----------------------------------------------------------------------------------
    def measure(self) -> dict[str, Any]:
        import jax

        self.emit(RunStarted(self.scenario.id, self.names, device_id(self.device), dispatch_mode(), self.sweep_value))
        resolution = timer_resolution_ns()
        with jax.default_device(self.device):
            ctx = self.setup()
            prepared = self.prepare_all(ctx)
            targets = self.sample(prepared, resolution)
            self.analyse(prepared, targets, resolution)
        return self.document(resolution)

    def setup(self) -> Any:
        self.emit(PhaseChanged("setup", None, "building inputs and weights"))
        if self.scenario.setup_fn is None:
            return None
        try:
            return self.scenario.setup_fn(SimpleNamespace(**self.params))
        except Exception as exc:
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
                bench = variant.build(SimpleNamespace(**self.params), ctx)
                prepared.append(prepare(name, bench, self.cancel, self.device))
            except Skip as why:
                self.finish(name, results.variant_entry(name, ok=False, skipped=True, notes=[str(why)]))
            except Exception as exc:
                self.finish(
                    name, results.variant_entry(name, ok=False, error=describe_exception(exc, self.scenario.path))
                )
            self.progress(PREPARE_SHARE * (index + 1) / len(self.names))
        return prepared

    def sample(self, prepared: list[Prepared], resolution: float) -> list[Target]:
        targets = [
            Target(
                p.name,
                p.bench.fn,
                p.bench.args,
                p.block,
                loops=choose_loops(p.estimate_ns, resolution),
                per_turn=block_size(p.estimate_ns),
            )
            for p in prepared
        ]
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

        def on_sample(target: Target) -> None:
            watch.current = target.name

        sample_interleaved(
            targets,
            samples=self.request.samples,
            budget_s=self.request.budget_s,
            cancel=self.cancel,
            on_tick=on_tick,
            on_sample=on_sample,
        )
        watch.current = None
        on_tick(0.0, 1.0)
        for target in targets:
            traces, compiles = watch.snapshot(target.name)
            self.compile_counts[target.name] = (traces - before[target.name][0], compiles - before[target.name][1])
        return targets

    def analyse(self, prepared: list[Prepared], targets: list[Target], resolution: float) -> None:
        by_name = {t.name: t for t in targets}
        for index, item in enumerate(prepared):
            target = by_name[item.name]
            common = dict(
                notes=item.notes,
                samples_ns=target.samples,
                loops_per_sample=target.loops,
                stages_ms=item.stages_ms,
                flops=item.flops,
                param_count=item.param_count,
                retraces=self.compile_counts.get(item.name, (0, 0))[0],
                recompiles=self.compile_counts.get(item.name, (0, 0))[1],
                warnings=item.warnings,
            )
            if target.error is not None:
                error = describe_exception(target.error, self.scenario.path)
                self.finish(item.name, results.variant_entry(item.name, ok=False, error=error, **common))
                continue
            breakdown = profile = None
            if target.samples and not self.cancel.is_set():
                self.emit(PhaseChanged("breakdown", item.name, "timing the lower-level paths"))
                median = float(np.median(target.samples))
                try:
                    breakdown = measure_breakdown(item, median, resolution, self.cancel)
                except Exception as exc:
                    item.notes.append(f"no overhead breakdown: {describe_exception(exc, self.scenario.path)}")
                if self.request.profile and not self.cancel.is_set():
                    self.emit(PhaseChanged("profile", item.name, "Python profile of one call"))
                    profile = profile_call(item.bench.fn, item.bench.args, item.block, item.estimate_ns)
            self.finish(item.name, results.variant_entry(item.name, breakdown_ns=breakdown, profile=profile, **common))
            self.progress(
                PREPARE_SHARE + SAMPLE_SHARE + (1 - PREPARE_SHARE - SAMPLE_SHARE) * (index + 1) / len(prepared), targets
            )
        self.guard(prepared)

    def guard(self, prepared: list[Prepared]) -> None:
        self.emit(PhaseChanged("guard", None, "checking that equivalent variants compute the same thing"))
        subjects = [
            Subject(p.name, p.output, p.flops, p.param_count)
            for p in prepared
            if self.scenario.variants[p.name].same_as_default and self.entries[p.name]["ok"]
        ]
        self.mismatches = check_equivalence(subjects, self.scenario.tolerance_for(SimpleNamespace(**self.params)))
        self.warnings.extend(describe(self.mismatches))
        for m in self.mismatches:
            self.entries[m["a"]]["warnings"].append(f"differs from {m['b']} in {m['quantity']}: {m['detail']}")
        self.checked = [s.name for s in subjects]

    def document(self, resolution: float) -> dict[str, Any]:
        partial = self.cancel.is_set()
        variants = [
            self.entries.get(n) or results.variant_entry(n, ok=False, error="not measured: the run was cancelled")
            for n in self.names
        ]
        # Most important first: a partial run, unfair comparisons (already in self.warnings), failures,
        # then each variant's own warnings (the guard's per-variant lines repeat the sentences above).
        if partial:
            measured = ", ".join(v["name"] for v in variants if v["samples_ns"]) or "none"
            self.warnings.insert(0, f"partial result: the run was cancelled (variants with samples: {measured})")
        self.warnings.extend(f"{v['name']} failed: {v['error']}" for v in variants if v["error"])
        clustered = [v["name"] for v in variants if len(v["modes"]) > 1]
        if clustered and dispatch_mode() == "async" and self.device.platform == "cpu":
            self.warnings.append(
                f"{len(clustered)} of {len(variants)} variants have clustered per-call times: expected with JAX's "
                "asynchronous CPU dispatch; compare medians with care, or run with sync dispatch for stable figures"
            )
        self.warnings.extend(
            f"{v['name']}: {w}" for v in variants for w in v["warnings"] if not w.startswith("differs from")
        )
        return {
            "schema_version": results.SCHEMA_VERSION,
            "tool": {"name": "tuiperf", "version": __version__},
            "scenario": {"id": self.scenario.id, "title": self.scenario.title, "path": self.scenario.path},
            "params": self.params,
            "device": describe_device(self.device, all_devices().index(self.device)),
            "options": {
                "dispatch": dispatch_mode(),
                "samples": self.request.samples,
                "budget_s": self.request.budget_s,
                "seed": self.request.seed,
                "variants": self.names,
            },
            "env": environment(self.device, resolution),
            "calibration": {"timer_resolution_ns": resolution, "harness_overhead_ns": harness_overhead_ns()},
            "started_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "duration_s": time.monotonic() - self.started,
            "partial": partial,
            "variants": variants,
            "comparisons": results.comparisons(variants),
            "equivalence": {"checked": self.checked, "mismatches": self.mismatches},
            "warnings": self.warnings,
        }
