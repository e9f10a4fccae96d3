"""Stateful variants (Step): state carried call to call, donation, per-call inputs, the guard."""

import re
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import pytest

from tuiperf.api.step import GUARD_STEPS, Carrier, Step
from tuiperf.common.errors import ScenarioError
from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest


def counting_step(count, x):
    return count + 1, x


def test_the_pool_is_used_in_turn_and_the_state_is_fed_back():
    pool = [(jnp.asarray(i),) for i in range(3)]
    carrier = Carrier(Step(counting_step, 0, pool=pool))
    outs = [int(carrier()[1]) for _ in range(5)]  # (new state, out)
    assert outs == [0, 1, 2, 0, 1] and carrier.state == 5 and carrier.calls == 5


def test_a_donated_state_is_noticed_and_the_setup_arrays_survive():
    shared = jnp.ones(4)
    carrier = Carrier(Step(jax.jit(lambda s, x: (s + x, s.sum()), donate_argnums=0), shared, jnp.ones(4)))
    carrier.first_call()
    carrier()
    assert carrier.donates and not shared.is_deleted()  # the copy was donated, not the scenario's array
    assert float(carrier.last_out) == 8.0  # 2 + 2 + 2 + 2: the second call got the first call's state


def test_a_step_is_waited_for_whole_like_any_call():
    """(new state, out): what the breakdown's jit-level path waits for too, so framework stays >= 0."""

    def step(state, x):
        params, count = state
        return ({"b": params["b"] + x, "w": params["w"] * 2}, count + 1), x.sum()

    state = ({"b": jnp.zeros(2), "w": jnp.ones(2)}, jnp.asarray(0))
    carrier = Carrier(Step(jax.jit(step), state, jnp.ones(2)))
    waited = carrier.first_call()
    assert waited[0] is carrier.state and float(waited[1]) == 2.0 and int(carrier.state[1]) == 1
    in_place = Carrier(Step(lambda holder, x: x.sum(), SimpleNamespace(), jnp.ones(3), inplace=True))
    assert float(in_place.first_call()) == 3.0


def test_the_guard_view_is_taken_after_the_guard_steps_and_copied_to_the_host():
    carrier = Carrier(Step(counting_step, 0, jnp.asarray(7.0), compare=lambda s, out: {"steps": s, "out": out}))
    view = carrier.guard_output(None)
    assert view["steps"] == 3  # as the README and the training-step scenario promise: three steps
    assert not isinstance(view["out"], jax.Array) and view["out"] == 7.0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(pool=[]), "pool is empty"),
        (dict(compare="loss"), "compare must be a function"),
        (dict(jit_fn=jax.jit(counting_step)), "jit_fn and jit_args together"),
    ],
)
def test_bad_steps_are_refused_with_the_reason(kwargs, message):
    with pytest.raises(ScenarioError, match=message):
        Step(counting_step, 0, **kwargs)


def test_inputs_and_a_pool_together_are_refused():
    with pytest.raises(ScenarioError, match="either positionally or as pool"):
        Step(counting_step, 0, jnp.ones(1), pool=[(jnp.ones(1),)])


def run_steps(runner, **params):
    return runner.run(
        RunRequest(scenario="steps", params=params, settings=RunSettings(samples=40, dispatch="sync")),
        lambda event: None,
    )


@pytest.mark.slow
def test_steps_train_while_timed_and_agree_with_and_without_donation(runner):
    doc = run_steps(runner)
    for name in ("kept", "donated", "in-place", "other-lr"):
        variant = doc.variant(name)
        assert variant is not None and variant.ok, (name, variant and variant.failure)
        note = next(n for n in variant.notes if n.startswith("stateful step"))
        calls, first, last = re.search(r"through (\d+) calls; its output went from (\S+) to (\S+)", note).groups()
        assert int(calls) >= 40 + GUARD_STEPS and float(last) < float(first) / 10  # the loss went down
        assert variant.stages.first_call > 0
    assert doc.variant("kept").stages.compile > 0  # the step's own AOT stages
    assert any("donates its state" in n for n in doc.variant("donated").notes)
    assert doc.variant("kept").breakdown is not None  # not donated: the breakdown runs
    assert doc.equivalence.mismatches == [] and set(doc.equivalence.checked) >= {"kept", "donated", "in-place"}


@pytest.mark.slow
def test_a_donating_bench_fails_with_what_to_change(runner):
    failed = run_steps(runner).variant("bench-donated")
    assert not failed.ok and failed.failure is not None
    assert "deleted or donated" in failed.failure.error and "tuiperf.Step(step, state" in failed.failure.error


@pytest.mark.slow
def test_the_guard_catches_a_different_learning_rate(runner):
    doc = run_steps(runner, wrong_lr="true")
    found = {(m.a, m.b) for m in doc.equivalence.mismatches}
    assert ("other-lr", "kept") in found or ("kept", "other-lr") in found


def test_the_progress_note_gives_a_trend_only_when_both_outputs_are_scalars():
    carrier = Carrier(Step(lambda s: (s + 1, s), 0))
    carrier.first_out, carrier.last_out, carrier.calls = jnp.float32(4.0), jnp.ones(2), 2
    assert carrier.progress_note() == "stateful step: the state was carried through 2 calls"
    carrier.first_out, carrier.last_out = jnp.ones(2), jnp.float32(1.0)
    assert carrier.progress_note() == "stateful step: the state was carried through 2 calls"
    carrier.first_out, carrier.last_out = jnp.float32(4.0), jnp.float32(1.0)
    assert carrier.progress_note().endswith("; its output went from 4 to 1")


def test_state_and_inputs_already_on_the_device_are_timed_as_built():
    """Committing them made every step take jax.jit's committed-argument path, which the user's
    training loop does not (the same fault as a Bench's arguments: tests/test_jit_level.py)."""
    state, x = {"w": jnp.ones(3)}, jnp.ones(3)
    carrier = Carrier(Step(jax.jit(lambda s, x: (s, x.sum())), state, x))
    assert carrier.place(jax.devices()[0]) == []
    assert carrier.state["w"] is state["w"] and carrier.inputs[0] is x
