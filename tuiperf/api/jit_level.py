"""Build the "jit level" of a framework wrapper: the ``jax.jit`` call that JAX sees after the
framework's Python work, for ``Bench(fn, *args, jit_fn=..., jit_args=...)``.

Each helper returns ``(jit_fn, jit_args)`` with ``jit_fn(*jit_args)`` computing what ``fn(*args)``
computes. The split into jit arguments is done here, once, outside the timed call, so
``time(wrapper call) - time(jit_fn call)`` is what the wrapper adds per call. JAX, Equinox and Flax
are imported inside the helpers: importing this module imports none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def eqx_filter_jit_level(fn: Callable[..., Any], *args: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """What ``eqx.filter_jit(fn)(*args)`` hands to JAX (equinox 0.13 ``_jit.py``).

    ``filter_jit`` flattens the arguments on every call and splits the leaves with
    ``hashable_partition``: a tuple as long as the leaf list holding the arrays (``None`` elsewhere)
    is traced, and ``(static leaves, treedef)`` is a static argument of its cached ``jax.jit``
    (hashed and compared on every call). Inside, the leaves are recombined, ``fn`` runs and its
    output is partitioned into arrays (returned) and the rest (carried out statically).
    Not mirrored: ``filter_jit`` also returns a scalar marker that it blocks on, and re-attaches
    non-array outputs in Python; here non-array outputs come back as ``None``.
    """
    import equinox as eqx
    import jax

    leaves, treedef = jax.tree_util.tree_flatten(args)
    dynamic = tuple(x if eqx.is_array(x) else None for x in leaves)
    static = (tuple(None if eqx.is_array(x) else x for x in leaves), treedef)

    def filter_jit_body(dynamic: tuple[Any, ...], static: tuple[tuple[Any, ...], Any]) -> Any:
        static_leaves, treedef = static
        merged = [d if s is None else s for d, s in zip(dynamic, static_leaves)]
        out = fn(*jax.tree_util.tree_unflatten(treedef, merged))
        return eqx.filter(out, eqx.is_array)

    return jax.jit(filter_jit_body, static_argnums=1), (dynamic, static)


def nnx_jit_level(fn: Callable[..., Any], *args: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """What ``nnx.jit(fn)(*args)`` reduces to once the NNX graph work is taken out.

    Every graph node among the arguments (a model, an ``nnx.Optimizer``, ...) is ``nnx.split`` once,
    here, into a static ``graphdef`` and a ``State`` of arrays; the jitted function ``nnx.merge``s
    them, calls ``fn`` and returns its output **and the updated state**, as ``nnx.jit`` does: a
    training step that updates its model in place therefore keeps its backward pass and update (a
    level returning only the output would let XLA drop them: measured 1,600 vs 3,770 FLOPs for a
    small MLP step). Other arguments (batches, keys) are passed through. Default (graph-mode)
    ``nnx.jit`` does the split and merge in Python on every call; that cost lands in
    ``time(nnx.jit call) - time(jit_fn call)``.
    """
    import jax
    from flax import nnx

    nodes = [i for i, arg in enumerate(args) if nnx.graph.is_graph_node(arg)]
    if not nodes:
        raise ValueError("nnx_jit_level: no NNX module or other graph node among the arguments")
    graphdef, state = nnx.split(tuple(args[i] for i in nodes))
    others = [i for i in range(len(args)) if i not in nodes]

    def nnx_jit_body(state: Any, *rest: Any) -> tuple[Any, Any]:
        merged = nnx.merge(graphdef, state)
        full: list[Any] = [None] * len(args)
        for i, node in zip(nodes, merged):
            full[i] = node
        for i, value in zip(others, rest):
            full[i] = value
        out = fn(*full)
        return out, nnx.state(merged)

    return jax.jit(nnx_jit_body), (state, *(args[i] for i in others))


def preflatten(fn: Callable[..., Any], tree: Any) -> tuple[Callable[..., Any], list[Any]]:
    """Pre-flattening: ``jax.jit(lambda leaves, *rest: fn(unflatten(leaves), *rest))``.

    ``tree`` (a model, a parameter dict, an NNX ``State``) is flattened once, here; each call then
    passes only the flat leaf list, so JAX walks a list instead of the model's pytree nodes. The
    leaves must all be arrays. Returns ``(jitted, leaves)``: call ``jitted(leaves, *rest)``.
    """
    import jax

    leaves, treedef = jax.tree_util.tree_flatten(tree)

    def preflattened(leaves: list[Any], *rest: Any) -> Any:
        return fn(jax.tree_util.tree_unflatten(treedef, leaves), *rest)

    return jax.jit(preflattened), leaves
