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
from tuiperf.results.findings import comparison_finding
from tuiperf.results.model import (
    REPEATED_STAGES,
    ProfileRow,
    ProgramSize,
    RunResult,
    StageSeries,
    Sweep,
    VariantResult,
    loop_words,
)
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
        # The whole's own medians, as the pay-off takes them: the stages' medians do not add up to the
        # whole's, and their sum read "1.50 ms longer" beside the pay-off's "1.59 ms longer".
        whole = "total" in v.stages.repeated and "total" in base.stages.repeated
        total = _median(v, "total") - _median(base, "total") if whole else sum(gaps.values())
        if total == 0:
            continue
        held = sorted(gaps.items(), key=lambda kv: -abs(kv[1]))
        beyond = [(key, gap) for key, gap in held if _beyond_noise(v, base, key)]
        stages = ", ".join(
            f"{STAGE_WORDS[key]} {_signed_ms(gap)} ({gap / total:.0%})".replace("(-", "(−") for key, gap in beyond
        )
        if not beyond:
            stages = "no single stage's difference is beyond its 95 % interval"
        held = beyond or held
        longer = "longer" if total > 0 else "shorter"
        sentence = f"{v.name} compiles {format_ms(abs(total))} {longer} than {base.name} ({row.ratio:.3g}×): {stages}"
        evidence = [_program_words(v, base), size_words(v, base, row.ratio, held[0][0]), _trace_words(v, base)]
        said.append("; ".join([sentence, *[words for words in evidence if words]]))
    return said


SAME_SIZE = 1.1  # sizes within this factor of each other read as similar


def _sizes(size: ProgramSize | None, key: str) -> int | None:
    return None if size is None else getattr(size, key)


def size_words(v: VariantResult, base: VariantResult, compile_ratio: float, stage: str) -> str:
    """How the two programs' sizes compare, and whether that can explain their compile ratio: said as
    explaining it only where size and compile time move the same way. The size compared is the one the
    stage holding the gap works on: the jaxpr's equations for tracing, the HLO instructions (compiled,
    else lowered) for lowering and XLA's compile."""
    a, b = v.stages.size, base.stages.size
    if a is None or b is None:
        return ""
    hlo = next((key for key in ("compiled_instructions", "lowered_instructions") if _both(a, b, key)), None)
    jaxpr = "jaxpr_equations" if _both(a, b, "jaxpr_equations") else None
    key = (jaxpr or hlo) if stage == "trace" else (hlo or jaxpr)
    if key is None:
        return ""
    words = {"compiled_instructions": "HLO instructions", "lowered_instructions": "lowered HLO instructions"}
    words["jaxpr_equations"] = "jaxpr equations"
    counts = [f"{_sizes(a, k):,} vs {_sizes(b, k):,} {words[k]}" for k in (hlo, jaxpr) if k is not None]
    figures = "; ".join(counts)
    ratio = (_sizes(a, key) or 0) / (_sizes(b, key) or 1)
    if 1 / SAME_SIZE <= ratio <= SAME_SIZE:
        # Said of the size compared alone: "similar size (31 vs 34 HLO instructions; 24 vs 4 jaxpr
        # equations)" read as if 24 and 4 were similar.
        return (
            f"their programs are of similar size in {words[key]}, what {STAGE_WORDS[stage]} works on ({figures}): "
            "size names no cause of the gap"
        )
    has = f"{v.name}'s program has {ratio:.3g}× the {words[key]} of {base.name}'s ({figures})"
    if (ratio > 1) == (compile_ratio > 1):
        return f"{has}; its compile is {compile_ratio:.3g}× as long"
    return f"{has}, yet its compile is {compile_ratio:.3g}× as long: size names no cause of the gap"


def _both(a: ProgramSize, b: ProgramSize, key: str) -> bool:
    return bool(_sizes(a, key)) and bool(_sizes(b, key))


def _scenario_calls(v: VariantResult) -> dict[str, float]:
    """The scenario file's functions in the variant's trace profile, and their calls in one trace."""
    profile = v.stages.trace_profile
    rows = profile.rows if profile is not None else []
    return {row.function: row.ncalls for row in rows if row.kind == "scenario"}


def _trace_words(v: VariantResult, base: VariantResult) -> str:
    """A function of the scenario's file that one trace of ``v`` calls at least twice as often as one
    of ``base`` (the one called most): Python work repeated at trace time."""
    mine, theirs = _scenario_calls(v), _scenario_calls(base)
    more = [(n, f) for f, n in mine.items() if f in theirs and n >= 2 * max(theirs[f], 1)]
    if not more:
        return ""
    calls, function = max(more)
    return f"one trace of {v.name} calls {function} {calls:,.0f} times ({base.name}'s: {theirs[function]:,.0f})"


def size_rows(result: RunResult) -> list[list[str]]:
    """One row per variant whose program was counted: its jaxpr's equations (nested ones included; the
    outer jaxpr's own in parentheses where fewer), the lowered and the compiled module's HLO instructions,
    and the compiled program's while loops."""
    rows = []
    for v in result.variants:
        size = v.stages.size
        if not v.ok or size is None:
            continue
        jaxpr = "–" if size.jaxpr_equations is None else f"{size.jaxpr_equations:,}"
        if (
            size.jaxpr_outer is not None
            and size.jaxpr_equations is not None
            and size.jaxpr_outer != size.jaxpr_equations
        ):
            jaxpr += f" ({size.jaxpr_outer:,} outer)"
        loops = v.program.loops
        rows.append(
            [
                v.name,
                jaxpr,
                "–" if size.lowered_instructions is None else f"{size.lowered_instructions:,}",
                "–" if size.compiled_instructions is None else f"{size.compiled_instructions:,}",
                "–" if loops is None else (loop_words(loops) if loops else "none"),
            ]
        )
    return rows


TRACE_ROWS = 5  # a trace profile's rows the report shows by own time (the stored ones are more)


def trace_profile_rows(result: RunResult, top: int = TRACE_ROWS) -> list[tuple[str, ProfileRow]]:
    """Each profiled variant's top functions of one trace by own time, then its scenario file's functions."""
    found = []
    for v in result.variants:
        profile = v.stages.trace_profile
        if not v.ok or profile is None:
            continue
        python = [row for row in profile.rows if row.kind != "scenario"][:top]
        scenario = sorted((row for row in profile.rows if row.kind == "scenario"), key=lambda row: -row.cumtime_us)
        found += [(v.name, row) for row in [*python, *scenario]]
    return found


def trace_profile_note(result: RunResult) -> str:
    """How to read the trace profiles: made after the repeats, the median of a few traces, slowed by the profiler."""
    profiles = [(v.name, v.stages.trace_profile) for v in result.variants if v.ok and v.stages.trace_profile]
    if not profiles:
        return ""
    each = ", ".join(
        f"{name} {p.traces} trace{'s' * (p.traces != 1)}"
        + ("" if p.profiled_ms is None else f" of {format_ms(p.profiled_ms)}")
        for name, p in profiles
    )
    line = (
        "under cProfile, JAX's caches cleared first, after the timed repeats; a function's figures are one "
        f"trace's, the median over the traces profiled ({each}); the profiler slows every Python call, so read "
        "names, calls and shares"
    )
    return "; ".join([line, *(p.note for _, p in profiles if p.note)])


def _beyond_noise(v: VariantResult, base: VariantResult, key: str) -> bool:
    """Whether a stage's repeated times differ between the two beyond noise: the bootstrap 95 % interval
    of the difference of their medians leaves out zero. A stage repeated in neither (or in one) is not."""
    a, b = v.stages.repeated.get(key), base.stages.repeated.get(key)
    if a is None or b is None or not a.samples_ms or not b.samples_ms:
        return False
    _, lo, hi = difference_ci(a.samples_ms, b.samples_ms)
    return lo > 0 or hi < 0


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
                lines.append(f"{head}: {cache.hits} hit{read}{saved}{jax_saved(cache.saved_s, cache.read_s)}")
            else:
                lines.append(f"{head}: no hit — {cache.note}")
    return lines


def jax_saved(saved_s: float | None, read_s: float | None) -> str:
    """JAX's own figure beside tuiperf's. JAX stores an entry's compile time in whole seconds
    (``int(compile_time_secs)`` in ``jax/_src/compiler.py``), so a compile under a second is kept as 0
    and its saving reads as minus the read time: said, not shown bare as a negative saving."""
    if saved_s is None:
        return ""
    if read_s is not None and saved_s <= 0 and math.isclose(saved_s, -read_s, rel_tol=0.05, abs_tol=1e-4):
        return (
            f" (JAX's compile_time_saved_sec reads {saved_s:.3g} s: JAX keeps an entry's compile time in whole "
            "seconds, so a compile under 1 s is kept as 0 and its saving as minus the read)"
        )
    return f" (JAX's compile_time_saved_sec: {saved_s:.3g} s)"


# -- sweeps ---------------------------------------------------------------------------------------------
def sweep_medians(result: RunResult) -> dict[str, list[float | None]]:
    """Each variant's total compile median (ms) at every point of a sweep (None: not repeated there)."""
    return dict(result.sweep.compile_ms) if result.sweep is not None else {}


def sweep_slopes(result: RunResult) -> dict[str, float | None]:
    """The log-log slope of each variant's compile median against the swept value (None: not numeric)."""
    return compile_slopes(result.sweep) if result.sweep is not None else {}


def compile_slopes(sweep: Sweep) -> dict[str, float | None]:
    """:func:`sweep_slopes` of a sweep (empty for a grid, or where the swept values are not numbers)."""
    if sweep.grid:
        return {}
    values = sweep.values
    if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in values):
        return {}
    slopes = {}
    for name, medians in sweep.compile_ms.items():
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


# -- remedies, where the evidence names them -------------------------------------------------------------
LOOP_REMEDY = (
    "lax.scan or lax.fori_loop traces the body once and keeps the program's size constant in the steps "
    "(a suggestion from this evidence, not tried here)"
)


def remedies(result: RunResult) -> list[str]:
    """At one point: a variant with no loop whose one trace calls a function of the scenario's file as
    many times as another variant's while loop runs it (and whose compile is longer beyond the interval):
    a Python loop unrolled at trace time. Nothing where the evidence does not say so."""
    ok = [v for v in result.variants if v.ok and v.stages.total is not None]
    said = []
    for v in ok:
        if v.program.loops != []:  # a loop of its own, or not read
            continue
        for w in ok:
            words = _unrolled_against(v, w)
            if words:
                said.append(words)
                break
    return said


def _unrolled_against(v: VariantResult, w: VariantResult) -> str:
    trips = [n for n in w.program.loops or [] if n]
    if w is v or not trips or v.stages.total is None or w.stages.total is None:
        return ""
    ratio, lo, _ = ratio_ci(v.stages.total.samples_ms, w.stages.total.samples_ms)
    if lo <= 1:
        return ""
    mine, theirs = _scenario_calls(v), _scenario_calls(w)
    for function, calls in sorted(mine.items(), key=lambda kv: -kv[1]):
        once = theirs.get(function)
        if once is None or once < 1 or calls < 2 * once or not any(calls == n * once for n in trips):
            continue
        steps = round(calls / once)
        size = ""
        a, b = v.stages.size, w.stages.size
        if a is not None and b is not None and a.compiled_instructions and b.compiled_instructions:
            size = f", {a.compiled_instructions:,} HLO instructions against {b.compiled_instructions:,}"
        return (
            f"{v.name} looks like a Python loop unrolled at trace time: it compiles {ratio:.3g}× as long as "
            f"{w.name}, one trace of it calls {function} {calls:,.0f} times where {w.name}'s {steps}-step "
            f"while loop traces it {_times(once)}, and its program holds no loop{size}. {LOOP_REMEDY}"
        )
    return ""


def _times(n: float) -> str:
    return "once" if n == 1 else f"{n:,.0f} times"


def sweep_sizes(result: RunResult) -> dict[str, list[int | None]]:
    """Each variant's compiled HLO instructions at every point of a sweep (None: not counted there)."""
    if result.sweep is None or not result.points:
        return {}
    names = list(dict.fromkeys(v.name for point in result.points for v in point.variants))
    found: dict[str, list[int | None]] = {}
    for name in names:
        sizes = [_point_size(point.variant(name)) for point in result.points]
        if any(n is not None for n in sizes):
            found[name] = sizes
    return found


def _point_size(v: VariantResult | None) -> int | None:
    if v is None or not v.ok or v.stages.size is None:
        return None
    return v.stages.size.compiled_instructions


def size_slopes(result: RunResult) -> dict[str, float | None]:
    """The log-log slope of each variant's compiled HLO instructions against the swept value."""
    if result.sweep is None or result.sweep.grid or not _numeric(result.sweep.values):
        return {}
    found = {}
    for name, sizes in sweep_sizes(result).items():
        pairs = [(float(x), float(n)) for x, n in zip(result.sweep.values, sizes, strict=False) if n]
        found[name] = loglog_slope([p[0] for p in pairs], [p[1] for p in pairs]) if len(pairs) >= 2 else None
    return found


def slope_text(slope: float | None, none: str = "–") -> str:
    """A log-log slope to two decimals; one that rounds to zero as 0.00 (not -0.00)."""
    if slope is None:
        return none
    return "0.00" if round(slope, 2) == 0 else f"{slope:.2f}"


def _numeric(values: Sequence[object]) -> bool:
    return all(isinstance(x, int | float) and not isinstance(x, bool) for x in values)


def sweep_remedies(result: RunResult) -> list[str]:
    """Over a sweep: a variant whose program holds no loop and grows with the swept value, and whose
    compile grows too, beside one whose program holds a while loop at every point and stays the same
    size: an unrolled Python loop, and the remedy the other variant shows. Nothing otherwise."""
    sweep = result.sweep
    slopes, compile_slopes, separated = size_slopes(result), sweep_slopes(result), apart(result)
    if sweep is None or not slopes:
        return []
    sizes = sweep_sizes(result)

    def loops_everywhere(name: str) -> bool | None:
        """True: a loop at every point; False: none at any; None: mixed or not read."""
        found = [v.program.loops for p in result.points if (v := p.variant(name)) is not None and v.ok]
        if found and all(loops for loops in found):
            return True
        return False if found and all(loops == [] for loops in found) else None

    flat = [
        n
        for n, slope in slopes.items()
        if slope is not None and abs(slope) <= FLAT and loops_everywhere(n) and None not in sizes[n]
    ]
    said = []
    for name, slope in slopes.items():
        grows = slope is not None and slope > FLAT and loops_everywhere(name) is False
        compile_slope = compile_slopes.get(name)
        if not grows or not flat or compile_slope is None or compile_slope <= FLAT or not separated.get(name, True):
            continue
        counted = [n for n in sizes[name] if n is not None]
        kept = "; ".join(f"{other} {_span(sizes[other])} instructions at every point" for other in flat)
        said.append(
            f"{name}'s program holds no loop and grows with {sweep.parameter} (HLO instructions {counted[0]:,} → "
            f"{counted[-1]:,}, ∝ {sweep.parameter}^{slope:.1f}; its compile ∝ {sweep.parameter}^{compile_slope:.1f}), "
            f"while each with a while loop stays the same size (measured here: {kept}): an unrolled Python loop. "
            + LOOP_REMEDY
        )
    return said


def _span(sizes: Sequence[int | None]) -> str:
    counted = [n for n in sizes if n is not None]
    low, high = min(counted), max(counted)
    return f"{low:,}" if low == high else f"{low:,}–{high:,}"


# -- pay-off --------------------------------------------------------------------------------------------
def difference_ci(
    a: Sequence[float], b: Sequence[float], *, n_boot: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """median(a) − median(b) with a percentile-bootstrap 95 % interval (each median resampled on its
    own, as :func:`ratio_ci` does for a ratio): (difference, lo, hi)."""
    rng = np.random.default_rng(seed)
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    boots = _boot_medians(x, n_boot, rng) - _boot_medians(y, n_boot, rng)
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return float(np.median(x) - np.median(y)), float(lo), float(hi)


def calls_interval(extra_ms: tuple[float, float], saved_ns: tuple[float, float]) -> tuple[float, float] | None:
    """The interval of calls = Δcompile / Δcall from the two differences' intervals, by interval
    division: the fewest calls are the smallest compile difference over the largest saving, the most the
    largest over the smallest. None where either interval reaches zero or below: then no count is
    bounded (a saving that may be none repays nothing; a compile that may be no longer needs no repaying).
    Where both 95 % intervals hold their true differences (at least 90 % of the time, as each misses at
    most 5 %), this interval holds the true count."""
    (extra_lo, extra_hi), (saved_lo, saved_hi) = extra_ms, saved_ns
    if extra_lo <= 0 or saved_lo <= 0:
        return None
    return extra_lo * 1e6 / saved_hi, extra_hi * 1e6 / saved_lo


@dataclass(frozen=True)
class Payoff:
    """``slow_compile`` compiles ``extra_ms`` longer than ``fast_compile`` (95 % interval
    ``extra_lo``–``extra_hi``) and saves ``saved_ns`` a call (``saved_lo``–``saved_hi``): it repays its
    compile after ``calls`` calls, between ``lo`` and ``hi`` (:func:`calls_interval`); both None where
    the pay-off is undecided: either difference's interval reaches zero."""

    slow_compile: str
    fast_compile: str
    extra_ms: float
    saved_ns: float
    calls: float
    extra_lo: float
    extra_hi: float
    saved_lo: float
    saved_hi: float
    lo: float | None
    hi: float | None

    @property
    def decided(self) -> bool:
        return self.lo is not None and self.hi is not None

    def sentence(self) -> str:
        head = (
            f"{self.slow_compile} compiles {format_ms(self.extra_ms)} longer than {self.fast_compile} "
            f"[95 % CI {_signed_ms(self.extra_lo)} to {_signed_ms(self.extra_hi)}] and saves "
            f"{format_ns(self.saved_ns)} a call [{_signed_ns(self.saved_lo)} to {_signed_ns(self.saved_hi)}]"
        )
        if self.lo is None or self.hi is None:
            why = [
                "the per-call saving's interval includes no saving (0 ns or less)" if self.saved_lo <= 0 else "",
                "the compile difference's interval includes no difference (0 ms or less)" if self.extra_lo <= 0 else "",
            ]
            return f"{head}: undecided — {' and '.join(w for w in why if w)}, so no count of calls is said"
        return (
            f"{head}: it pays off after ≈ {self.calls:,.0f} calls ({self.lo:,.0f}–{self.hi:,.0f}: the compile "
            "difference's interval over the saving's)"
        )


def _signed_ms(ms: float) -> str:
    """``+4.12 ms``, ``−13.2 s`` (``:+.3g`` read ``+1.32e+04 ms`` for a 13.2 s compile)."""
    return _signed_ns(ms * 1e6)


def _signed_ns(ns: float) -> str:
    return "0 ns" if ns == 0 else ("−" if ns < 0 else "+") + format_ns(abs(ns))


def payoff_of(
    name_a: str,
    compile_a_ms: Sequence[float],
    call_a_ns: Sequence[float],
    name_b: str,
    compile_b_ms: Sequence[float],
    call_b_ns: Sequence[float],
    *,
    call_ratio_ci: tuple[float, float] | None = None,
    n_boot: int = 2000,
    seed: int = 0,
) -> Payoff | None:
    """Where one of the two compiles longer but calls faster (by their medians): the calls after which
    its extra compile is repaid, (compile difference) / (per-call difference) of medians, its interval
    from the two differences' intervals (:func:`calls_interval`). Each difference's interval is a
    bootstrap of the medians; ``call_ratio_ci``, the run's own 95 % interval of median(call a) /
    median(call b) (the report's, process-to-process spread included where calibrated), replaces the
    saving's bootstrap where given: saved = t × (1 − ratio), t the slower call's median, over the
    interval of the faster call's ratio to it, so the pay-off never decides a saving the report calls
    noise."""
    ca, cb = float(np.median(compile_a_ms)), float(np.median(compile_b_ms))
    ta, tb = float(np.median(call_a_ns)), float(np.median(call_b_ns))
    if ca > cb and ta < tb:
        slow, fast = (name_a, compile_a_ms, call_a_ns), (name_b, compile_b_ms, call_b_ns)
    elif cb > ca and tb < ta:
        slow, fast = (name_b, compile_b_ms, call_b_ns), (name_a, compile_a_ms, call_a_ns)
    else:
        return None
    extra, extra_lo, extra_hi = difference_ci(slow[1], fast[1], n_boot=n_boot, seed=seed)
    saved, saved_lo, saved_hi = difference_ci(fast[2], slow[2], n_boot=n_boot, seed=seed + 1)
    if call_ratio_ci is not None and min(call_ratio_ci) > 0:
        # the longer compile calls faster: its call over the other's, from median(call a) / median(call b)
        lo_ab, hi_ab = call_ratio_ci
        low, high = (lo_ab, hi_ab) if slow[0] == name_a else (1 / hi_ab, 1 / lo_ab)
        slower_call = float(np.median(fast[2]))
        saved_lo, saved_hi = slower_call * (1 - high), slower_call * (1 - low)
    bounds = calls_interval((extra_lo, extra_hi), (saved_lo, saved_hi))
    lo, hi = bounds if bounds is not None else (None, None)
    return Payoff(slow[0], fast[0], extra, saved, extra * 1e6 / saved, extra_lo, extra_hi, saved_lo, saved_hi, lo, hi)


def payoffs(result: RunResult) -> list[Payoff]:
    """Every pair of variants with both a compile and a call measurement where one compiles longer but
    calls faster, each gap beyond noise: a pair whose per-call ratio is not a finding (its interval holds
    1) or whose compile ratio's interval holds 1 has no pay-off to count (it read "pays off after ≈ 753,860
    calls (95 % CI 0–∞)" for two loops 9 ns apart, ratio 1.00× [0.998–1.01])."""
    rows = {(row.a, row.b): row for row in result.comparisons}
    both = [v for v in result.variants if _has_both(v)]
    found = []
    for i, a in enumerate(both):
        for b in both[i + 1 :]:
            assert a.stages.total is not None and b.stages.total is not None
            row = rows.get((a.name, b.name)) or rows.get((b.name, a.name))
            if row is None or not comparison_finding(result, row):
                continue
            _, lo, hi = ratio_ci(a.stages.total.samples_ms, b.stages.total.samples_ms)
            if lo <= 1.0 <= hi:
                continue
            p = payoff_of(
                a.name,
                a.stages.total.samples_ms,
                a.sampling.samples_ns,
                b.name,
                b.stages.total.samples_ms,
                b.sampling.samples_ns,
                call_ratio_ci=_call_ratio_ci(result, a.name, b.name),
            )
            if p is not None:
                found.append(p)
    return found


def _call_ratio_ci(result: RunResult, a: str, b: str) -> tuple[float, float] | None:
    """The run's 95 % interval of median(call a) / median(call b), as its comparisons hold it (None: none)."""
    for c in result.comparisons:
        if (c.a, c.b) == (a, b):
            return c.ci95
        if (c.a, c.b) == (b, a) and min(c.ci95) > 0:
            return 1 / c.ci95[1], 1 / c.ci95[0]
    return None


def _has_both(v: VariantResult) -> bool:
    return v.measured and v.stages.total is not None and bool(v.sampling.samples_ns)
