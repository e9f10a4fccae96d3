"""Donating part of a Step's state: what is carried (the state, the step's first argument) is what
`donate_argnums=0` donates; what must not be donated (here a frozen embedding table) goes in the
inputs, which tuiperf passes to every call as they are. Pool entries are tuples, unpacked into the
step's arguments after the state: step(state, table, x, y)."""

import jax
import jax.numpy as jnp
import numpy as np

from tuiperf import Bool, Int, Scenario, Step

scenario = Scenario(
    "donate the weights, keep the table",
    "What does donating the trained weights (not a frozen table) save per step?",
    params=dict(width=Int(8, min=1, max=4096), donate=Bool(True, help="donate the carried state")),
)


@scenario.setup
def build(p):
    rng = np.random.default_rng(0)
    table = jnp.asarray(rng.normal(size=(16, p.width)), jnp.float32)  # frozen: never donated
    w = jnp.asarray(rng.normal(size=(p.width, p.width)), jnp.float32)
    ids = [jnp.asarray(rng.integers(0, 16, size=4)) for _ in range(3)]
    return dict(w=w, pool=[(table, i, jnp.ones((4, p.width))) for i in ids])


def step(w, table, ids, y):  # (new w, loss)
    def loss_of(w):
        return jnp.mean((table[ids] @ w - y) ** 2)

    loss, grad = jax.value_and_grad(loss_of)(w)
    return w - 0.1 * grad, loss


@scenario.variant("donated")
def _(p, ctx):
    jitted = jax.jit(step, donate_argnums=0 if p.donate else ())  # argument 0: the carried state only
    return Step(jitted, ctx["w"], pool=ctx["pool"], compare=lambda w, loss: {"loss": loss, "w": w})


@scenario.variant("not-donated")
def _(p, ctx):
    return Step(jax.jit(step), ctx["w"], pool=ctx["pool"], compare=lambda w, loss: {"loss": loss, "w": w})
