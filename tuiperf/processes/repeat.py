"""One result from the same measurement repeated in several fresh measuring processes.

One process can land ~30 % away from another on the same machine (memory placement, layout), so a
single process's CI says nothing about the next one. Like pyperf's worker processes: the samples of
all processes are pooled (the within-process figures), each variant keeps its per-process medians,
and a warning says when the spread between processes exceeds the pooled median's CI. A sweep or a
grid is combined point by point, then summarised again (medians, slopes, crossovers) from those points.
A variant that failed in some processes (it crashed one, or outlasted its time limit there) is reported
from those where it was measured, and a warning says in how many of them.
"""

from __future__ import annotations

import itertools

import msgspec

from tuiperf.results import document
from tuiperf.results.model import CompileStagesMs, Recompiles, RunResult, StageSeries, Tried, VariantResult


def combine(results: list[RunResult], planned: int) -> RunResult:
    if results[0].sweep is not None:
        return _combine_sweep(results, planned)
    first = results[0]
    variants: list[VariantResult] = []
    warnings: list[str] = []
    for entry in first.variants:
        runs = [r.variant(entry.name) for r in results]
        measured = [v for v in runs if v is not None and v.measured]
        if not measured:
            variants.append(entry)
            continue
        if len(measured) < len(runs):
            errors = (v.failure.error for v in runs if v is not None and not v.measured and v.failure is not None)
            failed = next((error for error in errors if error), None)
            why = f" (failed in the others: {failed})" if failed is not None else ""
            warnings.append(f"{entry.name}: measured in {len(measured)} of {len(runs)} processes{why}")
            entry = measured[0]  # its figures are those of the processes that measured it
        combined, spread = _pooled(entry, measured)
        warnings.extend(spread)
        variants.append(combined)
    if len(results) < planned:
        warnings.insert(0, f"partial result: {len(results)} of {planned} processes ran")
    base = msgspec.structs.replace(
        first,
        variants=variants,
        comparisons=document.comparisons(variants),
        tried=[_pooled_tried(t, results, variants) for t in first.tried],
        duration_s=sum(r.duration_s for r in results),
        partial=any(r.partial for r in results) or len(results) < planned,
    )
    measured_now = {v.name for v in variants if v.measured}
    kept = [w for w in first.warnings if not any(w.startswith(f"{name} failed: ") for name in measured_now)]
    base.warnings = list(dict.fromkeys([*warnings, *kept]))
    return base


def _pooled(entry: VariantResult, measured: list[VariantResult]) -> tuple[VariantResult, list[str]]:
    """One variant from the processes that measured it: samples pooled, per-process medians kept, and
    a warning when they spread beyond the pooled median's interval."""
    warnings: list[str] = []
    pooled = [s for v in measured for s in v.sampling.samples_ns]
    process_starts = list(itertools.accumulate((len(v.sampling.samples_ns) for v in measured[:-1]), initial=0))
    round_starts = [
        start + r for start, v in zip(process_starts, measured, strict=True) for r in v.sampling.round_starts
    ]
    medians = [v.sampling.stats.median_ns for v in measured if v.sampling.stats is not None]
    sampling = document.sampling(
        pooled,
        loops_per_sample=entry.sampling.loops_per_sample,
        round_starts=round_starts,
        process_starts=process_starts,
    )
    # The compile warning is made again from every process's counts and causes: not the first's copied.
    recompiles = Recompiles(
        retraces=sum(v.recompiles.retraces for v in measured),
        recompiles=sum(v.recompiles.recompiles for v in measured),
        causes=list(dict.fromkeys(cause for v in measured for cause in v.recompiles.causes)),
        eager=entry.recompiles.eager,
    )
    first_compiles = document.compile_warnings(entry.recompiles)
    combined = document.variant_result(
        entry.name,
        msgspec.structs.replace(sampling, process_medians_ns=medians),
        notes=entry.notes,
        warnings=[w for w in entry.warnings if not _derived(w) and w not in first_compiles],
        stages=pooled_stages(measured),
        program=entry.program,
        recompiles=recompiles,
        profile=entry.profile,
        breakdown=entry.breakdown,
    )
    if combined.sampling.stats is not None and len(medians) > 1:
        lo, hi = combined.sampling.stats.ci95_median_ns
        half = (hi - lo) / 2
        spread = max(medians) - min(medians)
        if spread > 2 * half:
            warnings.append(
                f"{entry.name}: the medians of {len(medians)} processes span {100 * spread / min(medians):.1f} % "
                "(more than the pooled median's 95 % CI): process-to-process variation dominates; compare "
                "runs with --processes on both sides"
            )
    return combined, warnings


def _pooled_tried(tried: Tried, results: list[RunResult], variants: list[VariantResult]) -> Tried:
    """A remedy tuiperf tried, from every process that tried it (each chose it from its own evidence):
    its samples pooled, its ratio made again against the pooled original (the first process's alone
    before), its outputs the same only where every process found them so."""
    same = [t for r in results for t in r.tried if (t.of, t.remedy) == (tried.of, tried.remedy)]
    measured = [t.result for t in same if t.result is not None and t.result.measured]
    original = next((v for v in variants if v.name == tried.of and v.measured), None)
    if len(measured) < 2 or original is None:
        return tried
    remedied, _ = _pooled(measured[0], measured)
    rows = document.comparisons([original, remedied])
    checks = [t.same_outputs for t in same if t.result is not None and t.result.measured]
    agreed = False if False in checks else (None if None in checks else True)
    differs = next((t.differs for t in same if t.differs), "")
    return msgspec.structs.replace(
        tried, result=remedied, ratio=rows[0] if rows else None, same_outputs=agreed, differs=differs
    )


def pooled_stages(measured: list[VariantResult]) -> CompileStagesMs:
    """``--measure compile`` in several processes: each stage's repeats pooled over them (each repeat
    a compile with JAX's caches cleared, so one process's are as good as another's), with the median and
    its interval made again; the one-time figures, cache and sizes are the first process's. Only the
    first process's repeats were kept before."""
    from tuiperf.results.stats import median_ci

    first = measured[0].stages
    if len(measured) < 2 or not first.repeated:
        return first
    repeated = {}
    for key in first.repeated:
        values = [x for v in measured if key in v.stages.repeated for x in v.stages.repeated[key].samples_ms]
        ordered = sorted(values)
        n = len(ordered)
        median = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
        lo, hi = median_ci(values)
        repeated[key] = StageSeries(samples_ms=values, median_ms=median, ci95_ms=(float(lo), float(hi)))
    return msgspec.structs.replace(first, repeated=repeated, rounds=sum(v.stages.rounds for v in measured))


def _combine_sweep(results: list[RunResult], planned: int) -> RunResult:
    """Each point pooled over the processes that measured it; the points every process reached."""
    first = results[0]
    shape = first.sweep
    assert shape is not None
    reached = min(len(r.points) for r in results)
    points = [combine([r.points[i] for r in results], len(results)) for i in range(reached)]
    rows = list(shape.grid[0].values) if shape.grid else shape.values[:reached]
    columns = (shape.grid[1].parameter, list(shape.grid[1].values)) if len(shape.grid) > 1 else None
    base = document.RunHeader(
        scenario=first.scenario,
        params=first.params,
        device=first.device,
        options=first.options,
        env=first.env,
        calibration=first.calibration,
        started_at=first.started_at,
    )
    own = [w for r in results for w in r.warnings if w.startswith("drift:")]  # each process's own drift check
    if len(results) < planned:
        own.insert(0, f"partial result: {len(results)} of {planned} processes ran")
    combined = document.sweep_result(
        shape.parameter,
        rows,
        points,
        base,
        duration_s=sum(r.duration_s for r in results),
        warnings=own,
        columns=columns,
    )
    assert combined.sweep is not None
    combined.sweep.anchor_ns = shape.anchor_ns
    combined.partial = combined.partial or any(r.partial for r in results) or len(results) < planned
    return combined


def _derived(warning: str) -> bool:
    """Warnings recomputed from the pooled samples (stability, clusters) are not copied."""
    return warning.startswith(("unstable", "imprecise", "multi-modal", "only ")) or "outliers" in warning
