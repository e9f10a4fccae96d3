"""Which stages explain a gap between two variants: the arithmetic, the paired CIs, the filter."""

from __future__ import annotations

import factories
import pytest
from factories import breakdown

from tuiperf.results.model import STAGE_PATHS
from tuiperf.results.reconcile import RESAMPLES, Reconciliation, StageDelta, reconcile, stage_values

PATHS = sorted({p for combo in STAGE_PATHS.values() for p in combo})


BASE = {"call": 10_000.0, "jit": 8_000.0, "flat_jit": 7_000.0, "flat_leaves": 6_500.0, "noop_jit": 3_000.0}
BASE["noop_execute"] = 2_500.0


def variant(name, median, bd):
    return factories.variant(name, samples=[median] * 31, breakdown=bd)


def test_stage_values_follow_the_documented_path_differences():
    values = stage_values(BASE)
    assert values == {
        "framework": 2_000.0,
        "jit_dispatch": 1_000.0 + 500.0,
        "launch": 2_500.0,
        "compute": 3_500.0,
        "outputs": 500.0,
    }
    assert sum(values.values()) == BASE["call"]  # the stages add up to the call


def test_the_gap_its_sign_and_what_is_left_unexplained():
    slow = {**BASE, "call": 13_000.0, "jit": 11_000.0}  # 3 µs more jit dispatch
    gap = reconcile(variant("slow", 13_500.0, breakdown(slow)), variant("base", 10_000.0, breakdown(BASE)))
    assert gap is not None and gap.gap_ns == 3_500.0  # variant minus baseline
    by_key = {s.key: s for s in gap.stages}
    assert by_key["jit_dispatch"].delta_ns == 3_000.0 and by_key["framework"].delta_ns == 0.0
    assert gap.unexplained_ns == 500.0 and gap.explained_share == pytest.approx(3_000 / 3_500)
    assert by_key["jit_dispatch"].share == pytest.approx(3_000 / 3_500)
    back = reconcile(variant("base", 10_000.0, breakdown(BASE)), variant("slow", 13_500.0, breakdown(slow)))
    assert back.gap_ns == -3_500.0 and {s.key: s for s in back.stages}["jit_dispatch"].delta_ns == -3_000.0


def test_reliable_only_when_both_breakdowns_are():
    good, bad = breakdown(BASE), breakdown(BASE, reliable=False)
    assert reconcile(variant("a", 1.0, good), variant("b", 1.0, good)).reliable
    assert not reconcile(variant("a", 1.0, bad), variant("b", 1.0, good)).reliable
    assert not reconcile(variant("a", 1.0, good), variant("b", 1.0, bad)).reliable
    assert reconcile(variant("a", 1.0, None), variant("b", 1.0, good)) is None
    assert reconcile(variant("a", 1.0, good), variant("b", 1.0, None)) is None


def test_no_gap_has_no_shares():
    gap = reconcile(variant("a", 10_000.0, breakdown(BASE)), variant("b", 10_000.0, breakdown(BASE)))
    assert gap.gap_ns == 0 and gap.explained_share is None and all(s.share is None for s in gap.stages)


def groups_of(paths: dict[str, float], noise: list[float]) -> dict[str, list[float]]:
    return {p: [value + n for n in noise] for p, value in paths.items()}


def test_a_constant_paired_difference_has_a_zero_width_interval():
    noise = [0.0, 40.0, -25.0, 90.0, 10.0, -60.0, 5.0, 30.0]  # the same drift hits both variants
    slow = {**BASE, "call": 13_000.0, "jit": 11_000.0}
    a = breakdown(slow, groups_of(slow, noise))
    b = breakdown(BASE, groups_of(BASE, noise))
    gap = reconcile(variant("slow", 13_000.0, a), variant("base", 10_000.0, b))
    by_key = {s.key: s for s in gap.stages}
    assert by_key["jit_dispatch"].ci95_ns == (3_000.0, 3_000.0) and by_key["compute"].ci95_ns == (0.0, 0.0)


def test_an_interval_spans_the_resampled_differences():
    slow = {**BASE, "call": 13_000.0, "jit": 11_000.0}
    a_groups = groups_of(slow, [0.0] * 10)
    a_groups["jit"] = [11_000.0 + 100.0 * i for i in range(10)]  # jit alone varies, in a only
    gap = reconcile(
        variant("slow", 13_000.0, breakdown(slow, a_groups)),
        variant("b", 10_000.0, breakdown(BASE, groups_of(BASE, [0.0] * 10))),
    )
    lo, hi = {s.key: s for s in gap.stages}["jit_dispatch"].ci95_ns
    assert 3_000.0 <= lo < hi <= 3_900.0 and hi - lo >= 200.0
    assert RESAMPLES >= 200


def test_groups_from_two_different_runs_give_no_intervals():
    a = breakdown(BASE, groups_of(BASE, [0.0] * 5))
    b = breakdown(BASE, groups_of(BASE, [0.0] * 6))  # not the same rounds
    assert all(s.ci95_ns is None for s in reconcile(variant("a", 1.0, a), variant("b", 1.0, b)).stages)
    empty = breakdown(BASE, {p: [] for p in PATHS})
    assert all(s.ci95_ns is None for s in reconcile(variant("a", 1.0, empty), variant("b", 1.0, empty)).stages)


def test_clear_stages_are_nonzero_big_enough_and_sure_of_their_sign():
    def delta(key, ns, ci):
        return StageDelta(key, key, ns, ci, None)

    found = Reconciliation(
        "a",
        "b",
        gap_ns=10_000.0,
        stages=[
            delta("zero", 0.0, None),
            delta("tiny", 150.0, (100.0, 200.0)),  # 1.5 % of the gap
            delta("unsure", 5_000.0, (-10.0, 9_000.0)),  # the CI straddles zero
            delta("up", 5_000.0, (4_000.0, 6_000.0)),
            delta("down", -300.0, (-400.0, -250.0)),  # 3 %: named, negative
            delta("no-ci", 2_000.0, None),
            delta("edge", 200.0, (150.0, 250.0)),  # exactly 2 %
        ],
        unexplained_ns=0.0,
        reliable=True,
    )
    assert [s.key for s in found.clear_stages()] == ["up", "down", "no-ci", "edge"]
    negative_gap = Reconciliation("a", "b", -10_000.0, [delta("down", -300.0, (-400.0, -250.0))], 0.0, True)
    assert [s.key for s in negative_gap.clear_stages()] == ["down"]
    touching = Reconciliation("a", "b", 10_000.0, [delta("zero-end", 500.0, (0.0, 900.0))], 0.0, True)
    assert touching.clear_stages() == []  # a CI that reaches zero is not sure of its sign


def test_a_stage_one_breakdown_lacks_counts_as_zero_on_that_side():
    full = breakdown(BASE)
    partial = breakdown(BASE)
    partial.stages.pop("outputs")  # e.g. a call whose outputs were not measured apart
    one = reconcile(variant("a", 10_000.0, partial), variant("b", 10_000.0, full))
    other = reconcile(variant("a", 10_000.0, full), variant("b", 10_000.0, partial))
    assert {s.key: s.delta_ns for s in one.stages}["outputs"] == -500.0
    assert {s.key: s.delta_ns for s in other.stages}["outputs"] == 500.0


def test_a_cache_resamples_each_variant_once_and_changes_no_figure(monkeypatch):
    """GIVEN every pair of three variants reconciled both ways WHEN a cache is kept THEN each variant is
    resampled once (one seeded generator each), not once per pair, and every interval is as without it
    (the Statistics and Breakdown tabs' explanations of a 10-variant run took 0.25-0.5 s of the UI
    process's GIL per baseline; 2.9 s for all ten baselines, 0.2 s with the cache)."""
    import itertools
    import random

    from tuiperf.results import reconcile as module

    made = []

    class Counted(random.Random):
        def __init__(self, seed):  # type: ignore[no-untyped-def]
            made.append(seed)
            super().__init__(seed)

    monkeypatch.setattr(module.random, "Random", Counted)
    noise = [37.0 * ((i * 7) % 10) for i in range(10)]
    variants = [
        variant(name, median, breakdown(paths, groups_of(paths, noise[i:] + noise[:i])))
        for i, (name, median, paths) in enumerate(
            [
                ("base", 10_000.0, BASE),
                ("slow", 13_500.0, {**BASE, "call": 13_000.0, "jit": 11_000.0}),
                ("flat", 11_000.0, {**BASE, "call": 11_000.0, "flat_leaves": 7_400.0}),
            ]
        )
    ]
    pairs = list(itertools.permutations(variants, 2))
    alone = [reconcile(a, b) for a, b in pairs]
    assert len(made) == len(pairs) * 2  # each pair resamples both of its variants
    made.clear()
    cache: dict = {}
    shared = [reconcile(a, b, cache) for a, b in pairs]
    assert len(made) == len(variants)
    assert shared == alone
    assert all(s is not None and all(stage.ci95_ns is not None for stage in s.stages) for s in shared)
