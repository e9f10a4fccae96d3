"""The profile shows JAX's C++ and XLA time as its own row, for every kind of variant."""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import pytest

from tuiperf.measuring.profiling import exposed, profile_call

X = jnp.arange(8.0)


def executable_rows(rows):
    return [r for r in rows if r.kind == "executable"]


def test_a_plain_jax_jit_call_gets_a_profile_led_by_the_executable():
    fn = jax.jit(jnp.sin)
    rows, note = profile_call(fn, (X,), jax.block_until_ready, 10_000, calls=20, median_ns=8_000)
    assert rows and rows[0].kind == "executable" and rows[0].ncalls == 1
    assert "median is 8.00 µs" in note and "not found" not in note


@pytest.mark.slow
def test_filter_jit_keeps_its_python_rows_and_loses_the_executable_time_from_them():
    model = eqx.nn.Linear(8, 8, key=jax.random.key(0))
    fn = eqx.filter_jit(lambda m, x: m(x))
    jax.block_until_ready(fn(model, X))
    rows, _ = profile_call(fn, (model, X), jax.block_until_ready, 30_000, calls=30)
    (executable,) = executable_rows(rows)
    assert any("hashable_partition" in r.function for r in rows)
    caller = next(r for r in rows if r.function.startswith("_call (equinox"))
    assert caller.tottime_us < caller.cumtime_us - executable.cumtime_us * 0.9  # C++ time is no longer "own"


def test_the_jitted_function_is_restored_even_if_a_call_raises():
    fn = eqx.filter_jit(lambda x: x * 2)
    original = fn._cached
    with pytest.raises(ZeroDivisionError), exposed(fn) as (_target, found):
        assert found and fn._cached is not original
        raise ZeroDivisionError
    assert fn._cached is original


def test_a_closure_that_hides_its_jitted_function_says_so():
    jitted = jax.jit(jnp.cos)

    def call(x):
        return jitted(x)

    rows, note = profile_call(call, (X,), jax.block_until_ready, 10_000, calls=10)
    assert executable_rows(rows) == [] and "no jax.jit function was found" in note


def test_a_raising_call_does_not_leave_the_process_profiled():
    import sys

    def boom(x):
        raise ValueError("no")

    with pytest.raises(ValueError):
        profile_call(boom, (X,), jax.block_until_ready, 10_000, calls=3)
    assert sys.getprofile() is None


def test_a_jitted_step_gets_the_compiled_calls_own_row():
    """A Step's compiled call was charged as own time of Carrier.__call__ (read as "framework"); a Bench
    got a row of its own for it. The Step now does too, and the step function is restored after."""
    from tuiperf.api.step import Carrier, Step

    def train(state, x):
        return state + jnp.sin(x), jnp.sum(state)

    jitted = jax.jit(train)
    carrier = Carrier(Step(jitted, X, X))
    jax.block_until_ready(carrier())
    rows, note = profile_call(carrier, (), jax.block_until_ready, 10_000, calls=20)
    (executable,) = executable_rows(rows)
    assert executable.ncalls == 1 and "not found" not in note
    own = next(r for r in rows if r.function.startswith("__call__ (tuiperf/api/step.py"))
    assert own.tottime_us < executable.cumtime_us
    assert carrier.step.fn is jitted


def test_one_preempted_call_does_not_move_the_shares():
    """Calls held up for 50 ms (as preempted ones are, on a loaded machine) are a few of the profiles
    whose median makes each row, so the constructor keeps its share of the caller. Summed over one
    profile, the stalls made the caller ms a call and the constructor's share under 1 %, and the
    remedy table then named no machinery."""
    import time

    calls = [0]

    class Config:
        def __init__(self) -> None:
            self.size = 8

    def per_call(x):
        calls[0] += 1
        if calls[0] in (3, 4, 11):  # three calls of 25, two of them in a row
            stall = time.perf_counter() + 0.05
            while time.perf_counter() < stall:
                pass
        Config()
        return x

    rows, _ = profile_call(per_call, (X,), lambda out: out, 10_000, calls=25)
    caller = next(r for r in rows if r.function.startswith("per_call "))
    constructor = next(r for r in rows if r.function.startswith("__init__ "))
    assert caller.cumtime_us < 1_000  # the stalls alone are 6,000 µs a call over 25 calls
    assert constructor.cumtime_us / caller.cumtime_us > 0.1  # remedies.MIN_SHARE
