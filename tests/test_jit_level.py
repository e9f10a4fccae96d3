"""The jit-level helpers compute what the wrapped call computes: same XLA FLOPs, updates included."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax
import pytest

from tuiperf import Bench, eqx_filter_jit_level, nnx_jit_level
from tuiperf.measuring.prepare import prepare


def nnx_training_step():
    from flax import nnx

    class MLP(nnx.Module):
        def __init__(self, rngs):
            self.hidden = nnx.Linear(4, 16, rngs=rngs)
            self.out = nnx.Linear(16, 1, rngs=rngs)

        def __call__(self, x):
            return self.out(jax.nn.relu(self.hidden(x)))

    model = MLP(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
    x, y = jnp.ones((8, 4)), jnp.zeros((8, 1))

    def step(model, optimizer, x, y):
        loss, grads = nnx.value_and_grad(lambda m: ((m(x) - y) ** 2).mean())(model)
        optimizer.update(model, grads)
        return loss

    return step, model, optimizer, x, y


@pytest.mark.slow
def test_nnx_jit_level_of_a_training_step_keeps_the_backward_pass_and_update():
    from flax import nnx

    step, model, optimizer, x, y = nnx_training_step()
    jit_fn, jit_args = nnx_jit_level(step, model, optimizer, x, y)
    prepared = prepare("nnx.jit", Bench(nnx.jit(step), model, optimizer, x, y, jit_fn=jit_fn, jit_args=jit_args))
    assert prepared.built.paths is not None and prepared.built.call_flops is not None
    assert prepared.built.paths.program.flops == pytest.approx(prepared.built.call_flops)

    graphdef, state = nnx.split((model, optimizer))

    def loss_only(state, x, y):  # what the helper used to build: XLA drops the backward pass
        return step(*nnx.merge(graphdef, state), x, y)

    forward = prepare(
        "old level", Bench(nnx.jit(step), model, optimizer, x, y, jit_fn=jax.jit(loss_only), jit_args=(state, x, y))
    )
    assert (
        forward.built.paths is not None and forward.built.paths.program.flops < 0.6 * prepared.built.paths.program.flops
    )


def test_nnx_jit_level_needs_a_graph_node():
    with pytest.raises(ValueError, match="no NNX module"):
        nnx_jit_level(lambda x: x, jnp.ones(3))


@pytest.mark.slow
def test_eqx_filter_jit_level_computes_what_filter_jit_computes():
    import equinox as eqx

    model = eqx.nn.MLP(4, 2, 8, 2, key=jax.random.key(0))
    x = jnp.ones(4)
    jit_fn, jit_args = eqx_filter_jit_level(lambda m, x: m(x), model, x)
    prepared = prepare(
        "filter_jit", Bench(eqx.filter_jit(lambda m, x: m(x)), model, x, jit_fn=jit_fn, jit_args=jit_args)
    )
    assert prepared.built.paths is not None and prepared.built.call_flops is not None
    assert prepared.built.paths.program.flops == pytest.approx(prepared.built.call_flops)


def test_arguments_already_on_the_run_device_are_timed_as_built():
    """Committing them (device_put) made every call take jax.jit's committed-argument path, which a
    user's script does not: the dispatch floor read ~1 % above a plain loop over the same function."""
    from tuiperf.measuring.prepare import place_inputs

    built, scalar = jnp.ones(3), 2.0
    bench = Bench(lambda a, s: a * s, built, scalar)
    assert place_inputs(bench, jax.devices()[0]) == []
    assert bench.args[0] is built and bench.args[1] is scalar


def test_an_aot_executable_is_not_said_to_lack_an_ahead_of_time_api():
    """dispatch-floor's aot-compiled variant, the one AOT executable, was warned 'no ahead-of-time API:
    compile time is part of the first call'."""
    from tuiperf.measuring.prepare import aot_stages

    x = jnp.ones(4)
    executable = jax.jit(jnp.sin).trace(x).lower().compile()
    stages, compiled, note = aot_stages(executable, (x,))
    assert compiled is None and stages == {"trace": None, "lower": None, "compile": None}
    assert "no ahead-of-time API" not in note and note.startswith("an ahead-of-time compiled executable")
    assert aot_stages(lambda v: v, (x,))[2] == "no ahead-of-time API: compile time is part of the first call"
