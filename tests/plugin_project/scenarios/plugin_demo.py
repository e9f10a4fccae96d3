"""The plugin's sample scenario: Python work whose size DEMO_SLOWDOWN scales (1.2: 20 % more work)."""

import os

from tuiperf import Bench, Scenario

SLOWDOWN = float(os.environ.get("DEMO_SLOWDOWN", "1"))
WORK = 2000  # additions per call (~20-40 µs of Python)

scenario = Scenario(
    title="Plugin demo: the same work, or 20 % more",
    question="Does the pytest plugin pass an A/A check and fail a variant slowed on purpose?",
)


def work(n):
    total = 0
    for i in range(n):
        total += i
    return total


@scenario.variant("steady")
def steady(p, ctx):
    """Always the same work."""
    return Bench(work, WORK)


@scenario.variant("same")
def same(p, ctx):
    """The same work as steady: an A/A pair."""
    return Bench(work, WORK)


@scenario.variant("slowed", equivalent=False)
def slowed(p, ctx):
    """DEMO_SLOWDOWN times the work (1 unless set)."""
    return Bench(work, round(WORK * SLOWDOWN))
