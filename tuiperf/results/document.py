"""The one writer of result documents (:mod:`tuiperf.results.model`).

A run, a sweep and the partial result after the measuring process died are all assembled here, so
every document carries the same fields whoever produced it. Statistics, clusters and the warnings
derived from samples are computed here too, once, in the measuring process (numpy lives there).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import msgspec

from tuiperf.results.model import (
    PHASES,
    SCHEMA_VERSION,
    Breakdown,
    Calibration,
    Comparison,
    CompileStagesMs,
    Crash,
    DeviceInfo,
    Environment,
    Equivalence,
    Failure,
    Profile,
    Program,
    ProgramMemory,
    Recompiles,
    RunOptions,
    RunResult,
    Sampling,
    Scalar,
    ScenarioRef,
    Stats,
    Struct,
    Sweep,
    SweepAxis,
    Tool,
    VariantResult,
    VariantStatus,
)


class RunHeader(Struct):
    """What is known about a run before anything is measured; sent ahead with ``RunStarted`` so a
    result can be assembled even if the measuring process dies mid-run."""

    scenario: ScenarioRef
    params: dict[str, Scalar]
    device: DeviceInfo
    options: RunOptions
    env: Environment | None = None
    calibration: Calibration | None = None
    started_at: str = ""


def tool() -> Tool:
    from tuiperf.common.version import __version__

    return Tool(name="tuiperf", version=__version__)


def finite(value: float | None) -> float | None:
    """JSON has no NaN or infinity: such a figure is recorded as missing."""
    return value if value is not None and math.isfinite(value) else None


Span = tuple[float | None, float | None, int | None, int | None]


def sampling(
    samples_ns: Sequence[float] = (),
    *,
    loops_per_sample: int = 1,
    span: Span = (None, None, None, None),
    round_starts: Sequence[int] = (),
    process_starts: Sequence[int] = (),
) -> Sampling:
    """A variant's sampling part: statistics and clusters derived from the samples, and the median's
    95 % interval over rounds and processes where it has their data.

    ``span`` is (first sample s, last sample s, first round, last round) of steady-state sampling;
    ``round_starts`` where each turn's samples begin, ``process_starts`` each process's (several): the
    median's interval then covers them (:mod:`tuiperf.results.intervals`).
    """
    from tuiperf.results.stats import detect_modes, summarize

    samples = [float(s) for s in samples_ns]
    first_s, last_s, first_round, last_round = span
    part = Sampling(
        samples_ns=samples,
        loops_per_sample=loops_per_sample,
        first_sample_s=first_s,
        last_sample_s=last_s,
        first_round=first_round,
        last_round=last_round,
        round_starts=list(round_starts),
        process_starts=list(process_starts),
    )
    if not samples:
        return part
    return with_median_interval(msgspec.structs.replace(part, stats=summarize(samples), modes=detect_modes(samples)))


def variant_result(
    name: str,
    sampled: Sampling | None = None,
    *,
    status: VariantStatus = "ok",
    failure: Failure | None = None,
    notes: Sequence[str] = (),
    warnings: Sequence[str] = (),
    stages: CompileStagesMs | None = None,
    program: Program | None = None,
    recompiles: Recompiles | None = None,
    profile: Profile | None = None,
    breakdown: Breakdown | None = None,
) -> VariantResult:
    """A variant's result from the parts its steps made (``failure``: it failed, whatever ``status``);
    the notes and warnings its parts imply (stability, compiles, loops) are added to those given."""
    from tuiperf.results.stats import stability_warnings

    sampled = sampled or Sampling()
    recompiles = recompiles or Recompiles()
    # A scenario's note can be any object (Bench(note=...)): as text, so the result can be sent and stored.
    all_notes, all_warnings = [_text(n) for n in notes], [_text(w) for w in warnings]
    if sampled.stats is not None:
        all_warnings.extend(stability_warnings(sampled.stats, sampled.modes))
    all_warnings.extend(compile_warnings(recompiles))
    if recompiles.eager and recompiles.retraces and not recompiles.recompiles:
        all_notes.append(f"eager by design: the {recompiles.retraces} trace(s) during sampling are part of its calls")
    if sampled.loops_per_sample > 1:
        all_notes.append(
            f"calls shorter than the timer can resolve: each sample times {sampled.loops_per_sample} calls and "
            "reports the mean"
        )
    return VariantResult(
        name=name,
        status="failed" if failure is not None else status,
        failure=failure,
        notes=all_notes,
        warnings=all_warnings,
        sampling=sampled,
        stages=stages or CompileStagesMs(),
        program=program or Program(),
        recompiles=recompiles,
        profile=profile or Profile(),
        breakdown=breakdown,
    )


def failed(
    name: str, error: str, phase: str | None = None, sampled: Sampling | None = None, notes: Sequence[str] = ()
) -> VariantResult:
    """A variant that failed (in ``phase``, one of PHASES), with the samples it had."""
    return variant_result(name, sampled, failure=Failure(error=error, phase=phase), notes=notes)


def program(
    flops: float | None,
    transcendentals: float | None,
    memory: ProgramMemory | None,
    param_count: int | None,
    loops: Sequence[int | None] | None = None,
    constant_bytes: int | None = None,
) -> Program:
    """The program part; JSON has no NaN or infinity, so such a count is recorded as missing."""
    return Program(
        flops=finite(flops),
        transcendentals=finite(transcendentals),
        memory=memory,
        param_count=param_count,
        loops=None if loops is None else list(loops),
        constant_bytes=constant_bytes,
    )


def with_median_interval(part: Sampling) -> Sampling:
    """The sampling part with its median's 95 % interval over rounds and processes, where it has their
    data (the samples-only one stays in ``median_interval.samples_ci95``)."""
    from tuiperf.results import calibration, intervals

    if part.stats is None:
        return part
    stats = part.stats
    spread = calibration.median_sd(stats.median_ns)
    bounds, interval = intervals.median_interval(part, stats.median_ns, stats.ci95_median_ns, spread)
    return msgspec.structs.replace(
        part, stats=msgspec.structs.replace(stats, ci95_median_ns=bounds), median_interval=interval
    )


def _text(value: object) -> str:
    from tuiperf.common.text import inert

    return value if isinstance(value, str) else inert(value)


def compile_warnings(seen: Recompiles) -> list[str]:
    retraces, recompiles, causes = seen.retraces, seen.recompiles, seen.causes
    if recompiles:
        why = (
            f"what changed between calls, as JAX explains its cache misses: {'; '.join(causes)}"
            if causes
            else "a retrace: a changing static argument, shape, dtype or weak type (JAX explained no cache miss)"
        )
        return [
            f"{recompiles} XLA compilation(s) and {retraces} trace(s) happened during steady-state sampling: the "
            f"samples include compile time; {why}"
        ]
    if retraces and not seen.eager:
        return [
            f"{retraces} trace(s) but no compilation during steady-state sampling: the calls do tracing work "
            "(for example jax.eval_shape) each time; that cost is part of every sample"
        ]
    return []


def comparisons(variants: Sequence[VariantResult]) -> list[Comparison]:
    """Every pair of measured variants, each later one against each earlier one (``a`` / ``b``).

    Any variant can then be the baseline: the reverse ratio is 1/ratio with the CI bounds inverted
    (a percentile bootstrap CI follows a monotone transform).
    """
    from tuiperf.results import calibration, intervals
    from tuiperf.results.stats import mann_whitney_p, ratio_ci

    measured = [v for v in variants if v.measured]
    rows = []
    for i, later in enumerate(measured):
        for earlier in measured[:i]:
            a, b = later.sampling, earlier.sampling
            ratio, lo, hi = ratio_ci(a.samples_ns, b.samples_ns)
            if not all(map(math.isfinite, (ratio, lo, hi))):
                continue  # a zero median: no ratio to speak of
            p_value = mann_whitney_p(a.samples_ns, b.samples_ns)
            call_ns = max(a.stats.median_ns if a.stats else 0.0, b.stats.median_ns if b.stats else 0.0)
            # Two environments' variants ran in two processes: each median moves on its own.
            spread = (
                calibration.ratio_sd(call_ns)
                if later.environment == earlier.environment
                else _two_processes(calibration.median_sd(call_ns))
            )
            ci95, interval = intervals.ratio_interval(a, b, ratio, (lo, hi), spread)
            rows.append(
                Comparison(a=later.name, b=earlier.name, ratio=ratio, ci95=ci95, p_value=p_value, interval=interval)
            )
    return rows


def _two_processes(spread: tuple[float, str] | None) -> tuple[float, str] | None:
    """The spread of a ratio of medians from two processes: √2 × one median's."""
    return None if spread is None else (math.sqrt(2) * spread[0], spread[1])


def run_result(
    header: RunHeader,
    variants: list[VariantResult],
    *,
    duration_s: float,
    partial: bool = False,
    equivalence: Equivalence | None = None,
    warnings: Sequence[str] = (),
    error: str | None = None,
    crash: Crash | None = None,
) -> RunResult:
    """A complete document for one set of parameter values.

    ``warnings`` are the run-level ones (partial run, unfair comparisons); failures and each
    variant's own warnings are appended here, most important first.
    """
    ordered = list(warnings)
    ordered.extend(f"{v.name} failed: {v.failure.error}" for v in variants if v.failure and v.failure.error)
    ordered.extend(f"{v.name}: {w}" for v in variants for w in v.warnings if not w.startswith("differs from"))
    return RunResult(
        schema_version=SCHEMA_VERSION,
        tool=tool(),
        scenario=header.scenario,
        params=header.params,
        device=header.device,
        options=header.options,
        env=header.env,
        calibration=header.calibration,
        started_at=header.started_at,
        duration_s=duration_s,
        partial=partial,
        error=error,
        crash=crash,
        variants=variants,
        comparisons=comparisons(variants),
        equivalence=equivalence or Equivalence(),
        warnings=list(dict.fromkeys(ordered)),
    )


def sweep_result(
    parameter: str,
    values: list[Any],
    points: list[RunResult],
    base: RunHeader,
    *,
    duration_s: float,
    warnings: Sequence[str] = (),
    anchor: RunResult | None = None,
    columns: tuple[str, list[Any]] | None = None,
) -> RunResult:
    """A sweep: one complete result per value (``points``), medians and log-log slopes per variant.
    With ``columns`` (a second swept parameter) a grid: ``values`` are its rows and ``points`` its
    cells row by row; no slopes (along which parameter?) and no crossovers (a fit over one size).

    ``anchor`` is the first point measured again after the last: a variant whose median moved beyond
    both CIs and by more than :data:`DRIFT_LIMIT` gets a warning (the points between saw that drift).
    """
    from tuiperf.results.stats import loglog_slope

    grid = [SweepAxis(parameter, list(values)), SweepAxis(*columns)] if columns is not None else []
    cells = [row for row in values for _ in columns[1]] if columns is not None else list(values)
    measured_values = cells[: len(points)]
    shape = Sweep(parameter=parameter, values=measured_values, medians_ns={}, slopes={}, grid=grid)
    names = list(dict.fromkeys(v.name for point in points for v in point.variants))
    medians: dict[str, list[float | None]] = {}
    for name in names:
        series: list[float | None] = []
        for point in points:
            entry = point.variant(name)
            stats = entry.sampling.stats if entry is not None else None
            series.append(stats.median_ns if stats is not None else None)
        medians[name] = series
    memory = {name: [_program_total(point.variant(name)) for point in points] for name in names}
    compiles = {name: [_compile_total(point.variant(name)) for point in points] for name in names}
    numeric = not grid and all(isinstance(v, int | float) and not isinstance(v, bool) for v in measured_values)
    slopes: dict[str, float | None] = {}
    for name, series in medians.items():
        pairs = [(x, y) for x, y in zip(measured_values, series) if y is not None] if numeric else []
        slopes[name] = loglog_slope([p[0] for p in pairs], [p[1] for p in pairs]) if pairs else None
    partial = any(p.partial for p in points) or len(points) < len(cells)
    point_warnings = [f"[{shape.label(i)}] {w}" for i, p in enumerate(points) for w in p.warnings]
    anchor_ns: dict[str, float | None] = {}
    if anchor is not None and points:
        for name in names:
            start, end = points[0].variant(name), anchor.variant(name)
            first = start.sampling.stats if start is not None else None
            last = end.sampling.stats if end is not None else None
            if first is None or last is None:
                continue
            anchor_ns[name] = last.median_ns
            drift = _drift(first, last)
            if drift is not None:
                point_warnings.insert(
                    0,
                    f"drift: {name} at {shape.label(0)} read {_ns(first.median_ns)} at the "
                    f"start of the sweep and {_ns(last.median_ns)} after its last point ({100 * drift:+.1f} %): "
                    "the points between may carry up to that much drift, so read slopes and ratios across points "
                    "with that margin (or run the points one at a time)",
                )
    result = RunResult(
        schema_version=SCHEMA_VERSION,
        tool=tool(),
        scenario=base.scenario,
        params=base.params,
        device=base.device,
        options=base.options,
        env=points[-1].env if points else base.env,
        calibration=points[-1].calibration if points else base.calibration,
        started_at=base.started_at,
        duration_s=duration_s,
        partial=partial,
        warnings=list(dict.fromkeys([*warnings, *point_warnings])),
        sweep=msgspec.structs.replace(
            shape,
            medians_ns=medians,
            slopes=slopes,
            anchor_ns=anchor_ns,
            memory_bytes={name: series for name, series in memory.items() if any(b is not None for b in series)},
            compile_ms={name: series for name, series in compiles.items() if any(m is not None for m in series)},
        ),
        points=points,
    )
    from tuiperf.results.crossover import crossovers

    assert result.sweep is not None
    result.sweep.crossovers = crossovers(result)
    return result


def _compile_total(variant: VariantResult | None) -> float | None:
    """A variant's repeated trace + lower + compile median (ms), where ``--measure compile`` measured it."""
    total = variant.stages.total if variant is not None and variant.ok else None
    return None if total is None else total.median_ms


def _program_total(variant: VariantResult | None) -> int | None:
    memory = variant.program.memory if variant is not None else None
    return memory.total if memory is not None else None


def after_cancel(
    header: RunHeader,
    finished: list[VariantResult],
    streamed: dict[str, list[float]],
    names: list[str],
    how: str,
    *,
    duration_s: float,
) -> RunResult:
    """A partial result after a cancel that the measuring process did not answer in time (it was
    stopped): a cancel, not a crash; finished variants keep their results, the others what streamed."""
    done = {v.name: v for v in finished}
    variants = [
        done.get(name)
        or (
            variant_result(name, sampling(samples), notes=["partial: the run was cancelled while it was sampling"])
            if (samples := streamed.get(name))
            else failed(name, "not measured: the run was cancelled")
        )
        for name in names
    ]
    variants += [v for v in finished if v.name not in names]
    measured = ", ".join(v.name for v in variants if v.sampling.samples_ns) or "none"
    why = f"partial result: the run was cancelled (variants with samples: {measured}); the measuring process {how}"
    return run_result(header, variants, duration_s=duration_s, partial=True, warnings=[why])


DRIFT_LIMIT = 0.05  # a first point that moved more than this between the start and end of a sweep


def _drift(start: Stats, end: Stats) -> float | None:
    """end/start − 1 when it is beyond both medians' CIs and the limit, else None."""
    if start.median_ns <= 0:
        return None
    separated = end.ci95_median_ns[0] > start.ci95_median_ns[1] or end.ci95_median_ns[1] < start.ci95_median_ns[0]
    change = end.median_ns / start.median_ns - 1
    return change if separated and abs(change) > DRIFT_LIMIT else None


def _ns(value: float) -> str:
    from tuiperf.common.units import format_ns

    return format_ns(value)


def after_crash(
    header: RunHeader,
    finished: list[VariantResult],
    streamed: dict[str, list[float]],
    names: list[str],
    crash: Crash,
    *,
    duration_s: float,
) -> RunResult:
    """A partial result after the measuring process died: finished variants keep their results,
    the others keep the samples streamed so far, and the variant that was running is named."""
    done = {v.name for v in finished}
    variants = list(finished)
    for name in names:
        if name in done:
            continue
        samples = streamed.get(name, [])
        if name == crash.variant:
            variants.append(failed(name, f"crashed the measuring process: {crash.how}", crash.phase, sampling(samples)))
        elif samples:
            variants.append(
                variant_result(name, sampling(samples), notes=["partial: the measuring process stopped while sampling"])
            )
        else:
            variants.append(failed(name, "not measured: the run stopped before it"))
    doing = PHASES.get(crash.phase or "", crash.phase or "")
    culprit = ", ".join(part for part in (crash.variant, f"while {doing}" if doing else "") if part)
    culprit = f" ({culprit})" if culprit else ""
    why = f"the measuring process {crash.how}{culprit}"
    return run_result(
        header,
        variants,
        duration_s=duration_s,
        partial=True,
        error=why,
        crash=crash,
        warnings=[f"partial result: {why}"],
    )
