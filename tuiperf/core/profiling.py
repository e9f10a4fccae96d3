"""A Python profile of one variant's call: where the framework's per-call time goes."""

from __future__ import annotations

import cProfile
import pstats
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tuiperf.core.model import ProfileRow

PROFILE_SECONDS = 0.2
MAX_CALLS, MIN_CALLS = 500, 5
TOP = 15


def _label(filename: str, line: int, function: str) -> str:
    if filename == "~":  # built-ins
        return function
    parts = Path(filename).parts
    for anchor in ("site-packages", "dist-packages", "lib"):
        if anchor in parts:
            parts = parts[len(parts) - parts[::-1].index(anchor) :]
            break
    return f"{function} ({'/'.join(parts[-3:])}:{line})"


def profile_call(
    fn: Callable[..., Any], args: tuple, block: Callable[[Any], Any], estimate_ns: float
) -> list[ProfileRow]:
    """Top functions by cumulative time per call, from ``cProfile`` over a few hundred calls.

    cProfile inflates absolute times; read the table for shares and names, not for latency.
    """
    calls = int(min(MAX_CALLS, max(MIN_CALLS, PROFILE_SECONDS * 1e9 / max(estimate_ns, 1.0))))
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        block(fn(*args))
    profiler.disable()
    stats = pstats.Stats(profiler)
    rows = []
    for (filename, line, function), (_, ncalls, tottime, cumtime, _) in stats.stats.items():  # type: ignore[attr-defined]
        if function == "<method 'disable' of '_lsprof.Profiler' objects>":
            continue
        rows.append(
            ProfileRow(
                function=_label(filename, line, function),
                ncalls=ncalls / calls,
                cumtime_us=cumtime / calls * 1e6,
                tottime_us=tottime / calls * 1e6,
            )
        )
    rows.sort(key=lambda row: row.cumtime_us, reverse=True)
    return rows[:TOP]
