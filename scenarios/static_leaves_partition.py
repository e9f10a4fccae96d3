"""A model with a few arrays and many static (non-array) leaves, held in 2 or 3 parts, passed to a
jitted function six ways: from a tree-shaped partition (Equinox) to a flat path->array dict (Inox)."""

from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np

from tuiperf import Bench, Choice, Int, Scenario, Skip, eqx_filter_jit_level

scenario = Scenario(
    title="Many static leaves: tree partition vs flat dict",
    question=(
        "What does each call cost when the model carries many static (non-array) leaves, and how does "
        "the way it is partitioned change that? The original report (seed 004, cf. equinox issue #824; older "
        "Equinox) had 1 array leaf and 100,000 static leaves: the Equinox path cost 3.72 ms per jit call, "
        "an Inox-style flat path->array dict 2.7 µs. eqx.partition keeps the tree's shape (None where a "
        "leaf went to the other part), so every call still walks all the static positions; a flat dict "
        "or list of just the arrays does not. How to read it: sweep n_static (10 to 100,000) and compare "
        "slopes: eqx.filter_jit and eqx.partition-* grow with n_static, flat-dict, preflattened and inox "
        "stay flat. partitions=3 splits the arrays into a trainable and a frozen group (eqx.partition "
        "splits only in two, so it takes two calls); the static-arg variant pays for hashing and comparing "
        "the static part on every call. The computation is tiny on purpose: only the handling differs."
    ),
    params=dict(
        n_arrays=Int(4, min=1, max=10_000, help="array leaves"),
        array_size=Int(16, min=1, max=1 << 24, help="elements in each array"),
        n_static=Int(1000, min=0, max=1_000_000, help="static (non-array) leaves, e.g. configuration"),
        static_kind=Choice("int", choices=("int", "str"), help="what the static leaves are"),
        partitions=Int(2, min=2, max=3, help="2: arrays | static; 3: trainable | frozen | static"),
    ),
)


def make_model_class():
    import equinox as eqx

    class Model(eqx.Module):
        trainable: list  # arrays
        frozen: list  # arrays
        config: list  # static leaves: ints or strings

    return Model


def compute(model, x):
    """The work: tiny on purpose. Only arrays take part; static leaves are configuration."""
    return x + sum(model.trainable) + sum(model.frozen)


@scenario.setup
def build(p):
    import equinox as eqx

    rng = np.random.default_rng(0)
    arrays = [jnp.asarray(rng.standard_normal(p.array_size), jnp.float32) for _ in range(p.n_arrays)]
    n_train = (p.n_arrays + 1) // 2 if p.partitions == 3 else p.n_arrays
    config = list(range(p.n_static)) if p.static_kind == "int" else [f"layer{i}" for i in range(p.n_static)]
    Model = make_model_class()
    model = Model(trainable=arrays[:n_train], frozen=arrays[n_train:], config=config)
    x = jnp.asarray(rng.standard_normal(p.array_size), jnp.float32)
    return SimpleNamespace(model=model, x=x, params=eqx.filter(model, eqx.is_array), Model=Model)


def trainable_spec(ctx):
    """An Equinox filter-spec prefix: everything under `trainable` goes to the first part."""
    return ctx.Model(trainable=True, frozen=False, config=False)


def eqx_parts(p, ctx):
    """eqx.partition into (arrays, static) or, with two calls, (trainable, frozen, static)."""
    import equinox as eqx

    if p.partitions == 2:
        arrays, static = eqx.partition(ctx.model, eqx.is_array)
        return [arrays], static
    trainable, rest = eqx.partition(ctx.model, trainable_spec(ctx))
    frozen, static = eqx.partition(rest, eqx.is_array)
    return [trainable, frozen], static


class HashableTree:
    """Makes a pytree usable as a static argument of `jax.jit`: hashed and compared by its leaves.

    The key is built once; JAX still hashes it (and compares it with the cached one) on every call.
    """

    def __init__(self, tree):
        leaves, treedef = jax.tree.flatten(tree)
        self.tree, self._key = tree, (treedef, tuple(leaves))

    def __hash__(self):
        return hash(self._key)

    def __eq__(self, other):
        return isinstance(other, HashableTree) and self._key == other._key


@scenario.variant("eqx.filter_jit")
def _(p, ctx):
    """`eqx.filter_jit` partitions the whole model (and its static leaves) on every call."""
    import equinox as eqx

    if p.partitions == 2:
        fn, args = compute, (ctx.model, ctx.x)
    else:  # the user keeps the trainable part apart: (trainable, rest), rest holding the static leaves
        trainable, rest = eqx.partition(ctx.model, trainable_spec(ctx))

        def fn(trainable, rest, x):
            return compute(eqx.combine(trainable, rest), x)

        args = (trainable, rest, ctx.x)
    jit_fn, jit_args = eqx_filter_jit_level(fn, *args)
    return Bench(eqx.filter_jit(fn), *args, jit_fn=jit_fn, jit_args=jit_args, params=ctx.params)


@scenario.variant("eqx.partition-static-arg")
def _(p, ctx):
    """eqx.partition once; array parts as arguments, the static part a (hashable) static argument."""
    import equinox as eqx

    parts, static = eqx_parts(p, ctx)

    def fn(parts, static, x):
        return compute(eqx.combine(*parts, static.tree), x)

    return Bench(jax.jit(fn, static_argnums=1), parts, HashableTree(static), ctx.x, params=ctx.params)


@scenario.variant("eqx.partition-closure")
def _(p, ctx):
    """eqx.partition once; array parts as arguments (tree-shaped, None elsewhere), static part closed over."""
    import equinox as eqx

    parts, static = eqx_parts(p, ctx)

    def fn(parts, x):
        return compute(eqx.combine(*parts, static), x)

    return Bench(jax.jit(fn), parts, ctx.x, params=ctx.params)


@scenario.variant("flat-dict")
def _(p, ctx):
    """Inox-style without Inox: path->array dicts holding only the arrays; the rest closed over."""
    import equinox as eqx

    with_path, treedef = jax.tree_util.tree_flatten_with_path(ctx.model)
    keys = [jax.tree_util.keystr(path) for path, _ in with_path]
    leaves = [leaf for _, leaf in with_path]

    def group(key):
        return 0 if p.partitions == 2 or key.startswith(".trainable") else 1

    dicts = [{} for _ in range(p.partitions - 1)]
    for key, leaf in zip(keys, leaves):
        if eqx.is_array(leaf):
            dicts[group(key)][key] = leaf

    def fn(dicts, x):
        merged = {k: v for d in dicts for k, v in d.items()}
        rebuilt = [merged.get(key, leaf) for key, leaf in zip(keys, leaves)]
        return compute(jax.tree.unflatten(treedef, rebuilt), x)

    return Bench(jax.jit(fn), dicts, ctx.x, params=ctx.params)


@scenario.variant("preflattened")
def _(p, ctx):
    """Only the arrays, as flat lists (one per part); positions and static leaves closed over."""
    import equinox as eqx

    parts, _ = eqx_parts(p, ctx)
    leaves, treedef = jax.tree.flatten(ctx.model)
    where = [i for i, leaf in enumerate(leaves) if eqx.is_array(leaf)]  # parts list arrays in tree order
    lists = [jax.tree.leaves(part) for part in parts]

    def fn(lists, x):
        rebuilt = list(leaves)
        for i, array in zip(where, [a for lst in lists for a in lst]):
            rebuilt[i] = array
        return compute(jax.tree.unflatten(treedef, rebuilt), x)

    return Bench(jax.jit(fn), lists, ctx.x, params=ctx.params)


@scenario.variant("inox")
def _(p, ctx):
    """`inox.tree.partition` (several filters, flat dicts); `inox.tree.combine` inside the jit."""
    try:
        import inox.tree
    except ImportError:
        raise Skip("inox is not installed (pip install inox)") from None
    import equinox as eqx

    filters = [eqx.is_array] if p.partitions == 2 else [lambda node: node is ctx.model.trainable, eqx.is_array]
    treedef, *dicts, static = inox.tree.partition(ctx.model, *filters)

    def fn(dicts, x):
        return compute(inox.tree.combine(treedef, *dicts, static), x)

    return Bench(jax.jit(fn), dicts, ctx.x, params=ctx.params)
