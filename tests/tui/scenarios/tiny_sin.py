"""A tiny, fast scenario for the TUI tests: jnp.sin of a small vector, plus a variant that fails."""

from types import SimpleNamespace

import jax
import jax.numpy as jnp

from tuiperf import Bench, Bool, Choice, Float, Int, Scenario

scenario = Scenario(
    title="Tiny sine",
    question="How long does jnp.sin of a tiny vector take? (test scenario)",
    params=dict(
        size=Int(8, min=1, max=4096, help="vector length"),
        scale=Float(1.0, min=0.0, max=10.0, help="multiplier"),
        dtype=Choice("float32", choices=("float32", "float16"), help="element type"),
        double=Bool(False, help="apply sin twice"),
    ),
)


@scenario.setup
def make(p):
    return SimpleNamespace(x=jnp.ones(p.size, getattr(jnp, p.dtype)) * p.scale)


def f(x):
    return jnp.sin(x)


@scenario.variant("jit")
def jitted(p, ctx):
    """jax.jit of jnp.sin"""
    return Bench(jax.jit(f), ctx.x)


@scenario.variant("aot")
def aot(p, ctx):
    """the compiled executable"""
    return Bench(jax.jit(f).trace(ctx.x).lower().compile(), ctx.x)


@scenario.variant("broken")
def broken(p, ctx):
    """always fails"""
    raise RuntimeError("this variant is broken on purpose")
