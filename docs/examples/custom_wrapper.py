"""The jit level of a wrapper that is neither Equinox nor NNX (here a `jax.custom_jvp` around a jitted
function): `jit_fn, jit_args` are the `jax.jit` function JAX ends up calling and the arguments it
gets, so the breakdown's framework stage is what the wrapper adds in Python. A wrapper whose inner
function you cannot reach: `jit_fn=jax.jit(wrapper)` over the same arguments. A static argument may go
in `jit_args` when `jit_fn` declares it static: it stays a constant of the program."""

import functools

import jax
import jax.numpy as jnp

from tuiperf import Bench, Int, Scenario

scenario = Scenario(
    "a custom_jvp wrapper",
    "What does a custom_jvp around a jitted function add per call?",
    params=dict(size=Int(256, min=1, max=1 << 20), power=Int(3, min=1, max=8)),
)


def softplus_pow(x, power):
    return jnp.log1p(jnp.exp(x)) ** power


inner = jax.jit(softplus_pow, static_argnums=1)  # power is static: a new value is a new program


@functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
def wrapped(x, power):  # the wrapper scenario authors call
    return inner(x, power)


@wrapped.defjvp
def _(power, primals, tangents):  # d/dx softplus(x) ** power
    (x,), (dx,) = primals, tangents
    return inner(x, power), power * jnp.log1p(jnp.exp(x)) ** (power - 1) * jax.nn.sigmoid(x) * dx


@scenario.setup
def build(p):
    return jnp.linspace(-2.0, 2.0, p.size)


@scenario.variant("custom_jvp")
def _(p, x):
    return Bench(wrapped, x, p.power, jit_fn=inner, jit_args=(x, p.power))  # static p.power in jit_args


@scenario.variant("jax.jit")
def _(p, x):
    return Bench(inner, x, p.power)
