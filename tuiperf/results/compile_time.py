"""Compile time as a measured quantity (``--measure compile``): each variant's repeated trace, lower,
compile and first call (``VariantResult.stages.repeated``), read for the report, the exports and sweeps —
medians with their 95 % intervals, ratios between variants with bootstrap intervals, the growth of
compile time over a sweep (a log-log slope), the persistent cache, and when a longer compile pays off.

Pure: numpy and the result model only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tuiperf.common.units import format_ns
from tuiperf.results.model import REPEATED_STAGES, RunResult, StageSeries, VariantResult
from tuiperf.results.stats import _boot_medians, loglog_slope, ratio_ci

FLAT = 0.15  # a log-log slope within ±0.15 of 0 reads as flat


def has_repeats(result: RunResult) -> bool:
    """Whether any variant's (or any sweep point's) compile was repeated."""
    if result.sweep is not None and result.sweep.compile_ms:
        return True
    return any(v.stages.repeated for run in [result, *result.points] for v in run.variants)


def format_ms(ms: float) -> str:
    return format_ns(ms * 1e6)


def median_text(series: StageSeries | None) -> str:
    """``31.6 ms [30.7–39.9]``: the median and its 95 % interval."""
    if series is None:
        return "–"
    lo, hi = series.ci95_ms
    return f"{format_ms(series.median_ms)} [{format_ms(lo)}–{format_ms(hi)}]"


def stage_rows(result: RunResult) -> list[list[str]]:
    """One row per variant with repeats: each stage's median [95 % CI] and the repeats taken."""
    rows = []
    for v in result.variants:
        if not v.ok or not v.stages.repeated:
            continue
        cells = [median_text(v.stages.repeated.get(key)) for key, _ in REPEATED_STAGES]
        rows.append([v.name, *cells, str(v.stages.rounds)])
    return rows


@dataclass(frozen=True)
class CompileRatio:
    name: str
    ratio: float
    lo: float
    hi: float


def ratios(result: RunResult, baseline: str | None = None) -> tuple[str | None, list[CompileRatio]]:
    """Each variant's total compile (trace + lower + compile) over the baseline's, with a bootstrap 95 % CI."""
    repeated = [v for v in result.variants if v.ok and v.stages.total is not None]
    if len(repeated) < 2:
        return None, []
    base = next((v for v in repeated if v.name == baseline), repeated[0])
    assert base.stages.total is not None
    found = []
    for v in repeated:
        if v is base or v.stages.total is None:
            continue
        ratio, lo, hi = ratio_ci(v.stages.total.samples_ms, base.stages.total.samples_ms)
        found.append(CompileRatio(v.name, ratio, lo, hi))
    return base.name, found


STAGE_WORDS = {"trace": "tracing (Python)", "lower": "lowering to StableHLO", "compile": "XLA's backend compile"}


def gap_sentences(result: RunResult, baseline: str | None = None) -> list[str]:
    """For each variant whose compile differs from the baseline's beyond its interval, which stage holds
    the gap (differences of the stages' repeated medians) and what the programs show (loops, FLOPs)."""
    base_name, found = ratios(result, baseline)
    base = result.variant(base_name) if base_name is not None else None
    if base is None:
        return []
    said = []
    for row in found:
        v = result.variant(row.name)
        if v is None or row.lo <= 1 <= row.hi:
            continue
        gaps = {key: _median(v, key) - _median(base, key) for key in STAGE_WORDS}
        total = sum(gaps.values())
        if total == 0:
            continue
        held = sorted(gaps.items(), key=lambda kv: -abs(kv[1]))
        stages = ", ".join(f"{STAGE_WORDS[key]} {gap:+.3g} ms ({gap / total:.0%})" for key, gap in held)
        longer = "longer" if total > 0 else "shorter"
        sentence = f"{v.name} compiles {abs(total):.3g} ms {longer} than {base.name} ({row.ratio:.3g}×): {stages}"
        evidence = _program_words(v, base)
        said.append(sentence + (f"; {evidence}" if evidence else ""))
    return said


def _median(v: VariantResult, key: str) -> float:
    series = v.stages.repeated.get(key)
    return series.median_ms if series is not None else 0.0


def _program_words(v: VariantResult, base: VariantResult) -> str:
    """What the compiled programs show: a loop in one only (an unrolled body is compiled once per step),
    and their XLA FLOPs where both count their work."""
    words = []
    for a, b in ((v, base), (base, v)):
        if a.program.loops and not b.program.loops:
            words.append(f"{a.name}'s program holds {a.program.loop_words()}, {b.name}'s none")
    if v.program.flops and base.program.flops and v.program.counts_work and base.program.counts_work:
        ratio = v.program.flops / base.program.flops
        if not 0.9 <= ratio <= 1.1:
            words.append(f"{v.name}'s program counts {ratio:.3g}× the XLA FLOPs")
    return "; ".join(words)


def first_compile_line(result: RunResult) -> str:
    """What the process's own first-compile costs were, paid before the repeats and in none of them."""
    found = next((v.stages for v in result.variants if v.stages.repeated and v.stages.process_first_ms), None)
    if found is None or found.process_first_ms is None:
        return ""
    line = (
        f"the process's own first-compile costs were paid before any variant, by compiling a tiny unrelated "
        f"function: {format_ms(found.process_first_ms)}"
    )
    if found.tiny_ms is not None:
        line += f" (the same function just before the repeats: {format_ms(found.tiny_ms)})"
    return line + "; each repeat cleared JAX's in-memory caches and ran with no persistent cache folder"


def cache_lines(result: RunResult) -> list[str]:
    """The persistent cache, cold then warm, per variant: its hit and seconds saved, or why none."""
    lines = []
    for v in result.variants:
        for cache in v.stages.cache:
            where = " (both thresholds at 0)" if cache.thresholds_zero else ""
            head = f"{v.name}{where}: cold {format_ms(cache.cold_ms)}, warm {format_ms(cache.warm_ms)}"
            if cache.hits:
                read = "" if cache.read_s is None else f", read in {format_ms(cache.read_s * 1e3)}"
                saved = f"; warm saves {format_ms(cache.cold_ms - cache.warm_ms)}"
                said = "" if cache.saved_s is None else f" (JAX's compile_time_saved_sec: {cache.saved_s:.3g} s)"
                lines.append(f"{head}: {cache.hits} hit{read}{saved}{said}")
            else:
                lines.append(f"{head}: no hit — {cache.note}")
    return lines


# -- sweeps ---------------------------------------------------------------------------------------------
def sweep_medians(result: RunResult) -> dict[str, list[float | None]]:
    """Each variant's total compile median (ms) at every point of a sweep (None: not repeated there)."""
    return dict(result.sweep.compile_ms) if result.sweep is not None else {}


def sweep_slopes(result: RunResult) -> dict[str, float | None]:
    """The log-log slope of each variant's compile median against the swept value (None: not numeric)."""
    if result.sweep is None or result.sweep.grid:
        return {}
    values = result.sweep.values
    if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in values):
        return {}
    slopes = {}
    for name, medians in sweep_medians(result).items():
        pairs = [(float(x), m) for x, m in zip(values, medians, strict=False) if m is not None]
        slopes[name] = loglog_slope([p[0] for p in pairs], [p[1] for p in pairs]) if len(pairs) >= 2 else None
    return slopes


def apart(result: RunResult) -> dict[str, bool]:
    """Whether each variant's compile at the sweep's first and last points is told apart: their 95 %
    intervals do not overlap (else a slope between them may be noise)."""
    found = {}
    for name in sweep_medians(result):
        ends = [p.variant(name) for p in (result.points[0], result.points[-1])] if result.points else []
        totals = [v.stages.total for v in ends if v is not None and v.ok and v.stages.total is not None]
        if len(totals) == 2:
            (lo_a, hi_a), (lo_b, hi_b) = totals[0].ci95_ms, totals[1].ci95_ms
            found[name] = hi_a < lo_b or hi_b < lo_a
    return found


def growth_sentence(parameter: str, slopes: dict[str, float | None], separated: dict[str, bool] | None = None) -> str:
    """``compile grows ∝ steps^1.0 for unrolled; flat for lax.scan, fori_loop``: a variant whose first and
    last points are not told apart (``separated``) reads as flat whatever its slope."""
    separated = separated or {}

    def grows_(name: str, s: float) -> bool:
        return abs(s) > FLAT and separated.get(name, True)

    grows = [f"∝ {parameter}^{s:.1f} for {name}" for name, s in slopes.items() if s is not None and grows_(name, s)]
    flat = [name for name, s in slopes.items() if s is not None and not grows_(name, s)]
    parts = []
    if grows:
        parts.append("compile grows " + ", ".join(grows))
    if flat:
        parts.append(("compile stays " if not grows else "") + "flat for " + ", ".join(flat))
    return "; ".join(parts)


# -- pay-off --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Payoff:
    """``slow_compile`` compiles ``extra_ms`` longer than ``fast_compile`` and saves ``saved_ns`` a call:
    it repays its compile after ``calls`` calls (95 % bootstrap interval ``lo``–``hi``; ``hi`` infinite
    where the saving is not told apart from none)."""

    slow_compile: str
    fast_compile: str
    extra_ms: float
    saved_ns: float
    calls: float
    lo: float
    hi: float

    def sentence(self) -> str:
        hi = "∞" if math.isinf(self.hi) else f"{self.hi:,.0f}"
        return (
            f"{self.slow_compile} compiles {format_ms(self.extra_ms)} longer than {self.fast_compile} and saves "
            f"{format_ns(self.saved_ns)} a call: it pays off after ≈ {self.calls:,.0f} calls (95 % CI "
            f"{self.lo:,.0f}–{hi})"
        )


def payoff_of(
    name_a: str,
    compile_a_ms: Sequence[float],
    call_a_ns: Sequence[float],
    name_b: str,
    compile_b_ms: Sequence[float],
    call_b_ns: Sequence[float],
    *,
    n_boot: int = 2000,
    seed: int = 0,
) -> Payoff | None:
    """Where one of the two compiles longer but calls faster: the calls after which its extra compile is
    repaid, (compile difference) / (per-call difference), of medians, with a bootstrap interval."""
    ca, cb = float(np.median(compile_a_ms)), float(np.median(compile_b_ms))
    ta, tb = float(np.median(call_a_ns)), float(np.median(call_b_ns))
    if ca > cb and ta < tb:
        slow, fast = (name_a, compile_a_ms, call_a_ns), (name_b, compile_b_ms, call_b_ns)
    elif cb > ca and tb < ta:
        slow, fast = (name_b, compile_b_ms, call_b_ns), (name_a, compile_a_ms, call_a_ns)
    else:
        return None
    rng = np.random.default_rng(seed)

    def boot(x: Sequence[float]) -> np.ndarray:
        return _boot_medians(np.asarray(x, dtype=float), n_boot, rng)

    extra = boot(slow[1]) - boot(fast[1])  # ms
    saved = boot(fast[2]) - boot(slow[2])  # ns
    with np.errstate(divide="ignore", invalid="ignore"):
        calls = np.where(saved > 0, extra * 1e6 / saved, np.inf)
    ordered = np.sort(calls)  # a draw with no saving is infinite: order statistics, not interpolation
    lo, hi = ordered[int(0.025 * n_boot)], ordered[min(n_boot - 1, math.ceil(0.975 * n_boot) - 1)]
    extra_ms = float(np.median(slow[1]) - np.median(fast[1]))
    saved_ns = float(np.median(fast[2]) - np.median(slow[2]))
    return Payoff(slow[0], fast[0], extra_ms, saved_ns, extra_ms * 1e6 / saved_ns, float(max(lo, 0.0)), float(hi))


def payoffs(result: RunResult) -> list[Payoff]:
    """Every pair of variants with both a compile and a call measurement where one compiles longer but
    calls faster."""
    both = [v for v in result.variants if _has_both(v)]
    found = []
    for i, a in enumerate(both):
        for b in both[i + 1 :]:
            assert a.stages.total is not None and b.stages.total is not None
            p = payoff_of(
                a.name,
                a.stages.total.samples_ms,
                a.sampling.samples_ns,
                b.name,
                b.stages.total.samples_ms,
                b.sampling.samples_ns,
            )
            if p is not None:
                found.append(p)
    return found


def _has_both(v: VariantResult) -> bool:
    return v.measured and v.stages.total is not None and bool(v.sampling.samples_ns)
