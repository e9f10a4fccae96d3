"""Timing primitives with a fake clock: deterministic, no real time involved."""

from tuiperf.core.timing import choose_loops, take_sample, timer_resolution_ns


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
