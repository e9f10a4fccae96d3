"""Compile time of a loop: an unrolled Python loop vs `lax.scan` vs `lax.fori_loop`.

From jax#2777 and jax#16611 (and equinox#770, #945): a Python `for` loop inside a jitted function is
unrolled into the program, so tracing, lowering and XLA's compile grow with the number of steps, while
`lax.scan` and `fori_loop` trace the body once and compile a while loop whose size does not depend on
the steps. Run it with `--measure compile` (trace, lower, compile and the first call, repeated) and sweep
`steps` to see how each grows.
"""

from types import SimpleNamespace

import jax
import jax.numpy as jnp
from jax import lax

from tuiperf import Bench, Int, Scenario

scenario = Scenario(
    title="Loop compile time: unrolled vs lax.scan vs fori_loop",
    question=(
        "Why does my jitted function take so long to compile? A Python loop is unrolled into the program: "
        "tracing, lowering and XLA's compile grow with its steps, while lax.scan and fori_loop compile one "
        "body inside a while loop. Measure with --measure compile; sweep steps for the growth of each."
    ),
    params=dict(
        steps=Int(32, min=1, max=100_000, help="iterations of the loop"),
        size=Int(64, min=1, max=1 << 24, help="elements of the carried vector"),
    ),
)


def step(c):
    return jnp.sin(c) * 1.01 + 0.5


@scenario.setup
def build(p):
    return SimpleNamespace(x=jnp.linspace(0.0, 1.0, p.size, dtype=jnp.float32))


@scenario.variant("lax.scan")
def scanned(p, ctx):
    """`lax.scan` over `steps`: the body is traced once and compiled inside a while loop."""

    def run(c):
        return lax.scan(lambda c, _: (step(c), None), c, None, length=p.steps)[0]

    return Bench(jax.jit(run), ctx.x)


@scenario.variant("fori_loop")
def fori(p, ctx):
    """`lax.fori_loop` with static bounds: a scan (or while loop) underneath, the body traced once."""
    return Bench(jax.jit(lambda c: lax.fori_loop(0, p.steps, lambda i, c: step(c), c)), ctx.x)


@scenario.variant("unrolled")
def unrolled(p, ctx):
    """A Python `for` loop: `steps` copies of the body in the jaxpr, the HLO and XLA's compile."""

    def run(c):
        for _ in range(p.steps):
            c = step(c)
        return c

    return Bench(jax.jit(run), ctx.x)
