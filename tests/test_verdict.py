"""The verdict: one sentence per pair, from the evidence in the result only (pure, no JAX)."""

from __future__ import annotations

import os

import factories
import msgspec
import pytest

from tuiperf.common.units import how_much
from tuiperf.results import document
from tuiperf.results.model import Equivalence, Mismatch, Profile, ProfileRow, Program
from tuiperf.results.reconcile import reconcile
from tuiperf.results.verdict import gap_words, stage_cell, verdict

BASE = {"call": 10_000.0, "jit": 8_000.0, "flat_jit": 7_000.0, "flat_leaves": 6_500.0}
BASE |= {"noop_jit": 3_000.0, "noop_execute": 2_500.0}


def pair(slow_paths, slow_median, *, profile=(), recompiles=0, causes=(), breakdowns=True, equivalence=None):
    base = factories.variant(
        "base", samples=factories.steady(10_000.0), breakdown=factories.breakdown(BASE) if breakdowns else None
    )
    slow = factories.variant(
        "slow",
        samples=factories.steady(slow_median),
        breakdown=factories.breakdown(slow_paths) if breakdowns else None,
        profile=profile,
        recompiles=recompiles,
        recompile_causes=causes,
    )
    return document.run_result(factories.header(), [base, slow], duration_s=1.0, equivalence=equivalence)


def test_the_stage_that_explains_the_gap_is_named_with_its_share_the_top_function_and_the_remedy():
    rows = [ProfileRow(function="hashable_partition (equinox/_jit.py:40)", ncalls=1, cumtime_us=9, tottime_us=6)]
    result = pair({**BASE, "call": 40_000.0}, 40_000.0, profile=rows)  # 30 µs of framework
    sentence = verdict(result, "slow", "base")
    assert sentence == (
        "slow is 4× as slow as base: slow's framework (+30.0 µs) explains 100 % of the gap; the profile puts it "
        "in hashable_partition (equinox/_jit.py:40), Equinox module traversal (eqx.filter_jit partitions the "
        "module into arrays and static parts on every call): call jax.jit over arrays partitioned once outside "
        "the call (eqx.partition, or tuiperf.preflatten)."
    )


def test_a_faster_variant_is_explained_from_the_slower_side():
    result = pair({**BASE, "call": 40_000.0}, 40_000.0)
    assert verdict(result, "base", "slow").startswith("base is 4× as fast as slow: slow's framework (+30.0 µs)")


def test_without_both_breakdowns_or_a_stage_beyond_noise_the_evidence_names_no_cause():
    result = pair(BASE, 12_000.0, breakdowns=False)
    assert verdict(result, "slow", "base") == (
        "slow is 20.0 % slower than base: no breakdown of both, so the evidence names no cause."
    )
    same_stages = pair(BASE, 12_000.0)  # the medians differ, the stages do not
    assert "the evidence does not support a cause (no stage explains it beyond noise)" in verdict(
        same_stages, "slow", "base"
    )


def test_an_unfair_pair_and_a_recompiling_variant_get_no_stage_cause():
    unfair = Equivalence(
        reference="base",
        checked=["base", "slow"],
        mismatches=[Mismatch(a="slow", b="base", quantity="XLA FLOPs", detail="")],
    )
    result = pair({**BASE, "call": 40_000.0}, 40_000.0, equivalence=unfair)
    assert verdict(result, "slow", "base").endswith(
        "but slow does not compute the same thing as base (XLA FLOPs): no fair cause to give."
    )
    compiling = pair(
        {**BASE, "call": 40_000.0}, 40_000.0, recompiles=61, causes=["input path [0][1]: static value 1 → 2"]
    )
    assert "compiled 61 time(s) while it was timed" in verdict(compiling, "slow", "base")
    assert "(input path [0][1]: static value 1 → 2)" in verdict(compiling, "slow", "base")


@pytest.mark.parametrize(
    ("ratio", "words"),
    [
        (26.586, "26.6× as slow"),
        (1.2, "20.0 % slower"),
        (0.8, "20.0 % faster"),
        (0.25, "4× as fast"),
        (2210, "2,210× as slow"),
    ],
)
def test_ratios_read_as_words(ratio, words):
    assert how_much(ratio) == words


def test_a_stage_larger_than_the_gap_says_the_rest_is_noise():
    result = pair({**BASE, "call": 14_000.0, "jit": 10_000.0, "flat_jit": 7_500.0}, 12_000.0)
    slow, base = result.variant("slow"), result.variant("base")
    split = reconcile(slow, base)
    assert split is not None
    assert "framework +2.00 µs, 100 % of it" in gap_words(split)
    bigger = pair({**BASE, "call": 14_000.0, "jit": 12_000.0}, 12_000.0)  # jit dispatch +4 µs of a 2 µs gap
    split = reconcile(bigger.variant("slow"), bigger.variant("base"))
    assert "jit dispatch +4.00 µs (more than the whole gap: the other stages offset it, within noise)" in gap_words(
        split
    )


def test_a_stage_cell_says_below_resolution_and_by_construction():
    from tuiperf.results.model import Stage

    assert stage_cell(Stage(ns=120.0, resolution_ns=400.0)) == "< 400 ns"
    assert stage_cell(Stage(ns=0.0, by_construction=True)) == "none†"
    assert stage_cell(Stage(ns=1_500.0, resolution_ns=400.0)) == "1.50 µs"


def test_a_guard_note_on_the_pair_is_carried_by_the_sentence():
    note = "slow and base: same result, different programs (4× the XLA FLOPs: 64 FLOP vs 16 FLOP)"
    result = pair({**BASE, "call": 40_000.0}, 40_000.0, equivalence=Equivalence(reference="base", notes=[note]))
    assert verdict(result, "slow", "base").endswith(
        "; the guard notes same result, different programs (4× the XLA FLOPs: 64 FLOP vs 16 FLOP)."
    )


def test_a_stage_known_less_precisely_than_the_gap_never_explains_it():
    """A compute-bound pair on a loaded machine once read "compute (+11.4 µs) is more than the whole gap
    (+1.79 µs)", reliable: a stage whose interval is wider than the gap cannot explain it."""
    from tuiperf.results.reconcile import Reconciliation, StageDelta

    result = pair(BASE, 11_790.0)  # the steady-state gap: +1.79 µs
    stages = [
        StageDelta("compute", "compute", 11_400.0, (2_000.0, 20_000.0), 11_400.0 / 1_790.0),
        StageDelta("launch", "launch", -9_610.0, (-18_000.0, -1_000.0), -9_610.0 / 1_790.0),
    ]
    split = Reconciliation("slow", "base", 1_790.0, stages, 0.0, True)
    assert split.clear_stages() == []
    sentence = verdict(result, "slow", "base", split)
    assert "more than the whole gap" not in sentence and "explains" not in sentence.split("(", 1)[1]
    assert sentence.endswith(
        "the evidence does not support a cause (compute's interval (+2.00 µs to +20.0 µs) is wider than the gap "
        "(+1.79 µs), so no stage can explain it)."
    )
    assert "compute" not in gap_words(split).split(";")[0]


def _variant(name, median, **kwargs):
    return factories.variant(name, samples=factories.steady(median), **kwargs)


def test_donated_bytes_are_evidence_when_no_breakdown_names_a_cause():
    """ "donate-state is 4.08× as fast as no-donation: no breakdown of both, so the evidence names no cause"
    was said beside a memory table showing 6.1 MiB donated: the memory figures are evidence."""
    from tuiperf.results.model import ProgramMemory

    mib = 6.1 * 2**20
    kept = ProgramMemory(arguments=int(2 * mib), outputs=int(mib), temporaries=0, aliased=0, generated_code=0)
    donated = ProgramMemory(arguments=int(2 * mib), outputs=int(mib), temporaries=0, aliased=int(mib), generated_code=0)
    result = document.run_result(
        factories.header(),
        [
            _variant("no-donation", 408_000.0, program=Program(memory=kept)),
            _variant("donate-state", 100_000.0, program=Program(memory=donated)),
        ],
        duration_s=1.0,
    )
    sentence = verdict(result, "donate-state", "no-donation")
    assert "names no cause" not in sentence
    assert sentence.startswith("donate-state is 4.08× as fast as no-donation: no breakdown of both; the evidence")
    assert sentence.endswith(
        "the evidence that differs is the memory table (no-donation vs donate-state): donated (outputs written "
        "into the arguments' buffers) 0 B vs 6.1 MiB."
    )


def test_a_pair_equal_in_steady_state_says_what_a_mean_including_the_first_call_would_read():
    from tuiperf.results.model import CompileStagesMs

    cold = CompileStagesMs(trace=5.0, lower=3.0, compile=14.0, first_call=0.02)
    warm = CompileStagesMs(trace=0.1, lower=0.1, compile=0.08, first_call=0.02)
    result = document.run_result(
        factories.header(),
        [_variant("base", 10_000.0, stages=warm), _variant("slow", 10_000.0, stages=cold)],
        duration_s=1.0,
    )
    sentence = verdict(result, "slow", "base")
    assert sentence.startswith("slow and base take the same time within noise")
    # (22.02 ms + 99 × 10 µs) / 100 = 230.1 µs against (0.30 ms + 99 × 10 µs) / 100 = 12.9 µs
    assert sentence.endswith(
        "; a mean over 100 calls including the first would read 17.8× for slow against base "
        "(its first call: 22.0 ms, tracing and compiling included; both traced, lowered and compiled ahead, then "
        "called once)."
    )
    same = document.run_result(
        factories.header(),
        [_variant("base", 10_000.0, stages=warm), _variant("slow", 10_000.0, stages=warm)],
        duration_s=1.0,
    )
    assert verdict(same, "slow", "base").endswith("(ratio CI 1.000–1.000).") or "mean over" not in verdict(
        same, "slow", "base"
    )


def test_first_calls_are_compared_like_for_like_or_not_at_all():
    """Issue 52: "a mean over 100 calls including the first would read 6.04×" for two equal
    eqx.filter_jit steps: one's first call counted alone (it compiled again, after the ahead-of-time
    compile had warmed the compiler's caches), the other's as trace + lower + compile + first call."""
    from tuiperf.results.model import CompileStagesMs

    ahead = CompileStagesMs(trace=4.0, lower=2.0, compile=24.0, first_call=0.2)  # reused the AOT executable
    again = CompileStagesMs(trace=4.1, lower=2.0, compile=23.0, first_call=5.0)  # compiled again, caches warm
    note = "the first call compiled again: this wrapper does not reuse the AOT executable"
    no_aot = CompileStagesMs(first_call=0.3)  # a wrapper with no ahead-of-time API: the first call alone
    step_a = _variant("step-a", 10_000.0, stages=ahead)
    mixed = [step_a, _variant("step-b", 10_000.0, stages=again, notes=[note])]
    assert "mean over" not in verdict(
        document.run_result(factories.header(), mixed, duration_s=1.0), "step-b", "step-a"
    )
    unlike = [step_a, _variant("executable", 10_000.0, stages=no_aot)]
    result = document.run_result(factories.header(), unlike, duration_s=1.0)
    assert "mean over" not in verdict(result, "executable", "step-a")
    alike = [
        step_a,
        _variant("cold", 10_000.0, stages=CompileStagesMs(trace=40.0, lower=20.0, compile=240.0, first_call=0.2)),
    ]
    result = document.run_result(factories.header(), alike, duration_s=1.0)
    assert "a mean over 100 calls including the first would read" in verdict(result, "cold", "step-a")
    # Two equal eqx.filter_jit calls (tracing inside lower): the second compiled the same program from
    # the first's caches (341 ms and 0.04 ms measured): no sentence for one program compiled once.
    twin = Program(flops=2580.0)
    cold = CompileStagesMs(lower=60.0, compile=341.0, first_call=0.9)
    warm = CompileStagesMs(lower=0.4, compile=0.04, first_call=2.7)
    twins = [
        _variant("first", 10_000.0, stages=cold, program=twin),
        _variant("second", 10_000.0, stages=warm, program=twin),
    ]
    assert "mean over" not in verdict(document.run_result(factories.header(), twins, duration_s=1.0), "second", "first")


def test_a_jitted_steps_framework_stage_is_named_for_the_state_it_carries():
    """A plain jax.jit training step showed its carried state as "framework" with an Equinox remedy."""
    result = pair({**BASE, "call": 40_000.0}, 40_000.0)
    result.variants = [
        msgspec.structs.replace(v, breakdown=msgspec.structs.replace(v.breakdown, framework_holds="state carried"))
        for v in result.variants
        if v.breakdown is not None
    ]
    sentence = verdict(result, "slow", "base")
    assert sentence.startswith("slow is 4× as slow as base: slow's state carried (+30.0 µs) explains 100 % of the gap")
    assert "not Python" in sentence and "eqx.partition" not in sentence


def test_same_flops_is_said_only_when_the_transcendentals_agree_too():
    base = factories.variant(
        "base",
        samples=factories.steady(10_000.0),
        breakdown=factories.breakdown(BASE),
        program=Program(flops=8.0, transcendentals=8.0),
    )
    slow_paths = {**BASE, "call": 14_000.0, "jit": 12_000.0, "flat_jit": 11_000.0, "flat_leaves": 10_500.0}
    slow = factories.variant(
        "slow",
        samples=factories.steady(14_000.0),
        breakdown=factories.breakdown(slow_paths),
        program=Program(flops=8.0, transcendentals=16.0),
    )
    result = document.run_result(factories.header(), [base, slow], duration_s=1.0)
    sentence = verdict(result, "slow", "base")
    assert "same FLOPs" not in sentence.replace("XLA transcendental operations, same FLOPs", "")
    assert sentence.endswith("the program does other work (2× the XLA transcendental operations, same FLOPs).")


def test_without_a_reliable_split_the_profile_alone_may_name_the_machinery_and_says_so():
    rows = [
        ProfileRow(function="per_call (my/file.py:20)", ncalls=1, cumtime_us=3463, tottime_us=352),
        ProfileRow(function="apply_primitive (jax/_src/dispatch.py:81)", ncalls=2, cumtime_us=2777, tottime_us=40),
    ]
    base = factories.variant(
        "base", samples=factories.steady(10_000.0), breakdown=factories.breakdown(BASE, reliable=False)
    )
    slow = factories.variant(
        "slow",
        samples=factories.steady(300_000.0),
        breakdown=factories.breakdown({**BASE, "call": 300_000.0}, reliable=False),
        profile=rows,
    )
    result = document.run_result(factories.header(), [base, slow], duration_s=1.0)
    sentence = verdict(result, "slow", "base")
    assert sentence.startswith("slow is 30× as slow as base: the evidence does not support a cause (a breakdown")
    assert "slow's profile (alone: no stage split backs it) puts its time in apply_primitive" in sentence
    assert sentence.endswith("or compute them inside the jitted function.")
    same = document.run_result(
        factories.header(), [msgspec.structs.replace(base, profile=Profile(rows=rows)), slow], duration_s=1.0
    )
    assert "profile (alone" not in verdict(same, "slow", "base")  # both hold it: not why one is slower


def test_a_program_with_a_loop_is_not_said_to_do_other_work_from_its_flops():
    """XLA counts a while loop's body once: a 16-step scan read 66 FLOPs and its unrolled twin 1,024,
    and the verdict said the unrolled program 'does other work (15.5× the XLA FLOPs)' for the same
    computation. A program holding a loop has its FLOPs set aside, and the sentence says why."""
    base = factories.variant(
        "scan",
        samples=factories.steady(10_000.0),
        breakdown=factories.breakdown(BASE),
        program=Program(flops=66.0, transcendentals=64.0, loops=[16]),
    )
    slow_paths = {**BASE, "call": 14_000.0, "jit": 12_000.0, "flat_jit": 11_000.0, "flat_leaves": 10_500.0}
    slow = factories.variant(
        "unrolled",
        samples=factories.steady(14_000.0),
        breakdown=factories.breakdown(slow_paths),
        program=Program(flops=1024.0, transcendentals=1024.0, loops=[]),
    )
    result = document.run_result(factories.header(), [base, slow], duration_s=1.0)
    sentence = verdict(result, "unrolled", "scan")
    assert "other work (" not in sentence and "×" not in sentence.split("explains")[-1]
    assert sentence.endswith(
        "scan's program holds a 16-step loop, whose body XLA counts once, so the FLOPs do not tell whether it"
        " does other work."
    )


def test_a_recompiling_variant_does_not_set_the_breakdown_tables_unit():
    """A variant that compiled on every call (seconds a call, no split) made the CLI's table "s per
    call" and every other variant's stages a column of zeros."""
    from rich.console import Console

    from tuiperf.cli.report import breakdown
    from tuiperf.results.model import Breakdown

    stable = factories.variant("stable", samples=factories.steady(10_000.0), breakdown=factories.breakdown(BASE))
    recompiling = factories.variant(
        "recompiling",
        samples=factories.steady(2e9),
        breakdown=Breakdown(stages={}, call_ns=2e9, total_ns=2e9, residual_ns=0.0, compiles=30),
    )
    result = document.run_result(factories.header(), [stable, recompiling], duration_s=1.0)
    with open(os.devnull, "w") as nowhere:
        console = Console(width=160, record=True, file=nowhere)
        console.print(*breakdown(result, 160, console))
    table = console.export_text()
    assert "µs per call" in table
    stable_row = next(line for line in table.splitlines() if line.startswith("stable"))
    assert stable_row.split()[1:6] == ["2", "1.5", "2.5", "3.5", "0.5"], stable_row
