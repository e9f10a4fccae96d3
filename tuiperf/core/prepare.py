"""Everything done to a variant before steady-state sampling: build, compile stages, first call,
warm-up, loop calibration, and the lower-level paths the overhead breakdown times."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tuiperf.core.model import CompileStagesMs
from tuiperf.core.scenario import Bench
from tuiperf.core.sentinel import sentinel
from tuiperf.core.timing import blocker_for, take_sample, time_once

WARMUP_CALLS = 3
ESTIMATE_CALLS = 5


@dataclass
class Path:
    """A callable and its arguments, timed as one stage of the breakdown."""

    fn: Callable[..., Any]
    args: tuple


@dataclass
class Prepared:
    name: str
    bench: Bench
    block: Callable[[Any], Any]
    output: Any
    loops: int
    estimate_ns: float
    stages_ms: CompileStagesMs
    flops: float | None = None
    param_count: int | None = None
    paths: dict[str, Path] = field(default_factory=dict)  # jit / execute / launch, when available
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def is_jax_jit(fn: Any) -> bool:
    """A function made by ``jax.jit`` (its C++ ``PjitFunction``), not a framework wrapper."""
    return type(fn).__name__ == "PjitFunction" and hasattr(fn, "trace")


def flops_of(compiled: Any) -> float | None:
    """XLA's FLOP count from ``cost_analysis()`` of a jax or equinox compiled object."""
    compiled = getattr(compiled, "compiled", compiled)  # equinox wraps jax's Compiled
    try:
        analysis = compiled.cost_analysis()
    except Exception:  # noqa: BLE001 - some backends do not implement it
        return None
    if isinstance(analysis, (list, tuple)):
        analysis = analysis[0] if analysis else None
    flops = analysis.get("flops") if isinstance(analysis, dict) else None
    return float(flops) if flops is not None and math.isfinite(flops) and flops >= 0 else None


def count_params(tree: Any) -> int | None:
    import jax

    if tree is None:
        return None
    return int(sum(getattr(leaf, "size", 0) for leaf in jax.tree.leaves(tree) if hasattr(leaf, "shape")))


def aot_stages(fn: Any, args: tuple) -> tuple[dict[str, float | None], Any, str]:
    """Time trace, lower and compile through JAX's ahead-of-time API where ``fn`` offers it."""
    stages: dict[str, float | None] = {"trace": None, "lower": None, "compile": None}
    try:
        if hasattr(fn, "trace"):
            stages["trace"], traced = time_once(lambda: fn.trace(*args))
            stages["lower"], lowered = time_once(traced.lower)
        elif hasattr(fn, "lower"):
            stages["lower"], lowered = time_once(lambda: fn.lower(*args))
        else:
            return stages, None, "no ahead-of-time API: compile time is part of the first call"
        stages["compile"], compiled = time_once(lowered.compile)
    except Exception as exc:  # noqa: BLE001 - a wrapper's AOT path may not support these arguments
        return stages, None, f"ahead-of-time stages unavailable ({type(exc).__name__}: {exc})"
    note = "" if stages["trace"] is not None else "tracing is included in 'lower' for this wrapper"
    return stages, compiled, note


def build_paths(jit_fn: Callable[..., Any], jit_args: tuple) -> tuple[dict[str, Path], Any]:
    """The lower levels of one call, each a real executable path (see :mod:`tuiperf.core.breakdown`):

    - ``jit``: ``jit_fn(*jit_args)``, what JAX sees after the framework's Python work;
    - ``flat_jit``: the same program jitted over the flat list of arrays (no pytree to flatten);
    - ``noop_jit``: a jitted function taking the same arrays that computes and returns nothing;
    - ``noop_execute``: that no-op's executable launched through PJRT directly, skipping jit's
      argument checks and cache lookup.
    """
    import jax
    import numpy as np

    leaves, treedef = jax.tree.flatten(jit_args)
    dynamic = [i for i, leaf in enumerate(leaves) if isinstance(leaf, (jax.Array, np.ndarray))]
    arrays = tuple(leaves[i] for i in dynamic)

    def flat_program(*flat_arrays):
        rebuilt = list(leaves)
        for i, array in zip(dynamic, flat_arrays):
            rebuilt[i] = array
        return jit_fn(*jax.tree.unflatten(treedef, rebuilt))

    # keep_unused: every path must receive the same arrays, used or not.
    flat_jit = jax.jit(flat_program, keep_unused=True)
    program = flat_jit.trace(*arrays).lower().compile()  # also fills flat_jit's cache
    noop_jit = jax.jit(lambda *a: (), keep_unused=True)
    noop_executable = noop_jit.trace(*arrays).lower().compile().runtime_executable()
    paths = {
        "jit": Path(jit_fn, jit_args),
        "flat_jit": Path(flat_jit, arrays),
        "noop_jit": Path(noop_jit, arrays),
        "noop_execute": Path(lambda *a: noop_executable.execute_sharded(list(a)), arrays),
    }
    return paths, program


def place_inputs(bench: Bench, device: Any) -> list[str]:
    """Commit top-level array arguments to ``device``; report any array leaf living elsewhere.

    Setup and variant builders run under ``jax.default_device(device)``, so their arrays are there
    already; committing makes it explicit, and a leaf found elsewhere (say, built with an explicit
    ``device=``) is named in a warning instead of silently timing a cross-device copy.
    """
    import jax

    bench.args = tuple(jax.device_put(a, device) if isinstance(a, jax.Array) else a for a in bench.args)
    elsewhere = {
        str(d)
        for leaf in jax.tree.leaves(bench.args)
        if isinstance(leaf, jax.Array)
        for d in leaf.devices()
        if d != device
    }
    if elsewhere:
        return [f"some inputs live on {', '.join(sorted(elsewhere))}, not on {device}: calls may copy them"]
    return []


def prepare(name: str, bench: Bench, cancel: Any = None, device: Any = None) -> Prepared:
    """Compile, call once, warm up and calibrate one variant. Exceptions propagate to the caller.

    ``cancel`` (anything with ``is_set``) skips the breakdown's extra compiles once set.
    """
    watch = sentinel()
    watch.current = name
    placement_warnings = place_inputs(bench, device) if device is not None else []
    fn, args = bench.fn, bench.args
    stages, compiled, note = aot_stages(fn, args)
    _traces_before, compiles_before = watch.snapshot(name)
    stages["first_call"], output = time_once(lambda: _call_and_block(fn, args))
    prepared = Prepared(
        name=name,
        bench=bench,
        block=blocker_for(output),
        output=output,
        loops=1,
        estimate_ns=0.0,
        stages_ms=CompileStagesMs(**stages),
        param_count=count_params(bench.params),
    )
    prepared.warnings.extend(placement_warnings)
    if note:
        prepared.notes.append(note)
    if bench.note:
        prepared.notes.append(bench.note)
    if compiled is not None and watch.snapshot(name)[1] > compiles_before:
        prepared.notes.append("the first call compiled again: this wrapper does not reuse the AOT executable")

    for _ in range(WARMUP_CALLS):
        prepared.block(fn(*args))
    estimate = statistics.median(take_sample(fn, args, 1, prepared.block) for _ in range(ESTIMATE_CALLS))
    prepared.estimate_ns = estimate

    jit_level = (bench.jit_fn, bench.jit_args) if bench.jit_fn is not None else ((fn, args) if is_jax_jit(fn) else None)
    if cancel is not None and cancel.is_set():
        return prepared
    if jit_level is not None:
        try:
            prepared.paths, program = build_paths(*jit_level)
            compiled = compiled if compiled is not None else program
        except Exception as exc:  # noqa: BLE001 - the breakdown is optional; the timing is not
            prepared.notes.append(f"no overhead breakdown: lower-level paths failed ({type(exc).__name__}: {exc})")
    else:
        prepared.notes.append("no overhead breakdown: give Bench(jit_fn=..., jit_args=...) for this wrapper")
    prepared.flops = flops_of(compiled if compiled is not None else fn)
    return prepared


def _call_and_block(fn: Callable[..., Any], args: tuple) -> Any:
    import jax

    output = fn(*args)
    jax.block_until_ready(output)
    return output
