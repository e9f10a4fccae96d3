"""Timing primitives: the clock, its resolution, loop calibration, one sample.

Everything takes the clock as an argument so tests can drive it with a fake one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

Clock = Callable[[], int]
DEFAULT_CLOCK: Clock = time.perf_counter_ns

# A sample must last at least this many timer steps, so that reading the clock (about 70 ns here)
# costs at most ~5 % of a sample. JAX calls (microseconds) are timed alone; shorter ones are batched.
MIN_TICKS_PER_SAMPLE = 20
LOOP_STEPS = (1, 2, 5)


def timer_resolution_ns(clock: Clock = DEFAULT_CLOCK, reads: int = 2000) -> float:
    """Smallest positive step between two consecutive clock readings (granularity plus read cost)."""
    smallest = None
    previous = clock()
    for _ in range(reads):
        now = clock()
        step = now - previous
        if step > 0 and (smallest is None or step < smallest):
            smallest = step
        previous = now
    return float(smallest or 1)


def choose_loops(call_ns: float, resolution_ns: float, min_ticks: int = MIN_TICKS_PER_SAMPLE) -> int:
    """Calls per sample: 1 unless one call is too short to time alone, then 2, 5, 10, 20, 50, ..."""
    target = resolution_ns * min_ticks
    scale = 1
    while True:
        for step in LOOP_STEPS:
            loops = step * scale
            if loops * max(call_ns, 1e-3) >= target:
                return loops
        scale *= 10


def blocker_for(output: Any) -> Callable[[Any], Any]:
    """How to wait for an output: the array's own method (what users write) or the pytree helper."""
    import jax

    if isinstance(output, jax.Array):
        return type(output).block_until_ready
    return jax.block_until_ready


def take_sample(
    fn: Callable[..., Any], args: tuple[Any, ...], loops: int, block: Callable[[Any], Any], clock: Clock = DEFAULT_CLOCK
) -> float:
    """Time ``loops`` calls, each waited for; return nanoseconds per call."""
    if loops == 1:  # the common case, as lean as a hand-written timing loop
        start = clock()
        block(fn(*args))
        return clock() - start
    start = clock()
    for _ in range(loops):
        block(fn(*args))
    return (clock() - start) / loops


def time_once(fn: Callable[[], Any], clock: Clock = DEFAULT_CLOCK) -> tuple[float, Any]:
    """Wall time of one call in milliseconds, and what it returned."""
    start = clock()
    value = fn()
    return (clock() - start) / 1e6, value


def harness_overhead_ns(clock: Clock = DEFAULT_CLOCK, samples: int = 2000) -> float:
    """Median cost of one sample of a call that does nothing: what the harness adds to every figure."""
    import jax.numpy as jnp

    ready = jnp.zeros(())
    ready.block_until_ready()
    block = blocker_for(ready)
    noop = lambda: ready  # noqa: E731 - the cheapest possible call
    values = sorted(take_sample(noop, (), 1, block, clock) for _ in range(samples))
    return float(values[len(values) // 2])
