"""Calibration with a fake clock: deterministic, no real time involved."""

import threading

from tuiperf.core.sampler import Target, sample_interleaved
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


def test_fixed_sampling_interleaves_and_stops_at_the_count():
    clock = FakeClock(cost=100)
    order = []
    targets = [Target(name, clock.call, (), lambda out: out) for name in "abc"]
    done = sample_interleaved(
        targets,
        samples=4,
        budget_s=1.0,
        cancel=threading.Event(),
        on_sample=lambda t: order.append(t.name),
        clock=clock,
    )
    assert done and [len(t.samples) for t in targets] == [4, 4, 4]
    assert order[:6] == ["a", "b", "c", "b", "c", "a"]  # rotating order: drift hits everyone alike


def test_auto_sampling_stops_when_the_median_is_known():
    clock = FakeClock(cost=1_000_000)  # 1 ms calls, perfectly stable: converged at the first check
    targets = [Target("a", clock.call, (), lambda out: out)]
    sample_interleaved(targets, samples=None, budget_s=100.0, cancel=threading.Event(), clock=clock)
    assert 30 <= len(targets[0].samples) <= 260  # the first check comes after 0.25 s of samples
    assert clock.now < 1e9


def test_cancel_stops_within_one_sample():
    clock = FakeClock(cost=100)
    cancel = threading.Event()
    targets = [Target("a", clock.call, (), lambda out: out)]
    seen = []

    def on_sample(target):
        seen.append(1)
        if len(seen) == 7:
            cancel.set()

    assert not sample_interleaved(targets, samples=100, budget_s=1.0, cancel=cancel, on_sample=on_sample, clock=clock)
    assert len(targets[0].samples) == 7


def test_a_failing_target_stops_alone():
    clock = FakeClock(cost=100)

    def boom():
        raise MemoryError("out of memory")

    good, bad = Target("good", clock.call, (), lambda o: o), Target("bad", boom, (), lambda o: o)
    sample_interleaved([good, bad], samples=10, budget_s=1.0, cancel=threading.Event(), clock=clock)
    assert len(good.samples) == 10 and not bad.samples and isinstance(bad.error, MemoryError)
