"""The verdict: one sentence per pair, from the evidence in the result only (pure, no JAX)."""

from __future__ import annotations

import factories
import pytest

from tuiperf.common.units import how_much
from tuiperf.results import document
from tuiperf.results.model import Equivalence, Mismatch, ProfileRow
from tuiperf.results.reconcile import reconcile
from tuiperf.results.verdict import gap_words, stage_cell, verdict

BASE = {"call": 10_000.0, "jit": 8_000.0, "flat_jit": 7_000.0, "flat_leaves": 6_500.0}
BASE |= {"noop_jit": 3_000.0, "noop_execute": 2_500.0}


def pair(slow_paths, slow_median, *, profile=(), recompiles=0, causes=(), breakdowns=True, equivalence=None):
    base = document.variant_result(
        "base", samples_ns=factories.steady(10_000.0), breakdown_ns=factories.breakdown(BASE) if breakdowns else None
    )
    slow = document.variant_result(
        "slow",
        samples_ns=factories.steady(slow_median),
        breakdown_ns=factories.breakdown(slow_paths) if breakdowns else None,
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
        "slow is 4× as slow as base: slow's framework (+30.0 µs) explains 100 % of the gap; the profile's top "
        "Python function is hashable_partition (equinox/_jit.py:40): call jax.jit over arrays partitioned once "
        "outside the call (eqx.partition, or tuiperf.preflatten)."
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
