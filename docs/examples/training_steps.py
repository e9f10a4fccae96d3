"""One SGD step of a linear model, two ways: a functional step that donates its state (plain JAX) and
an in-place NNX step. Both start from the same weights and see the same batches, so the guard can
compare the loss and the weights after three steps."""

import jax
import jax.numpy as jnp
import numpy as np
import optax

from tuiperf import Int, Scenario, Step

scenario = Scenario(
    "training step: plain JAX vs NNX",
    "What does one SGD step cost, functional and donated, or in place?",
    params=dict(width=Int(8, min=1, max=4096), batch=Int(4, min=1, max=4096)),
)


@scenario.setup
def build(p):
    rng = np.random.default_rng(0)
    w = jnp.asarray(rng.normal(size=(p.width, p.width)), jnp.float32)
    xs = [jnp.asarray(rng.normal(size=(p.batch, p.width)), jnp.float32) for _ in range(4)]
    return dict(w=w, batches=[(x, x @ w.T) for x in xs])  # pool: [(x0, y0), (x1, y1), ...]


def loss_of(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@scenario.variant("jax.jit-donated")
def _(p, ctx):
    opt = optax.sgd(0.1)

    def step(state, x, y):  # (new state, loss) = step(state, x, y)
        w, opt_state = state
        loss, grad = jax.value_and_grad(loss_of)(w, x, y)
        updates, opt_state = opt.update(grad, opt_state)
        return (optax.apply_updates(w, updates), opt_state), loss

    w = ctx["w"]
    return Step(
        jax.jit(step, donate_argnums=0),  # the state is donated: tuiperf copies it first and carries it
        (w, opt.init(w)),
        pool=ctx["batches"],  # each tuple is unpacked: step(state, x, y)
        compare=lambda state, loss: {"loss": loss, "w": state[0]},
    )


@scenario.variant("nnx.jit-in-place")
def _(p, ctx):
    from flax import nnx

    model = nnx.Linear(p.width, p.width, use_bias=False, rngs=nnx.Rngs(0))
    model.kernel[...] = ctx["w"].copy()  # the same weights as the other variant
    optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)

    @nnx.jit
    def train_step(model, optimizer, x, y):  # NNX updates model and optimizer in place, returns the loss
        loss, grads = nnx.value_and_grad(lambda m: jnp.mean((m(x) - y) ** 2))(model)
        optimizer.update(model, grads)
        return loss

    return Step(
        train_step,
        (model, optimizer),
        pool=ctx["batches"],
        inplace=True,
        compare=lambda state, loss: {"loss": loss, "w": state[0].kernel[...]},
    )
