"""Host-bound or device-bound: how much of each call an accelerator spent working, from a profiler trace.

``tuiperf trace`` marks each steady-state call on the host with a :data:`CALL_MARKER` annotation and
records a Perfetto trace (``perfetto_trace.json.gz``). On a GPU, the trace also holds the device's
streams: processes named ``/device:GPU:N`` whose events are kernels and copies. For every call this
module takes the union of device activity inside the call's host window:

- **busy share**: device-busy time / the call's time. Well below one half, the device waits for the
  host (Python, dispatch, launch): the call is *host-bound*, and a faster GPU will not help;
- **gaps**: idle stretches between kernels inside a call (launch latency, host work between kernels);
- **lead-in**: from the call's start to its first kernel: the host's work before the device starts.

On the CPU there is no device stream: the computation runs on host threads, and the question does
not apply (:func:`activity` returns None with the reason).
"""

from __future__ import annotations

import gzip
import itertools
import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tuiperf.common.text import one_line

CALL_MARKER = "tuiperf_call"
HOST_BOUND_BELOW = 0.5  # busy share under which the device mostly waits for the host


@dataclass(frozen=True)
class DeviceActivity:
    """Medians over the traced calls (microseconds)."""

    calls: int
    call_us: float
    busy_us: float
    busy_share: float
    kernels_per_call: float
    gap_us: float  # median idle stretch between kernels inside a call (0 with one kernel)
    lead_in_us: float
    devices: tuple[str, ...]

    @property
    def bound(self) -> str:
        return "host-bound" if self.busy_share < HOST_BOUND_BELOW else "device-bound"

    def describe(self) -> str:
        return (
            f"{self.bound}: the device was busy {self.busy_share:.0%} of each call "
            f"({self.busy_us:.1f} of {self.call_us:.1f} µs, median of {self.calls} calls; "
            f"{self.kernels_per_call:g} kernels a call, median gap {self.gap_us:.1f} µs, "
            f"first kernel {self.lead_in_us:.1f} µs after the call began) on {one_line(', '.join(self.devices))}"
        )


def load_trace(path: Path) -> dict[str, Any]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        document = json.load(handle)
    return document if isinstance(document, dict) else {"traceEvents": document}


def _merged(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    merged: list[tuple[float, float]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def activity(trace: dict[str, Any], marker: str = CALL_MARKER) -> tuple[DeviceActivity | None, str]:
    """Device activity per marked call, or None and why it cannot be told."""
    events = [e for e in trace.get("traceEvents", []) if isinstance(e, dict)]
    names = {
        e.get("pid"): str(e.get("args", {}).get("name", ""))
        for e in events
        if e.get("ph") == "M" and e.get("name") == "process_name" and isinstance(e.get("args"), dict)
    }
    device_pids = {pid for pid, name in names.items() if name.startswith("/device:") and "CPU" not in name.upper()}
    if not device_pids:
        return None, "does not apply: the trace has no accelerator stream (on the CPU, calls run on host threads)"
    spans = [e for e in events if e.get("ph") == "X" and _is_number(e.get("ts")) and _is_number(e.get("dur"))]
    calls = sorted((e["ts"], e["ts"] + e["dur"]) for e in spans if e.get("name") == marker)
    if not calls:
        return None, f"the trace marks no call ({marker!r}): record it with `tuiperf trace`"
    device = _merged([(e["ts"], e["ts"] + e["dur"]) for e in spans if e.get("pid") in device_pids])
    per_call: list[tuple[float, float, int, float, float]] = []  # (call, busy, kernels, gap, lead-in)
    for start, end in calls:
        inside = [(max(s, start), min(e, end)) for s, e in device if e > start and s < end]
        busy = sum(e - s for s, e in inside)
        gaps = [b[0] - a[1] for a, b in itertools.pairwise(inside)]
        lead_in = inside[0][0] - start if inside else end - start
        per_call.append((end - start, busy, len(inside), statistics.median(gaps) if gaps else 0.0, lead_in))
    columns = list(zip(*per_call))
    call_us, busy_us = statistics.median(columns[0]), statistics.median(columns[1])
    return (
        DeviceActivity(
            calls=len(per_call),
            call_us=call_us,
            busy_us=busy_us,
            busy_share=statistics.median(b / c if c > 0 else 0.0 for c, b, *_ in per_call),
            kernels_per_call=statistics.median(columns[2]),
            gap_us=statistics.median(columns[3]),
            lead_in_us=statistics.median(columns[4]),
            devices=tuple(sorted(names[pid] for pid in device_pids)),
        ),
        "",
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
