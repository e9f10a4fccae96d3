import jax
import jax.numpy as jnp

from tuiperf import Bench, Int, Scenario

scenario = Scenario(
    "jit vs eager",
    "What does jax.jit buy for a few small elementwise ops?",
    params=dict(size=Int(1024, min=1, max=1 << 24, help="vector length")),
)


def f(x):
    return jnp.sin(x) ** 2 + jnp.cos(x) ** 2


@scenario.setup
def build(p):  # once per run: what every variant shares (p.size is an int)
    return jnp.ones(p.size)


@scenario.variant("jit")
def _(p, x):
    return Bench(jax.jit(f), x)


@scenario.variant("eager")
def _(p, x):
    return Bench(f, x, eager=True)
