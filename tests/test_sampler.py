"""Steady-state sampling with a fake clock: interleaving, same span for all, warm-up, stopping rules."""

from __future__ import annotations

import itertools
import threading

import pytest
from fakes import FakeClock

from tuiperf.measuring.sampler import Pace, Target, sample_interleaved


def targets_of(clock: FakeClock, costs: dict[str, int], per_turn: dict[str, int] | None = None) -> list[Target]:
    per_turn = per_turn or {}
    return [
        Target(name, clock.call(cost), (), lambda out: out, pace=Pace(per_turn=per_turn.get(name, 1)))
        for name, cost in costs.items()
    ]


def test_fixed_sampling_interleaves_in_rotating_order_and_stops_at_the_count():
    clock = FakeClock()
    order: list[str] = []
    targets = targets_of(clock, {"a": 100, "b": 100, "c": 100})
    outcome = sample_interleaved(
        targets, samples=4, budget_s=1.0, cancel=threading.Event(), on_turn=lambda t: order.append(t.name), clock=clock
    )
    assert outcome.reason == "count" and [len(t.samples) for t in targets] == [4, 4, 4]
    assert order[:6] == ["a", "b", "c", "b", "c", "a"]  # rotating order: drift hits everyone alike


def test_fixed_sampling_spreads_every_variant_over_the_same_rounds():
    """A fast variant (500 per 5 ms turn) and a slow one (10 per turn) finish in the same round."""
    clock = FakeClock()
    fast, slow = targets_of(clock, {"fast": 10_000, "slow": 500_000}, {"fast": 500, "slow": 10})
    outcome = sample_interleaved([fast, slow], samples=1000, budget_s=1.0, cancel=threading.Event(), clock=clock)
    assert len(fast.samples) == len(slow.samples) == 1000
    assert (fast.first_round, fast.last_round) == (slow.first_round, slow.last_round) == (0, outcome.rounds - 1)
    assert outcome.rounds == 100  # the slow variant's 10 per turn sets the pace; the fast one takes 10 too


def test_auto_sampling_keeps_a_converged_variant_in_the_rotation_until_all_stop():
    """Drift must hit every variant alike: the stable one converges at once but keeps being sampled."""
    clock = FakeClock()
    stable = Target("stable", clock.call(1_000_000), (), lambda o: o, pace=Pace(per_turn=5))
    noisy_costs = iter([1_000_000 + (i * 7919 % 400_000) for i in range(100_000)])

    def noisy_call() -> None:
        clock.now += next(noisy_costs)

    noisy = Target("noisy", noisy_call, (), lambda o: o, pace=Pace(per_turn=5))
    outcome = sample_interleaved([stable, noisy], samples=None, budget_s=3.0, cancel=threading.Event(), clock=clock)
    assert stable.first_round == noisy.first_round == 0
    assert stable.last_round == noisy.last_round == outcome.rounds - 1
    assert stable.first_ns is not None and noisy.first_ns is not None
    assert abs(stable.first_ns - noisy.first_ns) < 20_000_000 and abs(stable.last_ns - noisy.last_ns) < 20_000_000


def test_auto_sampling_stops_when_every_median_is_known():
    clock = FakeClock()
    targets = targets_of(clock, {"a": 1_000_000})  # 1 ms calls, perfectly stable
    outcome = sample_interleaved(targets, samples=None, budget_s=100.0, cancel=threading.Event(), clock=clock)
    assert outcome.reason == "converged"
    # at the first check, 0.25 s in: each turn is an untimed warm-up call and one timed call (2 ms)
    assert len(targets[0].samples) == 125


def test_auto_progress_is_the_share_of_the_budget_spent():
    """Progress in auto mode is elapsed / budget, from the first turn, also for a budget under 1 s."""
    clock = FakeClock()
    costs = itertools.count()

    def call() -> None:
        clock.now += 1_000_000 + next(costs) * 7919 % 900_000  # too noisy to converge: the budget ends it

    fractions: list[float] = []
    outcome = sample_interleaved(
        [Target("a", call, (), lambda out: out)],
        samples=None,
        budget_s=0.5,
        cancel=threading.Event(),
        clock=clock,
        on_tick=lambda elapsed, fraction: fractions.append(fraction),
    )
    assert outcome.reason == "budget" and fractions[0] < 0.02 and fractions[-1] == 1.0
    assert 0.1 < fractions[len(fractions) // 2] < 0.9 and fractions == sorted(fractions)


def test_auto_sampling_stops_at_the_budget():
    clock = FakeClock()
    costs = iter([1_000_000 + (i * 7919 % 900_000) for i in range(100_000)])  # too noisy to converge

    def call() -> None:
        clock.now += next(costs)

    target = Target("a", call, (), lambda o: o)
    outcome = sample_interleaved([target], samples=None, budget_s=0.5, cancel=threading.Event(), clock=clock)
    assert outcome.reason == "budget" and 0.5 <= outcome.elapsed_s < 0.6


def test_block_mode_warms_up_each_turn_and_call_mode_does_not():
    """Each variant evicts the other's caches (a cold call costs 5x). Block mode's untimed warm-up call
    keeps cold calls out of the samples; call mode measures every call after a neighbour."""
    clock = FakeClock()
    last: list[str] = []
    a = Target("a", clock.cold_call(1_000, 5_000, last, "a"), (), lambda o: o, pace=Pace(per_turn=3))
    b = Target("b", clock.cold_call(1_000, 5_000, last, "b"), (), lambda o: o, pace=Pace(per_turn=3))
    sample_interleaved([a, b], samples=30, budget_s=1.0, cancel=threading.Event(), clock=clock)
    assert set(a.samples) == set(b.samples) == {1_000}
    last.clear()
    a2 = Target("a", clock.cold_call(1_000, 5_000, last, "a"), (), lambda o: o, pace=Pace(per_turn=3))
    b2 = Target("b", clock.cold_call(1_000, 5_000, last, "b"), (), lambda o: o, pace=Pace(per_turn=3))
    sample_interleaved([a2, b2], samples=30, budget_s=1.0, cancel=threading.Event(), interleave="call", clock=clock)
    assert set(a2.samples) == set(b2.samples) == {5_000}
    assert len(a2.round_starts) == 30  # one call per turn


def test_cancel_stops_within_one_sample():
    clock = FakeClock()
    cancel = threading.Event()
    calls = [0]

    def call() -> None:
        calls[0] += 1
        clock.now += 100
        if calls[0] == 8:  # the warm-up call, then 7 samples
            cancel.set()

    target = Target("a", call, (), lambda o: o, pace=Pace(per_turn=50))
    outcome = sample_interleaved([target], samples=100, budget_s=1.0, cancel=cancel, clock=clock)
    assert outcome.reason == "cancelled" and len(target.samples) == 7


def test_a_failing_target_stops_alone():
    clock = FakeClock()

    def boom() -> None:
        raise MemoryError("out of memory")

    good = Target("good", clock.call(100), (), lambda o: o)
    bad = Target("bad", boom, (), lambda o: o)
    sample_interleaved([good, bad], samples=10, budget_s=1.0, cancel=threading.Event(), clock=clock)
    assert len(good.samples) == 10 and not bad.samples and isinstance(bad.error, MemoryError)


def test_turns_are_recorded_for_pairing():
    clock = FakeClock()
    (target,) = targets_of(clock, {"a": 100}, {"a": 3})
    sample_interleaved([target], samples=9, budget_s=1.0, cancel=threading.Event(), clock=clock)
    assert [len(turn) for turn in target.turns()] == [3, 3, 3]


def test_the_first_round_streams_after_every_turn_then_at_most_every_tick():
    """A crash in the next variant must not lose what was sampled: report after each first-round turn."""
    clock = FakeClock()
    log: list[str] = []
    targets = targets_of(clock, {"a": 1_000, "b": 1_000, "c": 1_000})
    sample_interleaved(
        targets,
        samples=50,
        budget_s=1.0,
        cancel=threading.Event(),
        on_turn=lambda t: log.append(t.name),
        on_tick=lambda elapsed, fraction: log.append("tick"),
        clock=clock,
    )
    assert log[:6] == ["a", "tick", "b", "tick", "c", "tick"]
    later = log[6:]
    assert later.count("tick") == 1 and later[-1] == "tick"  # 150 µs in all: only the final report


def test_progress_is_the_share_of_the_budget_or_of_the_rounds():
    clock = FakeClock()
    fractions: list[tuple[float, float]] = []
    targets = targets_of(clock, {"a": 50_000_000})  # 50 ms calls, a 2 s budget: about 20 rounds
    outcome = sample_interleaved(
        targets,
        samples=None,
        budget_s=2.0,
        cancel=threading.Event(),
        on_tick=lambda elapsed, fraction: fractions.append((elapsed, fraction)),
        clock=clock,
    )
    assert outcome.reason in ("budget", "converged")
    for elapsed, fraction in fractions[:-1]:
        assert fraction == min(elapsed / 2.0, 1.0)
    assert fractions[-1][1] == 1.0 and [f for _, f in fractions] == sorted(f for _, f in fractions)
    counted: list[float] = []
    sample_interleaved(
        targets_of(clock, {"a": 1_000, "b": 1_000}),
        samples=10,
        budget_s=1.0,
        cancel=threading.Event(),
        on_tick=lambda elapsed, fraction: counted.append(fraction),
        clock=clock,
    )
    assert counted[:2] == [0.0, 0.0] and counted[-1] == 1.0  # after the first round's turns: 0 of 10 rounds done


def test_an_outcome_is_complete_unless_cancelled():
    clock = FakeClock()
    cancel = threading.Event()
    cancel.set()
    stopped = sample_interleaved(targets_of(clock, {"a": 1_000}), samples=5, budget_s=1.0, cancel=cancel, clock=clock)
    assert stopped.reason == "cancelled" and not stopped.completed
    done = sample_interleaved(
        targets_of(clock, {"a": 1_000}), samples=5, budget_s=1.0, cancel=threading.Event(), clock=clock
    )
    assert done.reason == "count" and done.completed


def test_the_relative_ci_half_width_is_measured_against_the_median():
    from tuiperf.measuring.sampler import relative_ci_halfwidth
    from tuiperf.results.stats import median_ci

    samples = [float(v) for v in range(100, 200)]
    lo, hi = median_ci(samples)
    assert relative_ci_halfwidth(samples) == (hi - lo) / 2 / 150.0
    assert relative_ci_halfwidth([0.0] * 40) == float("inf")


def test_auto_sampling_goes_on_until_the_median_is_known_within_one_percent():
    from tuiperf.measuring.sampler import TARGET_REL_CI, relative_ci_halfwidth

    clock = FakeClock()
    spread = iter([50_000 + (i * 7919 % 100_000) for i in range(1_000_000)])  # 50-150 µs, uniform-ish

    def noisy() -> None:
        clock.now += next(spread)

    target = Target("noisy", noisy, (), lambda o: o, pace=Pace(per_turn=50))
    outcome = sample_interleaved([target], samples=None, budget_s=10.0, cancel=threading.Event(), clock=clock)
    assert outcome.reason == "converged" and TARGET_REL_CI == 0.01
    assert relative_ci_halfwidth(target.samples) <= 0.01
    assert relative_ci_halfwidth(target.samples[: len(target.samples) // 2]) > 0.01  # it did not stop early


def test_progress_is_reported_every_tenth_of_a_second():
    clock = FakeClock()
    ticks: list[float] = []
    targets = targets_of(clock, {"a": 10_000_000})  # 10 ms calls for a 1 s budget
    sample_interleaved(
        targets,
        samples=None,
        budget_s=1.0,
        cancel=threading.Event(),
        on_tick=lambda elapsed, fraction: ticks.append(elapsed),
        clock=clock,
    )
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert 9 <= len(ticks) <= 12 and max(gaps) <= 0.1 + 0.01


def test_block_turns_last_about_5_ms_and_only_sub_millisecond_calls_warm_up():
    from tuiperf.measuring.sampler import block_size, needs_warm_up

    assert [block_size(ns) for ns in (0, 1_000, 10_000, 2_500_000, 5_000_001, 1e8)] == [500, 500, 500, 2, 1, 1]
    assert needs_warm_up(999_999) and not needs_warm_up(1_000_000) and not needs_warm_up(1_500_000)


def test_a_median_of_one_nanosecond_still_has_a_relative_ci():
    from tuiperf.measuring.sampler import relative_ci_halfwidth

    assert relative_ci_halfwidth([1.0] * 40) == 0.0


def test_auto_call_mode_takes_one_sample_per_turn():
    clock = FakeClock()
    targets = targets_of(clock, {"a": 1_000_000, "b": 1_000_000}, {"a": 5, "b": 5})
    sample_interleaved(targets, samples=None, budget_s=0.05, cancel=threading.Event(), interleave="call", clock=clock)
    assert {len(turn) for t in targets for turn in t.turns()} == {1}


def test_the_budget_ends_sampling_in_the_round_that_reaches_it():
    clock = FakeClock()
    costs = iter(itertools.cycle([100_000_000, 90_000_000, 110_000_000]))  # 0.3 s per round, never converges

    def call() -> None:
        clock.now += next(costs)

    target = Target("a", call, (), lambda o: o)
    outcome = sample_interleaved([target], samples=None, budget_s=0.6, cancel=threading.Event(), clock=clock)
    # each turn is a warm-up call and a sample: 0.19, 0.21, 0.2 s; the third round ends at exactly 0.6 s
    assert (outcome.reason, outcome.rounds, outcome.elapsed_s) == ("budget", 3, 0.6)


def test_convergence_is_not_judged_before_min_rounds():
    clock = FakeClock()
    targets = targets_of(clock, {"a": 1_000_000})  # 1 ms, perfectly stable: converged at the first check
    outcome = sample_interleaved(
        targets, samples=None, budget_s=100.0, cancel=threading.Event(), clock=clock, min_rounds=500
    )
    assert (outcome.reason, outcome.rounds) == ("converged", 500)


def test_the_sample_cap_ends_sampling_with_progress_complete():
    clock = FakeClock()
    fractions: list[float] = []
    targets = targets_of(clock, {"a": 1_000_000 + 1})
    outcome = sample_interleaved(
        targets,
        samples=None,
        budget_s=100.0,
        cancel=threading.Event(),
        clock=clock,
        max_samples=7,
        on_tick=lambda elapsed, fraction: fractions.append(fraction),
    )
    assert (outcome.reason, len(targets[0].samples), fractions[-1]) == ("cap", 7, 1.0)


def test_fixed_mode_progress_is_the_share_of_rounds_done():
    clock = FakeClock()
    fractions: list[float] = []
    targets = targets_of(clock, {"a": 30_000_000})  # 60 ms rounds (a warm-up call and a sample): a tick every other
    sample_interleaved(
        targets,
        samples=20,
        budget_s=100.0,
        cancel=threading.Event(),
        clock=clock,
        on_tick=lambda elapsed, fraction: fractions.append(fraction),
    )
    assert fractions == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]  # rounds finished of 20


def test_a_gate_keeps_a_converged_process_sampling_until_it_says_stop():
    """Several environments stop together: converging only says 'done' to the gate, which decides."""
    clock = FakeClock()
    targets = targets_of(clock, {"a": 1_000_000})  # converges after the first check
    asked: list[tuple[int, bool]] = []

    def gate(round_index: int, done: bool) -> bool:
        asked.append((round_index, done))
        return round_index < 400  # another environment is not done until round 400

    outcome = sample_interleaved(
        targets, samples=None, budget_s=100.0, cancel=threading.Event(), clock=clock, gate=gate
    )
    assert outcome.reason == "converged" and outcome.rounds == 400 and len(targets[0].samples) == 400
    assert [r for r, _ in asked] == list(range(401))  # asked before every round, round 0 included
    first_done = next(r for r, done in asked if done)
    assert 30 <= first_done <= 260 and all(done for _, done in asked[first_done:])


def test_a_gate_that_says_stop_ends_sampling_before_the_round():
    clock = FakeClock()
    targets = targets_of(clock, {"a": 1_000, "b": 1_000})
    outcome = sample_interleaved(
        targets, samples=None, budget_s=100.0, cancel=threading.Event(), clock=clock, gate=lambda r, done: r < 3
    )
    assert outcome.reason == "budget" and [len(t.samples) for t in targets] == [3, 3]


def test_a_fixed_count_ends_sampling_whatever_the_gate_says():
    clock = FakeClock()
    targets = targets_of(clock, {"a": 1_000})
    outcome = sample_interleaved(
        targets, samples=5, budget_s=1.0, cancel=threading.Event(), clock=clock, gate=lambda r, done: True
    )
    assert outcome.reason == "count" and len(targets[0].samples) == 5


def test_a_run_alone_stops_when_its_own_rule_says_done():
    """A run with no other environment passes ALONE as its gate: converging or spending the budget
    must end sampling there (ALONE once said 'go on' to every round, and every auto run sampled to
    the cap: a 1-second budget took 16 s)."""
    from tuiperf.contract.protocol import SAMPLE, Gate
    from tuiperf.measuring.lockstep import ALONE

    def alone(round_index: int, done: bool) -> bool:
        return ALONE.wait(Gate(0, SAMPLE, round_index), done)

    clock = FakeClock()
    stable = targets_of(clock, {"a": 1_000_000})
    converged = sample_interleaved(
        stable, samples=None, budget_s=100.0, cancel=threading.Event(), clock=clock, gate=alone
    )
    assert converged.reason == "converged" and 30 <= len(stable[0].samples) <= 260

    costs = iter([1_000_000 + (i * 7919 % 900_000) for i in range(100_000)])  # too noisy to converge

    def call() -> None:
        clock.now += next(costs)

    noisy = Target("a", call, (), lambda o: o)
    spent = sample_interleaved([noisy], samples=None, budget_s=0.5, cancel=threading.Event(), clock=clock, gate=alone)
    assert spent.reason == "budget" and 0.5 <= spent.elapsed_s < 0.6


def test_call_mode_takes_the_variants_in_the_order_given_every_round():
    clock = FakeClock()
    order: list[str] = []
    targets = targets_of(clock, {"a": 1_000, "b": 1_000, "c": 1_000})
    sample_interleaved(
        targets,
        samples=3,
        budget_s=1.0,
        cancel=threading.Event(),
        interleave="call",
        clock=clock,
        on_turn=lambda target: order.append(target.name),
    )
    assert order == ["a", "b", "c"] * 3


def test_progress_never_passes_one_even_when_a_turn_outlasts_the_budget():
    clock = FakeClock()
    fractions: list[float] = []
    targets = targets_of(clock, {"slow": 3_000_000_000})  # one call: three budgets
    sample_interleaved(
        targets,
        samples=None,
        budget_s=1.0,
        cancel=threading.Event(),
        clock=clock,
        on_tick=lambda elapsed, fraction: fractions.append(fraction),
    )
    assert fractions and max(fractions) == 1.0


def test_a_zero_budget_samples_one_round_and_reports_it_complete():
    clock = FakeClock()
    fractions: list[float] = []
    targets = targets_of(clock, {"a": 1_000, "b": 1_000})
    outcome = sample_interleaved(
        targets,
        samples=None,
        budget_s=0.0,
        cancel=threading.Event(),
        clock=clock,
        on_tick=lambda elapsed, fraction: fractions.append(fraction),
    )
    assert outcome.reason == "budget" and [len(t.samples) for t in targets] == [1, 1]
    assert fractions[-1] == 1.0 and all(0.0 <= f <= 1.0 for f in fractions)


def frames_above(frame) -> int:
    depth = 0
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    return depth


def called_deep(levels: int, fn):
    return fn() if levels == 0 else called_deep(levels - 1, fn)


def test_calls_are_timed_at_a_scripts_stack_depth_however_deep_the_caller():
    """JAX records the calling stack's traceback on every call, so every frame costs each call: timed
    from deep inside the measuring process, calls read slower than from a script's loop. The sampler's
    calls are made three frames deep in a thread of their own (its entry, the rounds, the sample; the
    untimed warm-up call from the rounds), which reads as a script's timing loop does."""
    import sys

    clock = FakeClock()
    depths: list[int] = []

    def call() -> None:
        clock.now += 1_000
        depths.append(frames_above(sys._getframe(1)))

    target = Target("a", call, (), lambda out: out, pace=Pace(per_turn=5))
    called_deep(
        40, lambda: sample_interleaved([target], samples=20, budget_s=1.0, cancel=threading.Event(), clock=clock)
    )
    assert len(target.samples) == 20 and depths.count(3) == 20 and max(depths) == 3


def test_the_callers_scope_is_entered_where_calls_are_timed():
    """Thread-local JAX state (a jax.default_device scope) does not cross threads: the caller's scope
    is entered in the sampling thread."""
    import contextlib

    local = threading.local()

    @contextlib.contextmanager
    def scope():
        local.inside = True
        yield
        local.inside = False

    clock = FakeClock()
    seen: list[bool] = []

    def call() -> None:
        clock.now += 1_000
        seen.append(getattr(local, "inside", False))

    target = Target("a", call, (), lambda out: out)
    sample_interleaved([target], samples=10, budget_s=1.0, cancel=threading.Event(), clock=clock, scope=scope)
    assert seen and all(seen) and not getattr(local, "inside", False)


def test_an_error_outside_the_timed_calls_reaches_the_caller():
    clock = FakeClock()

    def failing_tick(elapsed: float, fraction: float) -> None:
        raise OSError("the parent is gone")

    with pytest.raises(OSError, match="the parent is gone"):
        sample_interleaved(
            targets_of(clock, {"a": 1_000}),
            samples=10,
            budget_s=1.0,
            cancel=threading.Event(),
            clock=clock,
            on_tick=failing_tick,
        )


def test_an_interrupt_while_sampling_stops_the_sampler_and_is_raised():
    """Ctrl-C in a REPL reaches the waiting thread: the sampler stops soon after, then the interrupt is raised."""
    import signal

    class Interrupted(Exception):
        pass

    def on_signal(signum, frame):
        raise Interrupted

    clock = FakeClock()
    calls = itertools.count()
    sent: list[bool] = []

    def call() -> None:
        clock.now += 1_000 + next(calls) * 7919 % 900_000  # too noisy to converge: only a stop ends it
        if len(target.samples) == 10 and not sent:
            sent.append(True)
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    target = Target("a", call, (), lambda out: out)
    previous = signal.signal(signal.SIGINT, on_signal)
    try:
        with pytest.raises(Interrupted):
            sample_interleaved([target], samples=None, budget_s=1e9, cancel=threading.Event(), clock=clock)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert 10 <= len(target.samples) < 100_000  # the cap (1,000,000 calls) would take seconds
