"""What `eqx.filter_jit` adds per call over `jax.jit`, on an identity module and on MLPs, for a
forward pass or a whole training step, with and without pre-flattening the model."""

from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np

from tuiperf import Bench, Choice, Int, Scenario, eqx_filter_jit_level

LEARNING_RATE = 1e-2

scenario = Scenario(
    title="eqx.filter_jit vs jax.jit",
    question=(
        "How much does eqx.filter_jit add to each call compared with jax.jit, and does the gap shrink "
        "as the model grows? The original report (seed 003, cf. equinox issue #973; Equinox of early 2025) "
        "measured eqx.nn.Identity at 53.2 µs (jax.jit) vs 423 µs (filter_jit), MLPs of width 2^5 at 378 vs "
        "863 µs and 2^8 at 8.7 vs 9.67 ms, and its profile named `hashable_partition` and "
        "`currently_jitting`. How to read it: filter_jit minus jax.jit is the wrapper's fixed cost; the "
        "Breakdown tab splits it into Python work ('framework') and JAX's own ('jit dispatch': Equinox "
        "hands JAX a tuple as long as the "
        "leaf list plus a static argument it must hash). The -preflattened variants pass a flat leaf "
        "list instead of the module, removing the pytree walk. Raise width (powers of two up to 2^12) "
        "and batch until compute dominates and the ratio approaches 1. The MLP here is a module of "
        "eqx.nn.Linear layers with relu in its __call__, because eqx.nn.MLP stores its activation "
        "functions as leaves, which jax.jit rejects."
    ),
    params=dict(
        model=Choice("identity", choices=("identity", "mlp"), help="eqx.nn.Identity or an MLP"),
        width=Int(32, min=1, max=1 << 12, help="input size, and the MLP's hidden and output size"),
        depth=Int(3, min=1, max=64, help="Linear layers of the MLP (mlp only)"),
        batch=Int(0, min=0, max=1 << 20, help="rows of input; 0 = a single unbatched vector"),
        step=Choice(
            "forward",
            choices=("forward", "train"),
            help="forward pass, or value_and_grad of a squared loss plus an SGD update",
        ),
    ),
)


def make_mlp(weights, biases):
    import equinox as eqx

    class MLP(eqx.Module):
        layers: tuple

        def __call__(self, x):
            if x.ndim == 2:
                return jax.vmap(self)(x)
            for layer in self.layers[:-1]:
                x = jax.nn.relu(layer(x))
            return self.layers[-1](x)

    layers = []
    for w, b in zip(weights, biases):
        # The layer's structure without running its random init, then our arrays.
        lin = eqx.filter_eval_shape(eqx.nn.Linear, w.shape[1], w.shape[0], key=jax.random.key(0))
        layers.append(eqx.tree_at(lambda layer: (layer.weight, layer.bias), lin, (w, b)))
    return MLP(tuple(layers))


@scenario.setup
def build(p):
    import equinox as eqx

    rng = np.random.default_rng(0)
    if p.model == "identity":
        model = eqx.nn.Identity()
    else:
        bound = 1 / np.sqrt(p.width)
        weights = [jnp.asarray(rng.uniform(-bound, bound, (p.width, p.width)), jnp.float32) for _ in range(p.depth)]
        biases = [jnp.asarray(rng.uniform(-bound, bound, p.width), jnp.float32) for _ in range(p.depth)]
        model = make_mlp(weights, biases)
    shape = (p.batch, p.width) if p.batch else (p.width,)
    x = jnp.asarray(rng.standard_normal(shape), jnp.float32)
    y = jnp.asarray(rng.standard_normal(shape), jnp.float32)
    inputs = (x,) if p.step == "forward" else (x, y)
    return SimpleNamespace(model=model, inputs=inputs)


def forward(model, x):
    return model(x)


def train_step(model, x, y):
    def loss_fn(model):
        return jnp.mean((model(x) - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(model)
    return loss, jax.tree.map(lambda w, g: w - LEARNING_RATE * g, model, grads)


def step_fn(p):
    return forward if p.step == "forward" else train_step


def on_leaves(step, model):
    """The pre-flattened form of ``step``: takes and returns the model as a flat list of leaves."""
    leaves, treedef = jax.tree.flatten(model)

    def step_on_leaves(leaves, *inputs):
        out = step(jax.tree.unflatten(treedef, leaves), *inputs)
        return out if step is forward else (out[0], jax.tree.leaves(out[1]))

    return step_on_leaves, leaves


@scenario.variant("jax.jit")
def _(p, ctx):
    """The module passed straight to `jax.jit` (all its leaves are arrays)."""
    return Bench(jax.jit(step_fn(p)), ctx.model, *ctx.inputs, params=ctx.model)


@scenario.variant("eqx.filter_jit")
def _(p, ctx):
    """The same function through `eqx.filter_jit`; jit level: what it hands to JAX."""
    import equinox as eqx

    jit_fn, jit_args = eqx_filter_jit_level(step_fn(p), ctx.model, *ctx.inputs)
    return Bench(eqx.filter_jit(step_fn(p)), ctx.model, *ctx.inputs, jit_fn=jit_fn, jit_args=jit_args, params=ctx.model)


@scenario.variant("jax.jit-preflattened")
def _(p, ctx):
    """`jax.jit` over the flat leaf list (flattened once, outside the timed call)."""
    fn, leaves = on_leaves(step_fn(p), ctx.model)
    return Bench(jax.jit(fn), leaves, *ctx.inputs, params=leaves)


@scenario.variant("eqx.filter_jit-preflattened")
def _(p, ctx):
    """`eqx.filter_jit` over the flat leaf list: its partition now walks a list."""
    import equinox as eqx

    fn, leaves = on_leaves(step_fn(p), ctx.model)
    jit_fn, jit_args = eqx_filter_jit_level(fn, leaves, *ctx.inputs)
    return Bench(eqx.filter_jit(fn), leaves, *ctx.inputs, jit_fn=jit_fn, jit_args=jit_args, params=leaves)
