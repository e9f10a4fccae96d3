"""Counts JAX traces and XLA compilations, attributed to whichever variant is running.

A compile inside the steady-state loop means a retrace (a changing static argument, a weak-type
flip, a new shape): the samples then include compile time. ``jax.monitoring`` reports every trace
and backend compile; we only need to know who was running when it happened.
"""

from __future__ import annotations

from collections import Counter

TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


class CompileSentinel:
    def __init__(self) -> None:
        self.current: str | None = None
        self.traces: Counter[str | None] = Counter()
        self.compiles: Counter[str | None] = Counter()

    def on_duration(self, event: str, duration_secs: float, **_: object) -> None:
        if event == TRACE_EVENT:
            self.traces[self.current] += 1
        elif event == COMPILE_EVENT:
            self.compiles[self.current] += 1

    def snapshot(self, name: str) -> tuple[int, int]:
        return self.traces[name], self.compiles[name]


_SENTINEL: CompileSentinel | None = None


def sentinel() -> CompileSentinel:
    """The process-wide sentinel, registered with jax.monitoring on first use."""
    global _SENTINEL
    if _SENTINEL is None:
        import jax.monitoring

        _SENTINEL = CompileSentinel()
        jax.monitoring.register_event_duration_secs_listener(_SENTINEL.on_duration)
    return _SENTINEL
