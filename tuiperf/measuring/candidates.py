"""Which remedy the evidence names for one prepared variant, and how tuiperf builds it (issue 52).

Each finder looks at one kind of evidence, gathered from the prepared variant itself, and returns a
:class:`Candidate` (the remedy, the evidence in words, and a builder of the remedied variant) or None:

- :func:`jit_around`: one profiled call ran JAX operations one at a time, took a derivative outside
  ``jax.jit``, called a ``jax.custom_jvp``/``custom_vjp`` function outside ``jax.jit`` or (declared
  eager) traced a function → ``jax.jit`` around the whole call;
- :func:`scalar_as_array`: a ``Step`` whose state holds a Python scalar that changed between two calls
  that each compiled again (static under ``eqx.filter_jit``: a new program per value) → the same step
  with that scalar passed as a weakly typed JAX array, so the program compiles once;
- :func:`partitioned_once`: an ``eqx.filter_jit`` call of a module whose profile has Equinox's own
  Python (partitioning, hashing the static part) hold a share of the call the profile-only remedy
  would weigh (from the lower edge of its undecided band: the measurement then decides) →
  ``eqx.partition`` once, ``jax.jit`` over the flat list of arrays, ``eqx.combine`` inside;
- :func:`split_once`: the same for an ``nnx.jit`` call of NNX modules whose graph walks (Flax's
  ``flax/nnx/`` rows) hold the time → ``nnx.split`` once, ``jax.jit`` over the states, ``nnx.merge``
  inside (the wrapped function itself, not ``nnx.jit``, is called there);
- :func:`placed_once`: the call's arguments hold NumPy arrays, copied to the device on every call →
  the same call with them placed on the device once.

The first that finds evidence decides (:func:`candidate`). Gathering evidence calls the variant a few
times, outside sampling (the sentinel counts only what compiles while a variant is sampled).
"""

from __future__ import annotations

import cProfile
import pstats
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tuiperf.api.scenario import Bench
from tuiperf.api.step import Carrier, Step
from tuiperf.common.text import one_line
from tuiperf.common.units import format_bytes
from tuiperf.measuring.analysis import host_bytes
from tuiperf.measuring.prepare import Prepared, as_bench, is_jax_jit
from tuiperf.measuring.profiling import profile_call
from tuiperf.measuring.sentinel import sentinel
from tuiperf.results.remedies import BY_KEY, Held, weigh

JIT_AROUND = "put jax.jit around the call"
DEVICE_PUT_ONCE = "put the NumPy arguments on the device once (jax.device_put)"
SCALAR_AS_ARRAY = "pass the changing Python scalar as a JAX array (weakly typed, as the scalar was)"
PARTITION_ONCE = "partition the module once (eqx.partition) and call jax.jit over its arrays, combined inside"
SPLIT_ONCE = "split the module once (nnx.split) and call jax.jit over its state, merged inside (nnx.merge)"
CUSTOM_CALL = "custom_derivatives.__call__"
# Functions whose calls in one profiled call mean JAX work outside a compiled program.
EAGER = {
    "apply_primitive": "JAX operations dispatched one at a time",
    "vjp": "a derivative taken outside jax.jit",
    "linearize": "a derivative taken outside jax.jit",
    # a trace on every call (jax.eval_shape, a function jitted anew each call, eager Linen's shape
    # inference): JAX 0.10 dispatches eager jnp operations through cached programs, with no
    # apply_primitive row, so this is what such a call's profile shows
    "trace_to_jaxpr": "a function traced on every call",
    "trace_to_jaxpr_dynamic": "a function traced on every call",
    # custom_jvp.__call__ / custom_vjp.__call__ (jax/_src/custom_derivatives.py): resolves the function's
    # signature (inspect.signature) and binds the rule on every call outside jax.jit
    CUSTOM_CALL: "a jax.custom_jvp/custom_vjp function called outside jax.jit",
}
# Evidence only for a variant declared eager (Bench(eager=True)): a jitted call that traces on every call
# recompiles (a static value that changes), and jax.jit around it froze that value: "different outputs".
TRACES = {"trace_to_jaxpr", "trace_to_jaxpr_dynamic"}
SCALAR_CALLS = 2  # calls of a Step watched for a changing Python scalar (each one compiles, if it does)
PROFILED_CALLS = 11  # calls of an eqx.filter_jit call profiled (one each, medianed) for Equinox's share
PROFILE_S = 0.05  # at most about this long profiling them (at least 3 calls)


@dataclass(frozen=True)
class Candidate:
    """A remedy the evidence names for one prepared variant, and how to build it."""

    remedy: str
    short: str  # in the tried variant's name
    evidence: str
    build: Callable[[], Bench]


def candidate(p: Prepared, device: Any) -> Candidate | None:
    """The remedy the evidence names for ``p`` (the first finder that finds evidence), else None."""
    for find in (jit_around, scalar_as_array, partitioned_once, split_once, placed_once):
        found = find(p, device)
        if found is not None:
            return found
    return None


def jit_around(p: Prepared, device: Any) -> Candidate | None:
    import jax

    bench = p.bench
    evidence = eager_evidence(bench)
    if evidence is None:
        return None
    return Candidate(
        JIT_AROUND,
        "jax.jit around the call",
        evidence,
        lambda: Bench(jax.jit(bench.fn), *bench.args, tolerance=bench.tolerance, compare=bench.compare),
    )


def eager_evidence(bench: Bench) -> str | None:
    """One call profiled: which of :data:`EAGER` it ran, and how often; None when none."""
    if isinstance(bench.fn, Carrier) or is_jax_jit(bench.fn):
        return None
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        bench.fn(*bench.args)
    finally:
        profiler.disable()
    # pstats.Stats.stats is public but undeclared in typeshed's stub.
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    seen: dict[str, int] = {}
    for (filename, _, function), (_, ncalls, *_rest) in stats.items():
        if function in TRACES and not bench.eager:
            continue
        path = filename.replace("\\", "/")
        if function == "__call__" and path.endswith("jax/_src/custom_derivatives.py"):
            function = CUSTOM_CALL
        if function in EAGER and "jax/_src/" in path:
            seen[function] = seen.get(function, 0) + int(ncalls)
    if not seen:
        return None
    said = dict.fromkeys(EAGER[f] for f in seen)
    counts = ", ".join(f"{f} ×{n}" for f, n in seen.items())
    return f"one call ran {' and '.join(said)} ({counts} in its profile)"


def placed_once(p: Prepared, device: Any) -> Candidate | None:
    import jax

    bench = p.bench
    if isinstance(bench.fn, Carrier):
        return None
    copied = host_bytes(bench)
    if not copied:
        return None

    def placed() -> Bench:
        args = jax.tree.map(
            lambda leaf: jax.device_put(leaf, device) if isinstance(leaf, np.ndarray) else leaf, bench.args
        )
        return Bench(bench.fn, *args, tolerance=bench.tolerance, compare=bench.compare)

    evidence = f"its arguments hold {format_bytes(copied)} of NumPy arrays, copied to the device on every call"
    return Candidate(DEVICE_PUT_ONCE, "jax.device_put once", evidence, placed)


def is_python_scalar(leaf: Any) -> bool:
    """An int or float that is not a bool (a flag is a choice of program, not a counter)."""
    return isinstance(leaf, int | float) and not isinstance(leaf, bool)


def changed_scalars(before: Any, after: Any) -> list[tuple[str, Any, Any]]:
    """(where, before, after) for each Python scalar leaf of ``before`` whose value differs in ``after``
    (two states of the same structure); none where the structures differ."""
    import jax

    flat, treedef = jax.tree_util.tree_flatten_with_path(before)
    later, later_def = jax.tree_util.tree_flatten_with_path(after)
    if str(treedef) != str(later_def):  # printed: PyTreeDef declares no comparison
        return []
    return [
        (jax.tree_util.keystr(path) or "the state", old, new)
        for (path, old), (_, new) in zip(flat, later, strict=True)
        if is_python_scalar(old) and is_python_scalar(new) and old != new
    ]


def scalar_as_array(p: Prepared, device: Any) -> Candidate | None:
    """A functional Step whose calls each compiled again while a Python scalar of its state changed."""
    import jax
    import jax.numpy as jnp

    bench = p.bench
    if not isinstance(bench.fn, Carrier) or bench.fn.step.inplace:
        return None
    carrier, watch = bench.fn, sentinel()
    before = carrier.state
    if not any(is_python_scalar(leaf) for leaf in jax.tree.leaves(before)):
        return None  # nothing to try: the step is not called again
    watch.current = p.name
    _, compiles = watch.snapshot(p.name)
    watch.take_causes(p.name)
    try:
        for _ in range(SCALAR_CALLS):
            jax.block_until_ready(carrier())
    finally:
        watch.current = None
    compiled = watch.snapshot(p.name)[1] - compiles
    watch.take_causes(p.name)  # said by the sentinel while sampled, not here
    changed = changed_scalars(before, carrier.state)
    if compiled < SCALAR_CALLS or not changed:
        return None
    where = {w for w, _, _ in changed}
    path, old, new = changed[0]
    step = carrier.step
    static = "eqx.filter_jit keeps a Python scalar static" if is_filter_jit(step.fn) else "a static Python scalar"
    evidence = (
        f"each of {SCALAR_CALLS} calls compiled again while the Python {type(old).__name__} at "
        f"state{'' if path == 'the state' else path} went {old} → {new} ({static}: a new program per value)"
    )

    def as_array() -> Bench:
        flat, treedef = jax.tree_util.tree_flatten_with_path(step.state)
        leaves = [
            jnp.asarray(leaf) if jax.tree_util.keystr(path) in where else leaf  # placed as the original's
            for path, leaf in flat
        ]
        state = jax.tree_util.tree_unflatten(treedef, leaves)
        inputs, pool = (step.inputs, None) if step.pool is None else ((), step.pool)
        remedied = Step(
            step.fn,
            state,
            *inputs,
            pool=pool,
            compare=step.compare,
            params=step.params,
            tolerance=step.tolerance,
        )
        return as_bench(remedied)

    return Candidate(SCALAR_AS_ARRAY, "the scalar as an array", evidence, as_array)


def is_filter_jit(fn: Any) -> bool:
    """A function made by ``eqx.filter_jit`` (Equinox's jit wrapper)."""
    kind = type(fn)
    return kind.__name__ == "_JitWrapper" and kind.__module__.startswith("equinox")


def framework_share(p: Prepared, key: str) -> Held | None:
    """The function of one framework (the profile-only table's entry ``key``) that holds the most of a
    profiled call itself (its subtree less the compiled call beneath it), as the profile-only remedies
    weigh it; None under their lower bound."""
    bench = p.bench
    calls = min(PROFILED_CALLS, max(3, int(PROFILE_S * 1e9 / max(p.first.estimate_ns, 1.0))))
    rows, _ = profile_call(bench.fn, bench.args, p.first.block, p.first.estimate_ns, calls=calls)
    return weigh(rows, None, (BY_KEY[key],))


def partitioned_once(p: Prepared, device: Any) -> Candidate | None:
    """``eqx.filter_jit`` over arguments that hold an Equinox module, whose own Python holds the time."""
    import equinox as eqx
    import jax

    bench = p.bench
    if not is_filter_jit(bench.fn):
        return None
    modules = jax.tree.leaves(bench.args, is_leaf=lambda leaf: isinstance(leaf, eqx.Module))
    if not any(isinstance(leaf, eqx.Module) for leaf in modules):
        return None
    held = framework_share(p, "equinox_traversal")  # tried from the band's lower edge on: measured anyway
    if held is None:
        return None
    evidence = (
        f"its profile puts {held.percent()} of a call in Equinox's own Python "
        f"({one_line(held.row.function, 60)}: the module partitioned on every call)"
    )
    fn = bench.fn

    def combined() -> Bench:
        arrays, static = eqx.partition(bench.args, eqx.is_array)
        leaves, treedef = jax.tree.flatten(arrays)  # once: each call passes a flat list

        def call(leaves: list[Any]) -> Any:
            return fn(*eqx.combine(jax.tree.unflatten(treedef, leaves), static))

        return Bench(jax.jit(call), leaves, tolerance=bench.tolerance, compare=bench.compare)

    return Candidate(PARTITION_ONCE, "eqx.partition once + jax.jit", evidence, combined)


def is_nnx_jit(fn: Any) -> bool:
    """A function made by ``nnx.jit`` (Flax NNX's jit wrapper), holding the function it wraps."""
    kind = type(fn)
    wrapper = kind.__name__ == "JitWrapped" and kind.__module__.startswith("flax.nnx")
    return wrapper and callable(getattr(fn, "fun", None))


def split_once(p: Prepared, device: Any) -> Candidate | None:
    """``nnx.jit`` over arguments that are NNX modules, whose graph walks hold the time."""
    from flax import nnx

    bench = p.bench
    if not is_nnx_jit(bench.fn) or not any(isinstance(a, nnx.Module) for a in bench.args):
        return None
    held = framework_share(p, "nnx_graph")
    if held is None:
        return None
    evidence = (
        f"its profile puts {held.percent()} of a call in Flax NNX's own Python "
        f"({one_line(held.row.function, 60)}: the module graph walked on every call)"
    )
    fun: Callable[..., Any] = getattr(bench.fn, "fun")  # noqa: B009 - Bench.fn is typed as any callable
    return Candidate(SPLIT_ONCE, "nnx.split once + jax.jit", evidence, lambda: split_bench(bench, fun))


def split_bench(bench: Bench, fun: Callable[..., Any]) -> Bench:
    """``jax.jit`` over the modules' states, split once (``nnx.split``), merged inside, the other
    arguments as they are. A call that mutates its modules (batch statistics, RNG counts) changes
    copies: its outputs are checked against the original's."""
    import jax
    from flax import nnx

    count = len(bench.args)
    parts = {i: nnx.split(a) for i, a in enumerate(bench.args) if isinstance(a, nnx.Module)}
    graphdefs = {i: graphdef for i, (graphdef, _) in parts.items()}
    states = tuple(state for _, state in parts.values())
    rest = tuple(a for i, a in enumerate(bench.args) if i not in parts)

    def call(states: tuple[Any, ...], rest: tuple[Any, ...]) -> Any:
        given, others = iter(states), iter(rest)
        args = [nnx.merge(graphdefs[i], next(given)) if i in graphdefs else next(others) for i in range(count)]
        return fun(*args)

    return Bench(jax.jit(call), states, rest, tolerance=bench.tolerance, compare=bench.compare)
