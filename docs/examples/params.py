"""What `params=` takes: a dict from each parameter's name to its declaration (Int, Float, Choice, Bool).
Variants and setup receive the parsed values as attributes of `p`, already of the declared type."""

import jax
import jax.numpy as jnp

from tuiperf import Bench, Bool, Choice, Float, Int, Scenario

scenario = Scenario(
    "parameters of every kind",
    "What does each parameter kind give a variant?",
    params=dict(
        size=Int(64, min=1, max=1 << 20, help="vector length"),  # Int(default, *, min, max, help)
        scale=Float(0.5, min=0.0, max=10.0, help="a factor"),  # Float(default, *, min, max, help)
        dtype=Choice("float32", choices=("float32", "bfloat16"), help="element type"),
        negate=Bool(False, help="negate the result"),  # true/false, yes/no, on/off, 1/0
    ),
    tolerance=lambda p: 1e-2 if p.dtype == "bfloat16" else 1e-5,  # may depend on the parameters
)


@scenario.check
def check(p):  # values that contradict each other: raise ValueError
    if p.dtype == "bfloat16" and p.size > 1 << 16:
        raise ValueError("bfloat16 runs are limited to 65,536 elements here")


@scenario.setup
def build(p):
    assert isinstance(p.size, int) and isinstance(p.scale, float) and isinstance(p.negate, bool)
    return jnp.ones(p.size, jnp.dtype(p.dtype))


def f(x, scale, negate):
    y = x * scale
    return -y if negate else y


@scenario.variant("jax.jit")
def _(p, x):
    return Bench(jax.jit(f, static_argnums=2), x, p.scale, p.negate)


@scenario.variant("eager")
def _(p, x):
    return Bench(f, x, p.scale, p.negate, eager=True)
