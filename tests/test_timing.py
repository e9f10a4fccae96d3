"""Timing primitives with a fake clock: deterministic, no real time involved."""

from tuiperf.measuring.timing import choose_loops, take_sample, timer_resolution_ns


class FakeClock:
    """A clock that advances by ``step`` ns per reading, plus ``cost`` ns per simulated call."""

    def __init__(self, step: int = 0, cost: int = 0) -> None:
        self.now, self.step, self.cost = 0, step, cost

    def __call__(self) -> int:
        self.now += self.step
        return self.now

    def call(self, *args):
        self.now += self.cost
        return None


def test_resolution_is_the_smallest_positive_step():
    readings = iter([0, 0, 0, 250, 250, 500, 900] + [900 + 250 * i for i in range(1, 3000)])
    assert timer_resolution_ns(lambda: next(readings), reads=50) == 250


def test_loops_batch_only_calls_too_short_to_time_alone():
    assert choose_loops(call_ns=10_000, resolution_ns=70) == 1
    assert choose_loops(call_ns=1_000, resolution_ns=70) == 2
    assert choose_loops(call_ns=300, resolution_ns=70) == 5
    assert choose_loops(call_ns=20, resolution_ns=70) == 100
    assert choose_loops(call_ns=1_000, resolution_ns=1) == 1


def test_sample_reports_time_per_call():
    clock = FakeClock(cost=1_000)
    assert take_sample(clock.call, (), 5, lambda out: out, clock) == 1_000


def test_the_resolution_ignores_repeated_readings_and_finds_steps_after_them():
    readings = iter([100, 100, 130, 130, 170, 171, 200] + [200 + 40 * i for i in range(1, 3000)])
    assert timer_resolution_ns(lambda: next(readings), reads=20) == 1  # 170 -> 171: one tick
    assert timer_resolution_ns(lambda: 7, reads=5) == 1.0  # a clock that never moves: at least 1 ns


def test_a_sample_lasts_at_least_twenty_timer_steps():
    assert choose_loops(call_ns=1_000, resolution_ns=50) == 1  # exactly 20 steps: timed alone
    assert choose_loops(call_ns=999, resolution_ns=50) == 2
    assert choose_loops(call_ns=90, resolution_ns=50) == 20  # 10 x 90 = 900 < 1000 <= 20 x 90


def test_one_call_and_many_calls_per_sample_agree():
    clock = FakeClock(cost=300)
    assert take_sample(clock.call, (), 1, lambda out: out, clock) == 300
    assert take_sample(clock.call, (), 3, lambda out: out, clock) == 300
    waited: list[object] = []
    take_sample(clock.call, (), 4, waited.append, clock)
    assert len(waited) == 4  # every call is waited for, not only the last


def test_time_once_is_in_milliseconds():
    from tuiperf.measuring.timing import time_once

    clock = FakeClock(cost=2_500_000)
    clock.now = 7_000_000  # a clock that does not start at zero: the start is subtracted
    elapsed, value = time_once(lambda: clock.call() or "done", clock)
    assert (elapsed, value) == (2.5, "done")
