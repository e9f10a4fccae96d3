"""One MLP in Equinox, Flax Linen and Flax NNX, called three ways: model captured by a closure,
model passed as an argument through each library's jit, and model pre-flattened to a leaf list.

All libraries get the same weights (generated once in ``build``), so every variant computes the
same numbers and the equivalence guard can check it.
"""

import itertools
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np

from tuiperf import Bench, Choice, Int, Scenario, eqx_filter_jit_level, nnx_jit_level, preflatten

scenario = Scenario(
    title="MLP: closure vs argument vs pre-flattened (Equinox, Linen, NNX)",
    question=(
        "What does passing the model as a jit argument cost compared with capturing it in a closure, "
        "and does the library or the weight layout decide the winner? The original report (seed 000, "
        "cf. equinox issue #928; Equinox/Flax of early 2025) timed a 3-layer MLP: closure 14.8 µs "
        "(Equinox) vs 12 µs (Flax); as an argument eqx.filter_jit 185 µs, Equinox through jax.jit "
        "43.6 µs, Flax apply 19.6 µs. It blamed a fixed ~20 µs pytree-flatten cost, removable by "
        "pre-flattening, and claimed that transposing the weights swaps which library wins. How to read "
        "it: closure vs jax.jit of the same library is the cost of passing parameters (flattening plus "
        "per-argument dispatch); *-preflattened vs *-jax.jit is the pytree-walk part of it; the Breakdown "
        "tab's 'framework' stage of eqx-filter_jit and nnx-nnx.jit is the wrapper's Python work. Run "
        "layout=native and layout=transposed to see whether the layout changes the ranking (each library "
        "then stores the other's layout). Closures bake the weights in as compile-time constants: a "
        "different program (with bfloat16/float16 even fewer FLOPs, which the equivalence guard reports), "
        "and stale after an in-place update."
    ),
    params=dict(
        in_size=Int(32, min=1, max=65536, help="input features"),
        width=Int(64, min=1, max=16384, help="hidden features"),
        depth=Int(3, min=1, max=64, help="number of Linear layers (relu between them)"),
        out_size=Int(8, min=1, max=65536, help="output features"),
        batch=Int(0, min=0, max=1 << 20, help="rows of input; 0 = a single unbatched vector"),
        dtype=Choice("float32", choices=("float32", "bfloat16", "float16"), help="weights and inputs"),
        layout=Choice(
            "native",
            choices=("native", "transposed"),
            help="native: Equinox W (out,in), Flax kernel (in,out); transposed: the other way round",
        ),
    ),
    # Half-precision matmuls may accumulate in a different order per library or backend.
    tolerance=lambda p: 1e-4 if p.dtype == "float32" else 2e-2,
)

# --- the same MLP in each library ------------------------------------------------------------------


def _eqx_model(ws, bs, layout):
    import equinox as eqx

    class LinearT(eqx.Module):  # Flax's layout in Equinox: weight (in, out)
        weight: jax.Array
        bias: jax.Array

        def __call__(self, x):
            return x @ self.weight + self.bias

    class MLP(eqx.Module):
        layers: tuple

        def __call__(self, x):
            if x.ndim == 2:  # Equinox layers are unbatched: vmap over rows
                return jax.vmap(self)(x)
            for layer in self.layers[:-1]:
                x = jax.nn.relu(layer(x))
            return self.layers[-1](x)

    layers = []
    for w, b in zip(ws, bs):
        if layout == "native":
            # Build the layer's structure without running its random init, then load our arrays.
            out_f, in_f = w.shape
            lin = eqx.filter_eval_shape(eqx.nn.Linear, in_f, out_f, key=jax.random.key(0), dtype=w.dtype)
            layers.append(eqx.tree_at(lambda layer: (layer.weight, layer.bias), lin, (w, b)))
        else:
            layers.append(LinearT(w.T, b))
    return MLP(tuple(layers))


def _linen_model(ws, bs, layout):
    import flax.linen as nn

    class DenseT(nn.Module):  # Equinox's layout in Linen: kernel (out, in)
        features: int

        @nn.compact
        def __call__(self, x):
            kernel = self.param("kernel", nn.initializers.lecun_normal(), (self.features, x.shape[-1]))
            bias = self.param("bias", nn.initializers.zeros, (self.features,))
            return x @ kernel.T + bias

    class MLP(nn.Module):
        features: tuple

        @nn.compact
        def __call__(self, x):
            dense = nn.Dense if layout == "native" else DenseT
            for i, f in enumerate(self.features):
                x = dense(f, name=f"layer{i}")(x)
                if i < len(self.features) - 1:
                    x = nn.relu(x)
            return x

    model = MLP(tuple(w.shape[0] for w in ws))
    kernels = [w.T if layout == "native" else w for w in ws]
    variables = {"params": {f"layer{i}": {"kernel": k, "bias": b} for i, (k, b) in enumerate(zip(kernels, bs))}}
    return model, variables


def _nnx_model(ws, bs, layout):
    from flax import nnx

    class LinearT(nnx.Module):  # Equinox's layout in NNX: kernel (out, in)
        def __init__(self, w, b):
            self.kernel, self.bias = nnx.Param(w), nnx.Param(b)

        def __call__(self, x):
            return x @ self.kernel[...].T + self.bias[...]

    class MLP(nnx.Module):
        def __init__(self, layers):
            self.layers = nnx.List(layers)

        def __call__(self, x):
            for layer in self.layers[:-1]:
                x = jax.nn.relu(layer(x))
            return self.layers[-1](x)

    layers = []
    for w, b in zip(ws, bs):
        if layout == "native":
            out_f, in_f = w.shape  # the initializers just return our arrays
            layers.append(
                nnx.Linear(
                    in_f,
                    out_f,
                    param_dtype=w.dtype,
                    rngs=nnx.Rngs(0),
                    kernel_init=lambda *_, k=w.T: k,
                    bias_init=lambda *_, b=b: b,
                )
            )
        else:
            layers.append(LinearT(w, b))
    return MLP(layers)


@scenario.setup
def build(p):
    """Weights in the math layout y = W @ x + b, W of shape (out, in); each library converts."""
    rng = np.random.default_rng(0)
    sizes = [p.in_size] + [p.width] * (p.depth - 1) + [p.out_size]
    ws, bs = [], []
    for fan_in, fan_out in itertools.pairwise(sizes):
        bound = 1 / np.sqrt(fan_in)
        ws.append(jnp.asarray(rng.uniform(-bound, bound, (fan_out, fan_in)), p.dtype))
        bs.append(jnp.asarray(rng.uniform(-bound, bound, fan_out), p.dtype))
    shape = (p.batch, p.in_size) if p.batch else (p.in_size,)
    x = jnp.asarray(rng.standard_normal(shape), p.dtype)
    return SimpleNamespace(
        x=x,
        eqx=_eqx_model(ws, bs, p.layout),
        linen=_linen_model(ws, bs, p.layout),
        nnx=_nnx_model(ws, bs, p.layout),
    )


def forward(model, x):
    return model(x)


CLOSURE_NOTE = "weights are compile-time constants here: a different program, stale after an in-place update"

# --- model passed as an argument (eqx-jax.jit first: the equivalence guard compares with it) -------


@scenario.variant("eqx-jax.jit")
def _(p, ctx):
    """Equinox module passed to `jax.jit` (all its leaves are arrays)."""
    return Bench(jax.jit(forward), ctx.eqx, ctx.x, params=ctx.eqx)


@scenario.variant("eqx-filter_jit")
def _(p, ctx):
    """Equinox module passed to `eqx.filter_jit`; jit level: the partitioned leaves it hands to JAX."""
    import equinox as eqx

    jit_fn, jit_args = eqx_filter_jit_level(forward, ctx.eqx, ctx.x)
    return Bench(eqx.filter_jit(forward), ctx.eqx, ctx.x, jit_fn=jit_fn, jit_args=jit_args, params=ctx.eqx)


@scenario.variant("linen-jax.jit")
def _(p, ctx):
    """`jax.jit(model.apply)(variables, x)`: the usual Linen call."""
    model, variables = ctx.linen
    return Bench(jax.jit(model.apply), variables, ctx.x, params=variables)


@scenario.variant("nnx-nnx.jit")
def _(p, ctx):
    """NNX module passed to default (graph-mode) `nnx.jit`; jit level: split once, merge inside `jax.jit`."""
    from flax import nnx

    jit_fn, jit_args = nnx_jit_level(forward, ctx.nnx, ctx.x)
    return Bench(nnx.jit(forward), ctx.nnx, ctx.x, jit_fn=jit_fn, jit_args=jit_args, params=nnx.state(ctx.nnx))


# --- model captured by a closure -------------------------------------------------------------------


@scenario.variant("eqx-closure")
def _(p, ctx):
    """Equinox module captured by the jitted function; only x is an argument."""
    model = ctx.eqx
    return Bench(jax.jit(lambda x: model(x)), ctx.x, params=model, note=CLOSURE_NOTE)


@scenario.variant("linen-closure")
def _(p, ctx):
    """Linen variables captured by the jitted function; only x is an argument."""
    model, variables = ctx.linen
    return Bench(jax.jit(lambda x: model.apply(variables, x)), ctx.x, params=variables, note=CLOSURE_NOTE)


@scenario.variant("nnx-closure")
def _(p, ctx):
    """NNX module captured by the jitted function; only x is an argument."""
    from flax import nnx

    model = ctx.nnx
    return Bench(jax.jit(lambda x: model(x)), ctx.x, params=nnx.state(model), note=CLOSURE_NOTE)


# --- leaves flattened once, outside; the call passes only the leaf list ----------------------------


@scenario.variant("eqx-preflattened")
def _(p, ctx):
    """Equinox leaves flattened once; the call passes the leaf list."""
    jitted, leaves = preflatten(forward, ctx.eqx)
    return Bench(jitted, leaves, ctx.x, params=leaves)


@scenario.variant("linen-preflattened")
def _(p, ctx):
    """Linen variables flattened once; the call passes the leaf list."""
    model, variables = ctx.linen
    jitted, leaves = preflatten(model.apply, variables)
    return Bench(jitted, leaves, ctx.x, params=leaves)


@scenario.variant("nnx-preflattened")
def _(p, ctx):
    """NNX state flattened once; the jitted function unflattens and merges it."""
    from flax import nnx

    graphdef, state = nnx.split(ctx.nnx)
    jitted, leaves = preflatten(lambda state, x: nnx.merge(graphdef, state)(x), state)
    return Bench(jitted, leaves, ctx.x, params=leaves)
