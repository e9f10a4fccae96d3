"""Per-operation time from a JAX profiler trace: the events that name an HLO instruction.

A trace of a jitted call (``jax.profiler.trace(..., create_perfetto_trace=True)``) holds one ``X``
event per executed HLO instruction, ``args = {hlo_module: "jit_f", hlo_op: "while.5", ...}``; on
XLA:CPU a loop's body instructions run inside the loop's own event, once per step. Each
instruction's *self* time (its event less the instruction events nested in it on the same thread)
is summed per call: a call is the window of a marker event on the host (``tuiperf_call``), and an
instruction event belongs to the call whose window holds its start. No JAX here.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

OpKey = tuple[str, str]  # (hlo_module, hlo_op)


@dataclass(frozen=True)
class CallOps:
    """One traced call: each instruction's self time (µs) and how many times it ran."""

    start_us: float
    end_us: float
    self_us: dict[OpKey, float]
    count: dict[OpKey, int]

    @property
    def total_us(self) -> float:
        return sum(self.self_us.values())


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _op_events(events: list[dict[str, Any]]) -> list[tuple[Any, Any, float, float, OpKey]]:
    found = []
    for event in events:
        args = event.get("args")
        if event.get("ph") != "X" or not isinstance(args, dict) or "hlo_op" not in args:
            continue
        ts, dur = _number(event.get("ts")), _number(event.get("dur"))
        if ts is None or dur is None or dur < 0:
            continue
        key = (str(args.get("hlo_module", "")), str(args["hlo_op"]))
        found.append((event.get("pid"), event.get("tid"), ts, dur, key))
    return found


def self_times(events: list[dict[str, Any]]) -> list[tuple[float, float, OpKey]]:
    """Each instruction event as (start, self time, key): its duration less that of the instruction
    events nested inside it on the same thread."""
    by_thread: dict[tuple[Any, Any], list[tuple[float, float, OpKey]]] = defaultdict(list)
    for pid, tid, ts, dur, key in _op_events(events):
        by_thread[(pid, tid)].append((ts, dur, key))
    found: list[tuple[float, float, OpKey]] = []
    for spans in by_thread.values():
        spans.sort(key=lambda s: (s[0], -s[1]))
        stack: list[list[Any]] = []  # [end, start, self, key]
        for ts, dur, key in spans:
            while stack and stack[-1][0] <= ts:
                _, start, own, done = stack.pop()
                found.append((start, own, done))
            if stack:
                stack[-1][2] -= min(dur, stack[-1][0] - ts)
            stack.append([ts + dur, ts, dur, key])
        found.extend((start, own, done) for _, start, own, done in stack)
    return found


def calls_of(trace: dict[str, Any], marker: str) -> list[CallOps]:
    """Every marked call's instruction times, in the order of the calls."""
    events = [e for e in trace.get("traceEvents", []) if isinstance(e, dict)]
    windows = sorted(
        (ts, ts + dur)
        for e in events
        if e.get("ph") == "X"
        and e.get("name") == marker
        and (ts := _number(e.get("ts"))) is not None
        and (dur := _number(e.get("dur"))) is not None
    )
    calls = [CallOps(start, end, defaultdict(float), defaultdict(int)) for start, end in windows]
    starts = [c.start_us for c in calls]
    for ts, own, key in self_times(events):
        at = _last_at_or_before(starts, ts)
        if at is None or ts > calls[at].end_us:
            continue
        calls[at].self_us[key] += max(0.0, own)
        calls[at].count[key] += 1
    return [CallOps(c.start_us, c.end_us, dict(c.self_us), dict(c.count)) for c in calls]


def _last_at_or_before(starts: list[float], ts: float) -> int | None:
    import bisect

    at = bisect.bisect_right(starts, ts) - 1
    return at if at >= 0 else None
