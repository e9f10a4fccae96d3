"""The small CNN of the Flax docs, forward pass, in Linen and in NNX called every way NNX offers:
default `nnx.jit`, `nnx.jit(graph=False)`, split/merge around `jax.jit`, `nnx.cached_partial`,
`nnx.jit_partial` and a closure. Linen and NNX get the same weights."""

from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np

from tuiperf import Bench, Int, Scenario, Skip, nnx_jit_level

scenario = Scenario(
    title="Flax NNX vs Linen: small CNN forward",
    question=(
        "Is NNX slower than Linen for the same CNN, and which way of calling NNX removes the gap? The "
        "original report (seed 002; jax 0.4.37, flax 0.10.2, T4 GPU) found NNX "
        "noticeably slower than Linen on the Flax-docs CNN and blamed compilation and memory management. "
        "The cost is per call and in Python: default nnx.jit (graph mode) flattens and unflattens the "
        "module graph on every call and returns every parameter from the executable. How to read it: "
        "compare each NNX variant with linen-jax.jit; in the Breakdown tab, 'framework' is NNX's Python "
        "work per call (call minus the same program through jax.jit) and 'outputs' is rebuilding the "
        "returned state on the host. Raise "
        "batch until compute dominates and the variants converge. nnx-closure bakes the weights in as "
        "constants: fast, but stale after an in-place update."
    ),
    params=dict(
        batch=Int(8, min=1, max=4096, help="28x28x1 images per call"),
        c1=Int(32, min=1, max=1024, help="channels of the first 3x3 conv"),
        c2=Int(64, min=1, max=1024, help="channels of the second 3x3 conv"),
        hidden=Int(256, min=1, max=65536, help="features of the hidden dense layer"),
    ),
)

CLOSURE_NOTE = "weights are compile-time constants here: a different program, stale after an in-place update"


@scenario.setup
def build(p):
    """One set of weights in Flax's layouts (conv HWIO, dense (in, out)), shared by Linen and NNX."""
    rng = np.random.default_rng(0)

    def uniform(shape, fan_in):
        bound = 1 / np.sqrt(fan_in)
        return jnp.asarray(rng.uniform(-bound, bound, shape), jnp.float32)

    flat = 7 * 7 * p.c2  # 28 -> 14 -> 7 after two 2x2 average pools
    weights = {
        "conv1": (uniform((3, 3, 1, p.c1), 9), uniform(p.c1, 9)),
        "conv2": (uniform((3, 3, p.c1, p.c2), 9 * p.c1), uniform(p.c2, 9 * p.c1)),
        "dense1": (uniform((flat, p.hidden), flat), uniform(p.hidden, flat)),
        "dense2": (uniform((p.hidden, 10), p.hidden), uniform(10, p.hidden)),
    }
    x = jnp.asarray(rng.standard_normal((p.batch, 28, 28, 1)), jnp.float32)
    return SimpleNamespace(x=x, weights=weights, nnx_model=lambda: make_nnx(p, weights))


def make_linen(p, weights):
    import flax.linen as nn

    class CNN(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.avg_pool(nn.relu(nn.Conv(p.c1, (3, 3), name="conv1")(x)), (2, 2), strides=(2, 2))
            x = nn.avg_pool(nn.relu(nn.Conv(p.c2, (3, 3), name="conv2")(x)), (2, 2), strides=(2, 2))
            x = x.reshape(x.shape[0], -1)
            x = nn.relu(nn.Dense(p.hidden, name="dense1")(x))
            return nn.Dense(10, name="dense2")(x)

    variables = {"params": {name: {"kernel": k, "bias": b} for name, (k, b) in weights.items()}}
    return CNN(), variables


def make_nnx(p, weights):
    from flax import nnx

    def init(name):  # initializers that return our weights instead of random ones
        kernel, bias = weights[name]
        return dict(kernel_init=lambda *_: kernel, bias_init=lambda *_: bias, rngs=nnx.Rngs(0))

    class CNN(nnx.Module):
        def __init__(self):
            self.conv1 = nnx.Conv(1, p.c1, (3, 3), **init("conv1"))
            self.conv2 = nnx.Conv(p.c1, p.c2, (3, 3), **init("conv2"))
            self.dense1 = nnx.Linear(7 * 7 * p.c2, p.hidden, **init("dense1"))
            self.dense2 = nnx.Linear(p.hidden, 10, **init("dense2"))

        def __call__(self, x):
            x = nnx.avg_pool(nnx.relu(self.conv1(x)), (2, 2), strides=(2, 2))
            x = nnx.avg_pool(nnx.relu(self.conv2(x)), (2, 2), strides=(2, 2))
            x = x.reshape(x.shape[0], -1)
            x = nnx.relu(self.dense1(x))
            return self.dense2(x)

    return CNN()


def forward(model, x):
    return model(x)


@scenario.variant("linen-jax.jit")
def _(p, ctx):
    """`jax.jit(model.apply)(variables, x)`: the reference."""
    model, variables = make_linen(p, ctx.weights)
    return Bench(jax.jit(model.apply), variables, ctx.x, params=variables)


@scenario.variant("nnx-nnx.jit")
def _(p, ctx):
    """Default `nnx.jit` (graph mode): the module graph is handled in Python on every call."""
    from flax import nnx

    model = ctx.nnx_model()
    jit_fn, jit_args = nnx_jit_level(forward, model, ctx.x)
    return Bench(nnx.jit(forward), model, ctx.x, jit_fn=jit_fn, jit_args=jit_args, params=nnx.state(model))


@scenario.variant("nnx-nnx.jit-graph-false")
def _(p, ctx):
    """`nnx.jit(forward, graph=False)`: the module treated as a plain pytree."""
    import inspect

    from flax import nnx

    if "graph" not in inspect.signature(nnx.jit).parameters:
        raise Skip("this Flax's nnx.jit has no graph= argument")
    model = ctx.nnx_model()
    jit_fn, jit_args = nnx_jit_level(forward, model, ctx.x)
    return Bench(nnx.jit(forward, graph=False), model, ctx.x, jit_fn=jit_fn, jit_args=jit_args, params=nnx.state(model))


@scenario.variant("nnx-split-merge")
def _(p, ctx):
    """`nnx.split` once; `jax.jit` a function that `nnx.merge`s the state back inside."""
    from flax import nnx

    model = ctx.nnx_model()
    graphdef, state = nnx.split(model)

    @jax.jit
    def split_merge(state, x):
        return nnx.merge(graphdef, state)(x)

    return Bench(split_merge, state, ctx.x, params=state)


@scenario.variant("nnx-cached_partial")
def _(p, ctx):
    """`nnx.cached_partial(nnx.jit(forward), model)`: the graph traversal is cached (graph mode only)."""
    from flax import nnx

    if not hasattr(nnx, "cached_partial"):
        raise Skip("this Flax has no nnx.cached_partial")
    model = ctx.nnx_model()
    jit_fn, jit_args = nnx_jit_level(forward, model, ctx.x)
    return Bench(
        nnx.cached_partial(nnx.jit(forward), model), ctx.x, jit_fn=jit_fn, jit_args=jit_args, params=nnx.state(model)
    )


@scenario.variant("nnx-jit_partial")
def _(p, ctx):
    """`nnx.jit_partial(forward, model, graph=False)`: the model pre-flattened once, tree mode."""
    from flax import nnx

    if not hasattr(nnx, "jit_partial"):
        raise Skip("this Flax has no nnx.jit_partial")
    model = ctx.nnx_model()
    jit_fn, jit_args = nnx_jit_level(forward, model, ctx.x)
    return Bench(
        nnx.jit_partial(forward, model, graph=False), ctx.x, jit_fn=jit_fn, jit_args=jit_args, params=nnx.state(model)
    )


@scenario.variant("nnx-closure")
def _(p, ctx):
    """The module captured by a `jax.jit` closure; only x is an argument."""
    from flax import nnx

    model = ctx.nnx_model()
    return Bench(jax.jit(lambda x: model(x)), ctx.x, params=nnx.state(model), note=CLOSURE_NOTE)
