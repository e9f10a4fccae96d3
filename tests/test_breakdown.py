"""The breakdown's arithmetic and verdicts with a fake clock: each stage is exactly the difference of
the paths it is defined by, and impossible splits are flagged, never shown as bars."""

from __future__ import annotations

import threading

import factories
import pytest
from fakes import FakeClock

from tuiperf.measuring.breakdown import BreakdownInput, Paths, SteadyState, TimedPath, measure_breakdowns
from tuiperf.measuring.xla_costs import ProgramCosts
from tuiperf.results.reconcile import reconcile

# ns per call of each path: framework 40k, jit dispatch 10k + 2k, launch 10k, compute 33k, outputs 5k
COSTS = {
    "call": 100_000,
    "jit": 60_000,
    "flat_jit": 50_000,
    "flat_leaves": 45_000,
    "noop_jit": 12_000,
    "noop_execute": 10_000,
}


def breakdown_input(
    clock: FakeClock,
    name: str = "v",
    costs: dict[str, int] = COSTS,
    *,
    total: float | None = None,
    total_ci: tuple[float, float] | None = None,
    call_is_jit: bool = False,
    single_output: bool = False,
    call_flops: float | None = None,
    path_flops: float | None = None,
) -> BreakdownInput:
    paths = {p: TimedPath(clock.call(cost), ()) for p, cost in costs.items() if p != "call"}
    total = costs["call"] if total is None else total
    return BreakdownInput(
        name=name,
        call=TimedPath(clock.call(costs["call"]), ()),
        paths=Paths(paths, call_is_jit, single_output, ProgramCosts(flops=path_flops)),
        steady=SteadyState(total, total_ci or (total * 0.999, total * 1.001)),
        call_flops=call_flops,
    )


def measure(inputs, dispatch="sync"):
    clock = FakeClock()
    built = [item(clock) for item in inputs]
    return measure_breakdowns(
        built, resolution_ns=1.0, budget_s=5.0, cancel=threading.Event(), dispatch=dispatch, clock=clock
    )


def test_every_stage_is_the_difference_of_its_paths():
    result = measure([lambda c: breakdown_input(c)])["v"]
    stages = {key: stage.ns for key, stage in result.stages.items()}
    assert stages == {
        "framework": 40_000,
        "jit_dispatch": 12_000,
        "launch": 10_000,
        "compute": 33_000,
        "outputs": 5_000,
    }
    assert sum(stages.values()) == result.call_ns == 100_000 and result.residual_ns == 0
    assert result.reliable and result.reason is None
    assert all(stage.ci95_ns == (stage.ns, stage.ns) for stage in result.stages.values())  # no noise, no width
    assert result.rounds >= 8 and set(result.groups_ns) >= set(COSTS)


def test_a_jax_jit_call_has_no_framework_and_a_single_array_no_outputs():
    costs = {p: c for p, c in COSTS.items() if p not in ("jit", "flat_leaves")}
    costs["call"] = 60_000
    result = measure([lambda c: breakdown_input(c, costs=costs, call_is_jit=True, single_output=True)])["v"]
    assert result.stages["framework"].ns == 0 and result.stages["outputs"].ns == 0
    assert result.stages["jit_dispatch"].ns == 60_000 - 50_000 + 2_000
    assert result.stages["compute"].ns == 50_000 - 12_000
    assert sum(s.ns for s in result.stages.values()) == 60_000


def test_a_negative_stage_makes_the_breakdown_unreliable_with_the_remedy():
    costs = {**COSTS, "flat_leaves": 55_000}  # "outputs" = 50k - 55k: a lower path slower than its parent
    sync = measure([lambda c: breakdown_input(c, costs=costs)])["v"]
    assert not sync.reliable and "outputs is negative" in sync.reason and "quieter machine" in sync.reason
    asynchronous = measure([lambda c: breakdown_input(c, costs=costs)], dispatch="async")["v"]
    assert "--dispatch sync" in asynchronous.reason


def test_a_call_that_differs_from_its_steady_state_median_is_flagged():
    result = measure([lambda c: breakdown_input(c, total=130_000)])["v"]
    assert not result.reliable and "-23 % against its steady-state median" in result.reason
    assert result.residual_ns == 30_000
    close = measure([lambda c: breakdown_input(c, total=105_000)])["v"]
    assert close.reliable  # 5 %: within what two phases of one run may differ


def test_the_residual_check_is_never_waived_for_a_wide_steady_state_interval():
    """A 718 µs call whose paths measured 1.30 ms more was once marked reliable because its steady-state
    interval was ±42 %: the split cannot be read through that noise, so it is withheld."""
    wide = measure([lambda c: breakdown_input(c, total=70_000, total_ci=(40_600, 100_000))])["v"]
    assert not wide.reliable and "+43 % against its steady-state median" in wide.reason
    assert "uncertain by ±42 %" in wide.reason


def test_a_jit_level_computing_other_flops_is_flagged():
    result = measure([lambda c: breakdown_input(c, call_flops=3770.0, path_flops=1600.0)])["v"]
    assert not result.reliable and "0.424× the call's XLA FLOPs" in result.reason
    same = measure([lambda c: breakdown_input(c, call_flops=3770.0, path_flops=3770.0)])["v"]
    assert same.reliable


def test_the_gap_between_two_variants_is_split_by_stage():
    wrapped = {**COSTS}
    plain = {**COSTS, "call": 70_000, "jit": 70_000}  # the same program without a framework
    found = measure([lambda c: breakdown_input(c, "wrapped", wrapped), lambda c: breakdown_input(c, "plain", plain)])
    a = factories.variant("wrapped", samples=[100_000.0] * 40, breakdown=found["wrapped"])
    b = factories.variant("plain", samples=[70_000.0] * 40, breakdown=found["plain"])
    gap = reconcile(a, b)
    assert gap is not None and gap.gap_ns == 30_000 and gap.unexplained_ns == 0
    by_key = {s.key: s for s in gap.stages}
    assert by_key["framework"].delta_ns == 40_000 and by_key["jit_dispatch"].delta_ns == -10_000
    assert by_key["framework"].share == pytest.approx(4 / 3) and by_key["compute"].delta_ns == 0
    assert by_key["framework"].ci95_ns == (40_000, 40_000)  # paired over the same rounds: no noise here


def test_a_stage_clearly_below_zero_is_never_reliable_whatever_its_share_of_the_call():
    costs = {**COSTS, "flat_leaves": 52_000}  # outputs -2 µs: 2 % of the call, once tolerated up to 3 %
    result = measure([lambda c: breakdown_input(c, costs=costs)])["v"]
    assert not result.reliable and "outputs is negative (-2000 ns" in result.reason


def test_stages_below_the_resolution_of_two_compiles_of_one_program_are_named_as_such():
    from tuiperf.measuring.breakdown import below_resolution

    # The A/A pair (twin vs flat_jit) differs by 2 µs: framework, jit dispatch and outputs cannot be told
    # apart from zero below that; launch and compute are not differences of two such programs.
    costs = {**COSTS, "twin": 52_000, "jit": 51_000, "noop_jit": 10_000, "flat_leaves": 51_000}
    result = measure([lambda c: breakdown_input(c, costs=costs)])["v"]
    assert result.resolution_ns == 2_000
    stages = result.stages
    assert stages["jit_dispatch"].ns == 1_000 and below_resolution(stages["jit_dispatch"])
    assert stages["outputs"].ns == -1_000 and below_resolution(stages["outputs"])
    assert result.reliable  # a negative stage within what two compiles differ by is noise, not a finding
    assert not below_resolution(stages["framework"]) and not below_resolution(stages["launch"])
    assert stages["launch"].resolution_ns == 30.0  # the timer's floor: launch is one path, not a difference


def test_a_jax_jit_framework_stage_is_zero_by_construction_not_measured():
    costs = {p: c for p, c in COSTS.items() if p != "jit"}
    costs["call"] = 60_000
    result = measure([lambda c: breakdown_input(c, costs=costs, call_is_jit=True)])["v"]
    assert result.stages["framework"].by_construction and not result.stages["compute"].by_construction


def test_too_few_rounds_of_slow_paths_are_not_a_split():
    slow = {path: cost * 20_000 for path, cost in COSTS.items()}  # 2 s calls: one round fills the budget
    result = measure([lambda c: breakdown_input(c, costs=slow)])["v"]
    assert result.rounds < 4 and not result.reliable
    assert f"only {result.rounds} round(s) of the paths fit in the breakdown's time" in result.reason
