"""Compile time measured like a call (``--measure compile``): repeats give an interval, a persistent-cache
hit is seen with its saved seconds, a sweep holds every point's compile figures in the report, the JSON,
the CSV and the Markdown, and a longer compile's pay-off is counted in calls."""

from __future__ import annotations

import io
import json

import msgspec
import pytest
from rich.console import Console

import tests.factories as factories
from tuiperf.cli.report import render
from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.results import compile_time as ct
from tuiperf.results import document
from tuiperf.results.export import markdown, samples_csv
from tuiperf.results.model import CompileStagesMs, PersistentCache, RunResult, StageSeries
from tuiperf.results.resultfile import encode


def series(median: float, n: int = 12, spread: float = 0.02) -> StageSeries:
    values = [median * (1 + spread * ((i % 5) - 2) / 2) for i in range(n)]
    return StageSeries(samples_ms=values, median_ms=median, ci95_ms=(min(values), max(values)))


def repeated(total: float, first_call: float = 0.3) -> CompileStagesMs:
    return CompileStagesMs(
        trace=1.0,
        lower=2.0,
        compile=total - 3.0,
        first_call=first_call,
        repeated={
            "total": series(total),
            "trace": series(1.0),
            "lower": series(2.0),
            "compile": series(total - 3.0),
            "first_call": series(first_call),
        },
        rounds=12,
        stopped="the budget ended",
        process_first_ms=40.0,
        tiny_ms=20.0,
        cache=[
            PersistentCache(cold_ms=total + 10, warm_ms=total + 9, note="nothing written: it compiled in 0.04 s"),
            PersistentCache(cold_ms=total + 10, warm_ms=12.0, hits=1, misses=1, read_s=0.002, thresholds_zero=True),
        ],
    )


def with_stages(result: RunResult, totals: dict[str, float]) -> RunResult:
    variants = [msgspec.structs.replace(v, stages=repeated(totals[v.name])) for v in result.variants]
    return msgspec.structs.replace(result, variants=variants)


def fast_and_slow() -> RunResult:
    """fast (10 ns a call, 90 ms to compile) against slow (20 ns, 30 ms): a compile that pays off."""
    return with_stages(
        factories.result({"fast": factories.steady(10.0), "slow": factories.steady(20.0)}), {"fast": 90.0, "slow": 30.0}
    )


def compile_sweep() -> RunResult:
    """A sweep over steps where 'unrolled' compiles ∝ steps and 'scan' stays flat."""
    values = [8, 32, 128]
    base = factories.sweep({"scan": [10.0, 10.0, 10.0], "unrolled": [10.0, 12.0, 20.0]}, "steps", values)
    points = [with_stages(point, {"scan": 30.0, "unrolled": 5.0 * steps}) for point, steps in zip(base.points, values)]
    header = factories.header(params={"size": 1, "steps": 8})
    return document.sweep_result("steps", values, points, header, duration_s=3.0)


def shown(result: RunResult, width: int = 200) -> str:
    console = Console(file=io.StringIO(), width=width, highlight=False)
    console.print(render(result, width, console))
    return console.file.getvalue()  # type: ignore[attr-defined]


# -- pure: the figures ----------------------------------------------------------------------------------
def test_a_sweep_shows_every_points_compile_in_the_report_with_its_slope():
    result = compile_sweep()
    assert ct.sweep_medians(result) == {"scan": [30.0, 30.0, 30.0], "unrolled": [40.0, 160.0, 640.0]}
    slopes = ct.sweep_slopes(result)
    assert slopes["unrolled"] == pytest.approx(1.0) and slopes["scan"] == pytest.approx(0.0)
    text = shown(result)
    assert "sweep over steps: compile (trace+lower+compile), median of repeats" in text
    line = next(line for line in text.splitlines() if line.startswith("unrolled") and "640" in line)
    assert "40.0 ms" in line and "160 ms" in line and "640 ms" in line and "1.00" in line
    assert "compile grows ∝ steps^1.0 for unrolled; flat for scan" in text


def test_a_slope_between_points_not_told_apart_reads_flat():
    values = [8, 32, 128]
    base = factories.sweep({"scan": [10.0, 10.0, 10.0]}, "steps", values)
    noisy = [
        msgspec.structs.replace(
            point,
            variants=[
                msgspec.structs.replace(v, stages=CompileStagesMs(repeated={"total": series(m, spread=0.8)}))
                for v in point.variants
            ],
        )
        for point, m in zip(base.points, [30.0, 40.0, 50.0])
    ]
    result = document.sweep_result("steps", values, noisy, factories.header(params={"steps": 8}), duration_s=1.0)
    assert ct.sweep_slopes(result)["scan"] > 0.15  # a slope, but the ends' intervals overlap
    assert ct.apart(result) == {"scan": False}
    assert ct.growth_sentence("steps", ct.sweep_slopes(result), ct.apart(result)) == "compile stays flat for scan"


def test_a_sweep_holds_every_points_compile_figures_in_json_csv_and_markdown():
    result = compile_sweep()
    doc = json.loads(encode(result))
    totals = [[v["stages"]["repeated"]["total"]["median_ms"] for v in p["variants"]] for p in doc["points"]]
    assert totals == [[30.0, 40.0], [30.0, 160.0], [30.0, 640.0]]
    rows = samples_csv(result).splitlines()
    assert rows[0].endswith(",quantity")
    compiled = [r.split(",") for r in rows if r.endswith(",compile:total")]
    assert len(compiled) == 3 * 2 * 12  # every point, every variant, every repeat
    assert {(r[1], r[2]) for r in compiled} == {(str(s), n) for s in (8, 32, 128) for n in ("scan", "unrolled")}
    assert any(r[1] == "128" and r[2] == "unrolled" and float(r[4]) == pytest.approx(640e6) for r in compiled)
    md = markdown(result)
    assert "### Compile time over `steps`" in md
    assert "| 128 | 30.0 ms [29.4 ms–30.6 ms] | 640 ms [627 ms–653 ms] |" in md
    assert "| log-log slope | 0.00 | 1.00 |" in md
    assert md.count("#### Compile time, repeated with caches cleared") == 3
    assert "_Median [95% CI]. The process's own first-compile costs" in md  # it read "]. the process's"


def test_a_run_without_repeats_keeps_its_csv_as_it_was():
    result = factories.result({"a": factories.steady(10.0, n=3)})
    assert samples_csv(result).splitlines()[0] == "run,point,variant,sample,ns,loops_per_sample"
    assert "compile time, repeated" not in shown(result)


def test_the_report_gives_each_stage_an_interval_ratios_and_the_cache():
    result = with_stages(
        factories.result({"scan": factories.steady(10.0), "unrolled": factories.steady(20.0)}),
        {"scan": 30.0, "unrolled": 90.0},
    )
    text = shown(result)
    assert "unrolled  90.0 ms [88.2 ms–91.8 ms]" in text
    assert "unrolled 3.00× [" in text
    assert "scan (both thresholds at 0): cold 40.0 ms, warm 12.0 ms: 1 hit, read in 2.00 ms; warm saves 28.0 ms" in text
    assert "no hit — nothing written: it compiled in 0.04 s" in text
    assert "compiling a tiny unrelated function: 40.0 ms" in text


def test_the_pay_off_of_a_longer_compile_on_a_synthetic_pair():
    # 'jit' compiles 2,000 ms longer and saves 100 µs a call: 20,000 calls repay it.
    found = ct.payoff_of(
        "eager",
        [10.0 + 0.1 * (i % 7) for i in range(30)],
        [200_000.0 + 50 * (i % 9) for i in range(300)],
        "jit",
        [2010.0 + 0.1 * (i % 7) for i in range(30)],
        [100_000.0 + 50 * (i % 9) for i in range(300)],
    )
    assert found is not None
    assert (found.slow_compile, found.fast_compile) == ("jit", "eager")
    assert found.extra_ms == pytest.approx(2000.0) and found.saved_ns == pytest.approx(100_000.0)
    assert found.calls == pytest.approx(20_000.0)
    assert found.lo <= 20_000.0 <= found.hi and found.hi - found.lo < 200  # the spread is tiny here
    assert "pays off after ≈ 20,000 calls" in found.sentence()
    # the count's interval is the compile difference's interval over the saving's, by interval division
    assert found.lo == pytest.approx(found.extra_lo * 1e6 / found.saved_hi)
    assert found.hi == pytest.approx(found.extra_hi * 1e6 / found.saved_lo)


def test_the_pay_off_interval_on_a_pair_with_a_known_answer():
    # Constant samples: every bootstrap median is the sample itself, so each difference's interval is the
    # difference alone: 2,000 ms over 100 µs, 20,000 calls, between 20,000 and 20,000.
    found = ct.payoff_of("eager", [10.0] * 9, [200_000.0] * 50, "jit", [2010.0] * 9, [100_000.0] * 50)
    assert found is not None and found.decided
    assert (found.extra_lo, found.extra_hi, found.saved_lo, found.saved_hi) == (2000.0, 2000.0, 100_000.0, 100_000.0)
    assert (found.lo, found.hi) == (pytest.approx(20_000.0), pytest.approx(20_000.0))
    # interval division: 1–3 ms longer, 50–200 ns saved a call: 1e6/200 = 5,000 to 3e6/50 = 60,000 calls
    assert ct.calls_interval((1.0, 3.0), (50.0, 200.0)) == (pytest.approx(5_000.0), pytest.approx(60_000.0))
    assert ct.calls_interval((1.0, 3.0), (-5.0, 200.0)) is None  # the saving may be none: no bound
    assert ct.calls_interval((0.0, 3.0), (50.0, 200.0)) is None  # the compile may be no longer


def test_the_pay_off_takes_the_saving_interval_from_the_runs_own_call_ratio():
    # The run's interval of median(call jit) / median(call eager) is 0.45–0.55 (process spread included):
    # saved = 200 µs × (1 − ratio) lies in 90–110 µs, and 2,000 ms over it in 18,182–22,222 calls.
    calls = {"eager": [200_000.0] * 50, "jit": [100_000.0] * 50}
    found = ct.payoff_of(
        "jit", [2010.0] * 9, calls["jit"], "eager", [10.0] * 9, calls["eager"], call_ratio_ci=(0.45, 0.55)
    )
    assert found is not None and (found.saved_lo, found.saved_hi) == (pytest.approx(90_000.0), pytest.approx(110_000.0))
    assert (found.lo, found.hi) == (pytest.approx(2e9 / 110_000), pytest.approx(2e9 / 90_000))
    # the same given the other way round (eager / jit: 1/0.55–1/0.45)
    again = ct.payoff_of(
        "eager", [10.0] * 9, calls["eager"], "jit", [2010.0] * 9, calls["jit"], call_ratio_ci=(1 / 0.55, 1 / 0.45)
    )
    assert again is not None and (again.lo, again.hi) == (pytest.approx(found.lo), pytest.approx(found.hi))
    # a ratio the report calls noise (0.9–1.1) leaves it undecided, however tight the samples' bootstrap
    noise = ct.payoff_of(
        "jit", [2010.0] * 9, calls["jit"], "eager", [10.0] * 9, calls["eager"], call_ratio_ci=(0.9, 1.1)
    )
    assert noise is not None and not noise.decided


def test_a_saving_whose_interval_holds_zero_leaves_the_pay_off_undecided():
    # 'a' compiles 90 ms longer and its median call is 39 ns faster, but its calls straddle 'b''s: the
    # saving's interval holds zero, so no count of calls is said (it read "≈ 2,307,692 calls (0–∞)").
    a_calls = [961.0, 1100.0, 900.0, 1000.0] * 25
    b_calls = [1000.0, 1100.0, 900.0, 1039.0] * 25
    found = ct.payoff_of("a", [100.0] * 20, a_calls, "b", [10.0] * 20, b_calls)
    assert found is not None and not found.decided
    assert found.saved_ns == pytest.approx(39.0) and found.saved_lo <= 0 < found.saved_hi
    text = found.sentence()
    assert "undecided — the per-call saving's interval includes no saving (0 ns or less), so" in text
    assert "pays off after" not in text and "∞" not in text


def test_a_compile_difference_whose_interval_holds_zero_leaves_the_pay_off_undecided():
    slow = [5.0, 30.0, 12.0, 8.0, 25.0, 10.0, 20.0]
    fast = [6.0, 28.0, 9.0, 11.0, 24.0, 9.5, 19.0]
    found = ct.payoff_of("a", slow, [900.0] * 50, "b", fast, [1000.0] * 50)
    assert found is not None and not found.decided and found.extra_lo <= 0 < found.extra_hi
    assert "undecided — the compile difference's interval includes no difference (0 ms or less), so" in found.sentence()


def test_pay_off_needs_both_a_compile_and_a_call_measurement():
    result = fast_and_slow()
    (found,) = ct.payoffs(result)
    assert (found.slow_compile, found.fast_compile) == ("fast", "slow")
    no_call = msgspec.structs.replace(
        result.variants[1], sampling=msgspec.structs.replace(result.variants[1].sampling, samples_ns=[], stats=None)
    )
    assert ct.payoffs(msgspec.structs.replace(result, variants=[result.variants[0], no_call])) == []


def test_no_pay_off_for_a_call_gap_inside_noise():
    # Two loops 9 ns apart whose call ratio's interval holds 1 (1.00× [0.998–1.01]) read "lax.scan compiles
    # 6.78 ms longer than fori_loop and saves 9.00 ns a call: it pays off after ≈ 753,860 calls (95 % CI 0–∞)".
    result = with_stages(
        factories.result({"scan": factories.steady(5450.0), "fori": factories.steady(5451.0)}),
        {"scan": 60.0, "fori": 30.0},
    )
    (row,) = result.comparisons
    assert row.ci95[0] <= 1.0 <= row.ci95[1]
    assert ct.payoffs(result) == []
    assert "pays off" not in shown(result)


def test_no_pay_off_for_a_compile_gap_inside_noise():
    # A call gap beyond noise but compiles whose ratio interval holds 1 (1.08× [0.737–1.67]) count no pay-off.
    result = factories.result({"scan": factories.steady(20.0), "unrolled": factories.steady(10.0)})
    spread = {"scan": [40.0, 80.0, 55.0, 70.0, 45.0, 62.0], "unrolled": [44.0, 85.0, 58.0, 66.0, 50.0, 75.0]}
    variants = [
        msgspec.structs.replace(
            v,
            stages=msgspec.structs.replace(
                repeated(60.0),
                repeated={
                    **repeated(60.0).repeated,
                    "total": StageSeries(samples_ms=spread[v.name], median_ms=60.0, ci95_ms=(40.0, 85.0)),
                },
            ),
        )
        for v in result.variants
    ]
    assert ct.payoffs(msgspec.structs.replace(result, variants=variants)) == []


def test_a_loop_count_said_with_a_vowel_takes_an():
    from tuiperf.results.model import loop_words

    # the report read "lax.scan's program holds a 8-step loop" at steps=8
    assert [loop_words([n]) for n in (8, 11, 18, 16, 80, 800, 8000, 11000, 110, 1100)] == [
        "an 8-step loop",
        "an 11-step loop",
        "an 18-step loop",
        "a 16-step loop",
        "an 80-step loop",
        "an 800-step loop",
        "an 8000-step loop",
        "an 11000-step loop",
        "a 110-step loop",
        "a 1100-step loop",
    ]
    assert loop_words([None]) == "a loop"


def test_jaxs_negative_saved_seconds_are_explained():
    # JAX stores a cache entry's compile time as int(seconds) (jax/_src/compiler.py), so a 36 ms compile's
    # hit records compile_time_saved_sec = 0 − the read time: "warm saves 31.0 ms (JAX's
    # compile_time_saved_sec: -0.00537 s)" read as a contradiction.
    result = with_stages(factories.result({"scan": factories.steady(10.0)}), {"scan": 30.0})
    stages = result.variants[0].stages
    hit = msgspec.structs.replace(stages.cache[1], saved_s=-0.00537, read_s=0.00537)
    variant = msgspec.structs.replace(
        result.variants[0], stages=msgspec.structs.replace(stages, cache=[stages.cache[0], hit])
    )
    (_, line) = ct.cache_lines(msgspec.structs.replace(result, variants=[variant]))
    assert line.endswith(
        "warm saves 28.0 ms (JAX's compile_time_saved_sec reads -0.00537 s: JAX keeps an entry's compile time in "
        "whole seconds, so a compile under 1 s is kept as 0 and its saving as minus the read)"
    )
    positive = msgspec.structs.replace(hit, saved_s=1.5)
    variant = msgspec.structs.replace(variant, stages=msgspec.structs.replace(stages, cache=[positive]))
    (line,) = ct.cache_lines(msgspec.structs.replace(result, variants=[variant]))
    assert line.endswith("(JAX's compile_time_saved_sec: 1.5 s)")


def test_the_apps_breakdown_gives_the_repeated_compile_medians_with_intervals():
    # The app showed a --measure compile run's one-time stages only: one sample each, no interval, no ratio.
    from tuiperf.tui.widgets.breakdown import detail_text

    result = with_stages(
        factories.result({"scan": factories.steady(10.0), "unrolled": factories.steady(20.0)}),
        {"scan": 30.0, "unrolled": 90.0},
    )
    wide = detail_text(result, 200).plain
    assert "compile time, repeated with caches cleared: median [95 % CI]" in wide
    assert "unrolled  90.0 ms [88.2 ms–91.8 ms]" in wide
    assert "trace+lower+compile against scan [95 % CI]: unrolled 3.00× [" in wide
    narrow = detail_text(result, 80).plain.splitlines()
    assert max(len(line) for line in narrow) <= 80
    assert any(line.startswith("  trace+lower+compile 90.0 ms [88.2 ms–91.8 ms]") for line in narrow)
    assert "repeated with caches cleared" not in detail_text(factories.result({"a": [1.0] * 5}), 200).plain


def test_the_markdown_gives_the_cache_and_the_pay_off_under_titles_of_their_own():
    # They ran on, as one list, from the program size table: "- lax.scan: cold 66.5 ms, warm 67.5 ms: no hit"
    result = fast_and_slow()
    md = markdown(result).splitlines()
    cache = md.index("Persistent compilation cache, private folder, cold then warm:")
    assert md[cache + 1] == "" and md[cache + 2].startswith("- fast: cold 100 ms, warm 99.0 ms: no hit")
    paid = md.index("Does the longer compile pay off?")
    assert paid > cache and md[paid + 2].startswith("- fast compiles 59.7 ms longer than slow \\[95 % CI +58.7 ms")


def test_the_html_page_gives_the_compile_ratios_the_cache_and_the_pay_off_as_the_markdown_does():
    # The page had the stages' table and a plot only: no ratio against the baseline, no cache, no pay-off.
    from tuiperf.common.units import ratio_with_interval
    from tuiperf.results.html_page import page

    result = fast_and_slow()
    text = page(result)
    assert "<th>against fast</th>" in text and "<td>baseline</td>" in text
    base, (ratio,) = ct.ratios(result)
    # as the report gives it, and the Markdown: it read "0.333× [0.329 – 0.337]" (Markdown "(0.329 – 0.337)")
    assert base == "fast" and f"<td>{ratio_with_interval(ratio.ratio, ratio.lo, ratio.hi)}</td>" in text
    assert f"`slow` {ratio_with_interval(ratio.ratio, ratio.lo, ratio.hi)}" in markdown(result)
    assert "call. The process&#x27;s own first-compile costs were paid" in text  # it read "call. the process's"
    cache = text.index("<h3>Persistent compilation cache, private folder, cold then warm</h3>")
    assert text.index("<li>fast: cold 100 ms, warm 99.0 ms: no hit", cache) > cache
    paid = text.index("<h3>Does the longer compile pay off?</h3>")
    assert text.index("<li>fast compiles 59.7 ms longer than slow [95 % CI +58.7 ms", paid) > paid


# -- in this process: real compiles --------------------------------------------------------------------
def test_repeats_of_a_real_compile_give_an_interval():
    import jax
    import jax.numpy as jnp

    from tuiperf.measuring.compile_time import MIN_ROUNDS, Subject, repeat_compiles

    subject = Subject("sin", jax.jit(jnp.sin), (jnp.ones(4),))
    rounds, why = repeat_compiles([subject], budget_s=0.0)  # the budget ends at once: MIN_ROUNDS is not waited for
    assert rounds == 3 and why == "the budget ended"
    for _ in range(3):  # 10 to 12 repeats in all
        rounds += repeat_compiles([subject], budget_s=0.0)[0]
    found = subject.series()
    assert set(found) == {"trace", "lower", "compile", "first_call", "total"}
    total = found["total"]
    assert len(total.samples_ms) == rounds >= MIN_ROUNDS  # the last call may stop at 10: settled
    lo, hi = total.ci95_ms
    assert 0 < lo <= total.median_ms <= hi
    # every repeat compiled for real: none is a cache hit's few microseconds
    assert min(found["compile"].samples_ms) > 0.05


def test_a_function_with_static_arguments_is_repeated_without_its_first_call():
    import jax
    import jax.numpy as jnp

    from tuiperf.measuring.compile_time import Subject, repeat_compiles

    subject = Subject("scaled", jax.jit(lambda x, n: x * n, static_argnums=1), (jnp.ones(3), 2))
    rounds, _ = repeat_compiles([subject], budget_s=0.0)
    assert rounds == 3 and set(subject.series()) == {"trace", "lower", "compile", "total"}


def test_a_persistent_cache_hit_is_seen_as_a_hit_with_its_saved_seconds():
    import jax
    import jax.numpy as jnp

    from tuiperf.measuring.compile_time import Subject, persistent_cache

    subject = Subject("sin", jax.jit(lambda x: jnp.sin(x) * 2), (jnp.ones(4),))
    default = persistent_cache(subject)  # JAX's own thresholds: a program this small is never written
    assert default.hits == 0 and default.entries == 0
    assert "under jax_persistent_cache_min_compile_time_secs (1 s)" in default.note
    found = persistent_cache(subject, thresholds_zero=True)
    assert found.misses == 1 and found.entries >= 1 and found.hits == 1 and found.note == ""
    assert found.saved_s is not None and found.read_s is not None and found.read_s > 0
    assert jax.config.jax_compilation_cache_dir is None  # the private folder is gone again
    # JAX keeps the entry's compile time in whole seconds: this one's (well under 1 s) is 0, and JAX's
    # "saved" is minus the read, which the report explains rather than shows bare.
    assert found.saved_s == pytest.approx(-found.read_s, rel=0.05, abs=1e-4)
    assert "kept as 0 and its saving as minus the read" in ct.jax_saved(found.saved_s, found.read_s)


def test_a_saving_jax_recorded_is_shown_as_jax_gave_it():
    assert ct.jax_saved(2.5, 0.01) == " (JAX's compile_time_saved_sec: 2.5 s)"
    assert ct.jax_saved(None, 0.01) == ""


def test_no_hit_is_said_of_the_backend_compile_that_jax_weighs_not_of_trace_lower_and_compile():
    # JAX writes an entry when XLA's compile alone took its minimum (jax/_src/compiler.py); a slow trace
    # and a quick compile read "trace, lower and compile took 0.0665 s, under …" or, above the minimum,
    # "its entry may be under jax_persistent_cache_min_entry_size_bytes", a size it never looked at.
    import time

    import jax
    import jax.numpy as jnp

    from tuiperf.measuring.compile_time import Subject, persistent_cache

    def slow_to_trace(x):
        time.sleep(0.4)  # at trace time: in no compile JAX weighs
        return jnp.cos(x) * 3

    subject = Subject("slow trace", jax.jit(slow_to_trace), (jnp.ones(4),))
    before = jax.config.jax_persistent_cache_min_compile_time_secs
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.3)
    try:
        found = persistent_cache(subject)
    finally:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", before)
    assert found.cold_ms > 400 and found.entries == 0 and found.hits == 0
    assert found.note.startswith("nothing written: XLA's backend compile took ")
    assert found.note.endswith(", under jax_persistent_cache_min_compile_time_secs (0.3 s)")


# -- a run in a measuring process -----------------------------------------------------------------------
@pytest.mark.slow
def test_measure_compile_repeats_every_variant_at_every_point_of_a_sweep(runner):
    request = RunRequest(
        scenario="loop-compile",
        params={"size": "4"},
        variants=["lax.scan", "unrolled"],
        settings=RunSettings(samples=5, profile=False, budget_s=0.01, measure="compile"),
    )
    request.sweep = ("steps", ["2", "4"])  # at 1 step XLA removes the scan's loop
    result = runner.run(request)
    assert result.options.measure == "compile"
    for point in result.points:
        for v in point.variants:
            assert v.ok and v.stages.rounds >= 3 and v.stages.total is not None
            assert len(v.stages.total.samples_ms) == v.stages.rounds
            assert v.stages.cache and v.stages.process_first_ms is not None
    assert set(ct.sweep_medians(result)) == {"lax.scan", "unrolled"}
    assert all(m is not None for ms in ct.sweep_medians(result).values() for m in ms)
    # the why: each program's size, counted (the unrolled jaxpr: sin, mul and add per step), and its trace profiled
    sizes = {p.params["steps"]: {v.name: v.stages.size for v in p.variants} for p in result.points}
    assert [sizes[steps]["unrolled"].jaxpr_equations for steps in (2, 4)] == [6, 12]
    assert [(sizes[steps]["lax.scan"].jaxpr_equations, sizes[steps]["lax.scan"].jaxpr_outer) for steps in (2, 4)] == [
        (4, 1),
        (4, 1),
    ]
    scan = ct.sweep_sizes(result)["lax.scan"]
    assert scan[0] == scan[1] and ct.sweep_sizes(result)["unrolled"][1] > ct.sweep_sizes(result)["unrolled"][0]
    unrolled = result.points[1].variant("unrolled")
    assert unrolled is not None and unrolled.stages.trace_profile is not None
    assert {r.function: r.ncalls for r in unrolled.stages.trace_profile.rows if r.kind == "scenario"}[
        "step (loop_compile.py:32)"
    ] == 4


@pytest.mark.slow
def test_a_compile_repeat_past_the_timeout_fails_that_variant_there_and_the_rest_is_measured(fixture_dir):
    from pathlib import Path

    from tuiperf.processes.runner import ProcessRunner

    folder = str(Path(fixture_dir).parent / "compile_hang")
    request = RunRequest(
        scenario="compile-hang",
        scenario_dirs=[folder],
        settings=RunSettings(samples=5, profile=False, budget_s=0.01, measure="compile", timeout_s=3.0),
    )
    request.sweep = ("size", ["2", "3"])
    runner = ProcessRunner([folder])
    try:
        result = runner.run(request)
    finally:
        runner.close()
    small, large = result.points
    assert all(v.ok and v.stages.total is not None for v in small.variants)
    ok, hangs = large.variants
    assert ok.ok and ok.stages.total is not None
    assert hangs.status == "failed" and hangs.failure is not None
    assert hangs.failure.error == "did not finish within --timeout 3 s at size=3 (raise it with --timeout)"


def test_a_cluster_run_does_not_repeat_compiles():
    from tuiperf.common.errors import ParamError
    from tuiperf.contract.options import check_combination

    check_combination(RunSettings(measure="compile"))
    with pytest.raises(ParamError, match="--measure compile repeats each compile"):
        check_combination(RunSettings(cluster=2, measure="compile"))


def test_compare_gives_compile_time_new_over_old_with_an_interval(tmp_path, capsys):
    """`tuiperf compare OLD NEW` of two `--measure compile` runs: a compile-time regression between them
    (jax#21067-like: the same program compiling 2.5x as long after an upgrade) has its own table."""
    from tuiperf.cli import main
    from tuiperf.results.compare import compare_runs

    def run(unrolled_ms: float) -> RunResult:
        result = factories.result({"scan": factories.steady(10.0), "unrolled": factories.steady(12.0)}, scenario="s")
        return with_stages(result, {"scan": 30.0, "unrolled": unrolled_ms})

    old, new = run(40.0), run(100.0)
    rows = {c.variant: c for c in compare_runs(old, new).compile_rows}
    assert rows["unrolled"].ratio == pytest.approx(2.5) and rows["unrolled"].ci95[0] > 2.3
    assert rows["scan"].ci95[0] <= 1 <= rows["scan"].ci95[1]
    paths = []
    for name, result in (("old", old), ("new", new)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_bytes(encode(result))
    assert main(["compare", *map(str, paths), "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert "s: compile time (trace + lower + compile, repeated), new / old median" in out
    assert out.splitlines()[
        out.splitlines().index("s: compile time (trace + lower + compile, repeated), new / old median") + 1
    ].split() == ["variant", "old", "new", "new/old", "95%", "CI", "verdict"]
    line = next(row for row in out.splitlines() if row.strip().startswith("unrolled") and "ms" in row)
    assert "40.0 ms" in line and "100 ms" in line and "2.500" in line and "undecided (one process each)" in line
    assert (
        compare_runs(
            factories.result({"a": factories.steady(1.0)}), factories.result({"a": factories.steady(1.0)})
        ).compile_rows
        == []
    )


def test_a_run_over_two_environments_says_each_variants_compile_time_against_the_reference():
    """`--env old --env new --measure compile`: a compile-time regression between versions."""
    from tuiperf.results.environments import qualified
    from tuiperf.results.model import EnvironmentRun

    variants = []
    for env, unrolled_ms in (("old", 40.0), ("new", 100.0)):
        for name, ms in (("scan", 30.0), ("unrolled", unrolled_ms)):
            v = factories.variant(qualified(name, env), samples=factories.steady(10.0))
            variants.append(msgspec.structs.replace(v, environment=env, stages=repeated(ms)))
    result = document.run_result(factories.header(), variants, duration_s=1.0)
    result.environments = [EnvironmentRun(name="old", python="/py"), EnvironmentRun(name="new", python="/py")]
    text = shown(result).replace("\n", " ")
    assert "• unrolled compile (trace+lower+compile) in new: 100 ms against 40.0 ms, 2.500×" in text
    assert "undecided: one process each" in text
    assert (
        "• scan compile (trace+lower+compile) in new: 30.0 ms against 30.0 ms, 1.000×" in text
        and "within noise" in text
    )


def scan_and_unrolled(totals: dict[str, float]) -> RunResult:
    """scan (10 ns a call) and unrolled (12 ns), compiled in ``totals`` ms each, repeated."""
    return with_stages(factories.result({"scan": factories.steady(10.0), "unrolled": factories.steady(12.0)}), totals)


def with_repeated_stage(result: RunResult, stage: str, repeats: StageSeries) -> RunResult:
    """``result`` with its second variant's ``stage`` repeats replaced."""
    first, second = result.variants
    repeated = {**second.stages.repeated, stage: repeats}
    second = msgspec.structs.replace(second, stages=msgspec.structs.replace(second.stages, repeated=repeated))
    return msgspec.structs.replace(result, variants=[first, second])


def test_the_why_of_a_compile_gap_names_the_stage_that_holds_it_and_the_loop():
    from tuiperf.results.model import Program

    result = scan_and_unrolled({"scan": 30.0, "unrolled": 160.0})
    scan = msgspec.structs.replace(result.variants[0], program=Program(loops=[32]))
    result = msgspec.structs.replace(result, variants=[scan, result.variants[1]])
    [said] = ct.gap_sentences(result, "scan")
    assert said.startswith("unrolled compiles 130 ms longer than scan (5.33×): XLA's backend compile +130 ms (100%)")
    assert "scan's program holds a 32-step loop, unrolled's none" in said
    assert "· unrolled compiles 130 ms longer" in shown(result)
    assert ct.gap_sentences(with_stages(result, {"scan": 30.0, "unrolled": 30.0}), "scan") == []  # in noise


def test_the_gap_sentence_leaves_out_stages_whose_difference_is_within_noise():
    # lowering 0.04 ms longer, inside its repeats' ±20 % spread; tracing the same: neither is named
    noisy = with_repeated_stage(scan_and_unrolled({"scan": 30.0, "unrolled": 160.0}), "lower", series(2.04, spread=0.2))
    [said] = ct.gap_sentences(noisy, "scan")
    assert said.startswith("unrolled compiles 130 ms longer than scan (5.33×): XLA's backend compile +130 ms (100%)")
    assert "tracing" not in said and "lowering" not in said and "+0 ms" not in said


def test_a_gap_held_by_no_single_stage_says_so():
    # every stage the same within noise (compile 0.5 ms longer, ±30 % spread); only the total differs
    same = with_repeated_stage(
        scan_and_unrolled({"scan": 30.0, "unrolled": 160.0}), "compile", series(27.5, spread=0.3)
    )
    [said] = ct.gap_sentences(same, "scan")
    assert "no single stage's difference is beyond its 95 % interval" in said


def test_compile_gaps_of_seconds_read_in_seconds(tmp_path, capsys):
    # The issue's own case, unrolled 13.3 s against scan 148 ms, read "unrolled compiles 1.32e+04 ms longer
    # than scan (89.9×): XLA's backend compile +1.32e+04 ms", and compare's table "1.33e+04 ms".
    from tuiperf.cli import main

    def run(unrolled_ms: float) -> RunResult:
        result = factories.result({"scan": factories.steady(10.0), "unrolled": factories.steady(12.0)}, scenario="s")
        return with_stages(result, {"scan": 148.0, "unrolled": unrolled_ms})

    [said] = ct.gap_sentences(run(13_300.0), "scan")
    assert said.startswith("unrolled compiles 13.2 s longer than scan (89.9×): XLA's backend compile +13.2 s (100%)")
    assert "e+0" not in said
    paths = []
    for name, result in (("old", run(13_300.0)), ("new", run(6_000.0))):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_bytes(encode(result))
    assert main(["compare", *map(str, paths), "--width", "200"]) == 0
    out = capsys.readouterr().out
    line = next(row for row in out.splitlines() if row.strip().startswith("unrolled") and " s " in row)
    assert "13.3 s" in line and "6.00 s" in line and "e+0" not in out


def test_a_grids_markdown_names_each_cell_of_its_program_size_table():
    # The Markdown export of `--sweep steps=4,8 --sweep size=8,16` labelled the program size rows by steps
    # alone ("4, 4, 8, 8") under a log-log slope row of "—".
    from tuiperf.results.model import ProgramSize

    base = factories.grid({"scan": [10.0] * 4, "unrolled": [12.0] * 4}, ("steps", (8, 32)), ("size", (4, 64)))
    points = []
    for p in base.points:
        p = with_stages(p, {"scan": 30.0, "unrolled": 5.0 * p.params["steps"]})
        variants = [
            msgspec.structs.replace(
                v,
                stages=msgspec.structs.replace(
                    v.stages, size=ProgramSize(compiled_instructions=34 if v.name == "scan" else 4 * p.params["steps"])
                ),
            )
            for v in p.variants
        ]
        points.append(msgspec.structs.replace(p, variants=variants))
    header = factories.header(params={"steps": 8, "size": 4})
    result = document.sweep_result("steps", [8, 32], points, header, duration_s=4.0, columns=("size", [4, 64]))
    md = markdown(result)
    table = md.split("Compiled program size, HLO instructions:")[1].split("\n\n")[1].splitlines()
    assert table[0] == "| cell | `scan` | `unrolled` |"
    assert table[2:] == [
        "| `steps=8, size=4` | 34 | 32 |",
        "| `steps=8, size=64` | 34 | 32 |",
        "| `steps=32, size=4` | 34 | 128 |",
        "| `steps=32, size=64` | 34 | 128 |",
    ]


def test_a_grid_shows_every_cells_compile_median():
    base = factories.grid({"scan": [10.0] * 4, "unrolled": [12.0] * 4}, ("steps", (8, 32)), ("size", (4, 64)))
    points = [with_stages(p, {"scan": 30.0, "unrolled": 5.0 * p.params["steps"]}) for p in base.points]
    header = factories.header(params={"steps": 8, "size": 4})
    result = document.sweep_result("steps", [8, 32], points, header, duration_s=4.0, columns=("size", [4, 64]))
    text = shown(result)
    assert "grid over steps × size (4 cells): compile (trace+lower+compile), median of repeats" in text
    row = next(line for line in text.splitlines() if line.strip().startswith("unrolled") and "ms" in line)
    assert row.split()[1:] == ["40.0", "ms", "40.0", "ms", "160", "ms", "160", "ms"]


def test_a_compile_run_leads_with_its_compile_time_and_a_call_run_has_none():
    """`--measure compile` asked for compile time: the report gave the per-call table first and the
    compile table after the spread and one-time stages, 30 lines down at 100 columns."""
    compiled = shown(scan_and_unrolled({"scan": 30.0, "unrolled": 60.0}))
    assert compiled.index("compile time, repeated with caches cleared") < compiled.index("per-call latency")
    calls = shown(factories.result({"scan": factories.steady(10.0)}))
    assert "compile time, repeated" not in calls and "per-call latency" in calls


def test_compile_repeats_of_several_processes_are_pooled_not_the_first_processes_alone():
    # `--processes 3 --measure compile` kept the first process's repeats and dropped the others'.
    from tuiperf.processes.repeat import combine

    runs = [
        scan_and_unrolled(totals) for totals in ({"scan": 30.0, "unrolled": 60.0}, {"scan": 34.0, "unrolled": 70.0})
    ]
    combined = combine(runs, 2)
    unrolled = combined.variant("unrolled")
    assert unrolled is not None and unrolled.stages.total is not None
    one = runs[0].variant("unrolled").stages.total.samples_ms  # type: ignore[union-attr]
    assert len(unrolled.stages.total.samples_ms) == 2 * len(one)
    assert unrolled.stages.rounds == 24
    # 12 repeats around 60 ms (58.8–61.2) and 12 around 70 ms (68.6–71.4): the pooled median between them
    assert unrolled.stages.total.median_ms == pytest.approx((61.2 + 68.6) / 2)
    lo, hi = unrolled.stages.total.ci95_ms
    assert 58.8 <= lo < hi <= 71.4


def test_a_flat_variants_slope_reads_0_00_not_minus_0_00_in_the_report_and_the_app():
    """static-leaves-partition --sweep n_static=10,100,1000: flat-dict's medians 6.79, 6.79, 6.78 µs read
    "log-log slope -0.00" in the report (and "slope -0.00" in the app's Sweep legend)."""
    from tuiperf.tui.widgets.sweep_plot import legend_rows

    result = factories.sweep({"flat-dict": [6790.0, 6790.0, 6780.0]}, "n_static", (10, 100, 1000))
    assert result.sweep is not None and -0.005 < result.sweep.slopes["flat-dict"] < 0
    row = next(line for line in shown(result).splitlines() if line.startswith("flat-dict"))
    assert row.split()[-1] == "0.00"
    [legend] = legend_rows(result.sweep, ["flat-dict"])
    assert legend[1].plain == "slope 0.00"
