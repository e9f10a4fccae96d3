"""A Python profile of one variant's call: where the framework's per-call time goes.

cProfile sees no call into a compiled ``jax.jit`` function (a C++ ``PjitFunction``): its time — JAX's
C++ dispatch and the XLA executable — would land in the "own" time of whichever Python frame called
it (Equinox's ``_call`` read 594 µs own of a 600 µs call). So, while profiling only, the jitted
function a wrapper holds (``eqx.filter_jit``'s ``_cached``, ``nnx.jit``'s ``jitted_fn``, or the
variant itself for plain ``jax.jit``) is swapped for a Python shim, and its time shows as its own row
of kind "executable". Where no jitted function can be found, the note says so.

The calls are profiled one at a time (in up to :data:`MAX_BATCHES` batches, one call each while the
calls are fewer), each with its own profiler, and every row's figures are the median over them: the
profile of a typical call. A sum over one ~0.2 s profile let the calls that were preempted (a
scheduler's slice, milliseconds, lands as "own" time in whichever frame was running) outweigh a 6 µs
constructor, and the remedy read from the shares changed between runs on a loaded machine; a short
call is rarely preempted, so most single-call profiles are clean and the median is theirs.
"""

from __future__ import annotations

import cProfile
import dataclasses
import pstats
import statistics
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tuiperf.api.step import Carrier
from tuiperf.common.units import format_ns
from tuiperf.results.model import ProfileRow

PROFILE_SECONDS = 0.2
MAX_CALLS, MIN_CALLS = 500, 10
MAX_BATCHES = 101  # profiles whose per-call figures are medianed (one call each, up to this many)
TOP = 15
SHIM_NAME = "jax_jit_call"
HARNESS_NAME = "tuiperf_profiled_call"


def is_pjit(value: Any) -> bool:
    return type(value).__name__ == "PjitFunction"


def _shim(jitted: Any) -> Callable[..., Any]:
    def jax_jit_call(*args: Any, **kwargs: Any) -> Any:
        return jitted(*args, **kwargs)

    return jax_jit_call


@contextmanager
def exposed(fn: Any) -> Iterator[tuple[Callable[..., Any], bool]]:
    """``fn`` with its jitted function(s) visible to cProfile: (callable to profile, found any).

    A :class:`~tuiperf.api.step.Carrier` (a ``Step``) is looked into: its step function is the call
    that holds the executable, swapped on the ``Step`` itself (or inside it, for a wrapper)."""
    if is_pjit(fn):
        yield _shim(fn), True
        return
    if isinstance(fn, Carrier):
        step = fn.step
        holder, names = (step, ["fn"]) if is_pjit(step.fn) else (step.fn, _attribute_names(step.fn))
    else:
        holder, names = fn, _attribute_names(fn)
    swapped: list[tuple[str, Any]] = []
    try:
        for name in names:
            value = getattr(holder, name, None)
            if is_pjit(value):
                object.__setattr__(holder, name, _shim(value))
                swapped.append((name, value))
        yield fn, bool(swapped)
    finally:
        for name, value in swapped:
            object.__setattr__(holder, name, value)


def _attribute_names(obj: Any) -> list[str]:
    names = [f.name for f in dataclasses.fields(obj)] if dataclasses.is_dataclass(obj) else []
    return names + [n for n in getattr(obj, "__dict__", {}) if n not in names]


def _label(filename: str, line: int, function: str) -> str:
    if filename == "~":  # built-ins
        return function
    parts = Path(filename).parts
    for anchor in ("site-packages", "dist-packages", "lib"):
        if anchor in parts:
            parts = parts[len(parts) - parts[::-1].index(anchor) :]
            break
    return f"{function} ({'/'.join(parts[-3:])}:{line})"


Key = tuple[str, int, str]  # (file, line, function), as pstats names a function
# ncalls, cumulative and own seconds, and the compiled call's seconds beneath, per profiled call
PerCall = dict[Key, tuple[float, float, float, float]]
Edge = tuple[Key, float]  # a callee, and its cumulative seconds when called from this caller


def _compiled_beneath(stats: dict[Key, Any]) -> dict[Key, float]:
    """For every function, the time of the compiled call (the shim's row) beneath it: the shim's own
    cumulative time, else the sum over its callees of their share (the edge's cumulative time over the
    callee's) of theirs, as gprof divides a callee's time among its callers. Recursion counts once."""
    callees: dict[Key, list[Edge]] = {}
    for key, (_, _, _, _, callers) in stats.items():
        for caller, edge in callers.items():
            callees.setdefault(caller, []).append((key, edge[3]))
    found: dict[Key, float] = {}

    def beneath(key: Key, path: frozenset[Key]) -> float:
        if key in found:
            return found[key]
        if key[2] == SHIM_NAME and key[0] == __file__:
            found[key] = float(stats[key][3])
            return found[key]
        total = 0.0
        for callee, edge_s in callees.get(key, []):
            callee_s = float(stats[callee][3])
            if callee not in path and callee_s > 0:
                total += min(1.0, edge_s / callee_s) * beneath(callee, path | {key})
        found[key] = min(total, float(stats[key][3]))
        return found[key]

    return {key: beneath(key, frozenset()) for key in stats}


def _profiled(call: Callable[[], None], count: int) -> PerCall:
    """``call`` run ``count`` times under a profiler of its own: each function's figures per call."""
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        for _ in range(count):
            call()
    finally:
        profiler.disable()  # never leave the process profiled: later measurements would pay for it
    # pstats.Stats.stats is public but undeclared in typeshed's stub.
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    compiled = _compiled_beneath(stats)
    return {
        key: (ncalls / count, cum / count, own / count, compiled[key] / count)
        for key, (_, ncalls, own, cum, _) in stats.items()
    }


def _median_rows(profiles: list[PerCall]) -> tuple[list[ProfileRow], float | None]:
    """One row per function, each figure the median over the batches (a batch that never called the
    function counts as zero), and the harness's per-call time (None if it was never seen)."""
    keys = list(dict.fromkeys(key for profile in profiles for key in profile))
    rows, total_us = [], None
    for key in keys:
        filename, line, function = key
        ncalls, cum, own, compiled = (
            statistics.median(profile.get(key, (0.0, 0.0, 0.0, 0.0))[i] for profile in profiles) for i in range(4)
        )
        if function == HARNESS_NAME:
            total_us = cum * 1e6
            continue
        if function == "<method 'disable' of '_lsprof.Profiler' objects>" or ncalls == 0:
            continue
        executable = function == SHIM_NAME and filename == __file__
        rows.append(
            ProfileRow(
                function="jax.jit call: JAX's C++ dispatch + the XLA executable"
                if executable
                else _label(filename, line, function),
                ncalls=ncalls,
                cumtime_us=cum * 1e6,
                tottime_us=own * 1e6,
                kind="executable" if executable else "python",
                compiled_us=compiled * 1e6,
            )
        )
    return rows, total_us


def profile_call(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    block: Callable[[Any], Any],
    estimate_ns: float,
    *,
    median_ns: float | None = None,
    calls: int | None = None,
) -> tuple[list[ProfileRow], str]:
    """Top functions by cumulative time per call over a few hundred calls, and how to read them."""
    calls = calls or int(min(MAX_CALLS, max(MIN_CALLS, PROFILE_SECONDS * 1e9 / max(estimate_ns, 1.0))))
    count = min(calls, MAX_BATCHES)
    batches = [calls // count + (1 if index < calls % count else 0) for index in range(count)]
    with exposed(fn) as (target, found):

        def tuiperf_profiled_call() -> None:
            block(target(*args))

        profiles = [_profiled(tuiperf_profiled_call, count) for count in batches]
    rows, total_us = _median_rows(profiles)
    rows.sort(key=lambda row: row.cumtime_us, reverse=True)
    note = "cProfile adds its own cost to every Python call, so read shares and names, not latency"
    if total_us is not None and median_ns:
        note += f" (the call's median is {format_ns(median_ns)}; profiled, {format_ns(total_us * 1e3)})"
    if not found:
        note += (
            "; no jax.jit function was found on this call, so JAX's C++ time is included in the own time "
            "of the Python frame that calls it"
        )
    return rows[:TOP], note
