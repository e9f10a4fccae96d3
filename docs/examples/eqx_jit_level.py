"""The jit level of `eqx.filter_jit`: give `eqx_filter_jit_level` the raw function, the one you wrap,
and the same arguments. Every variant uses the one model `setup` built, so the guard can compare them."""

import equinox as eqx
import jax
import jax.numpy as jnp

from tuiperf import Bench, Int, Scenario, eqx_filter_jit_level

scenario = Scenario(
    "eqx.filter_jit vs jax.jit",
    "How much does eqx.filter_jit add to one MLP call?",
    params=dict(width=Int(16, min=1, max=4096)),
)


@scenario.setup
def build(p):  # the weights, once: variants that built their own would differ, and the guard says so
    model = eqx.nn.MLP(p.width, p.width, p.width, depth=2, key=jax.random.key(0))
    return model, jnp.ones(p.width)


def forward(model, x):  # the raw function
    return model(x)


@scenario.variant("eqx.filter_jit")
def _(p, ctx):
    model, x = ctx
    jit_fn, jit_args = eqx_filter_jit_level(forward, model, x)  # forward, not eqx.filter_jit(forward)
    return Bench(eqx.filter_jit(forward), model, x, jit_fn=jit_fn, jit_args=jit_args)


@scenario.variant("jax.jit")
def _(p, ctx):
    model, x = ctx
    arrays, static = eqx.partition(model, eqx.is_array)  # jax.jit takes arrays only: partition once, here

    @jax.jit
    def call(arrays, x):
        return forward(eqx.combine(arrays, static), x)

    return Bench(call, arrays, x)  # a jax.jit function is its own jit level
