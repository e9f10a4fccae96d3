"""Human units for durations. No numpy: the TUI formats numbers before it needs anything heavier."""

from __future__ import annotations

import math


def format_ns(ns: float) -> str:
    """A duration in nanoseconds in human units with 3 significant figures: "12.3 µs"."""
    if not math.isfinite(ns):
        return f"{ns} ns"
    rounded = float(f"{ns:.3g}")  # round first so 999.7 µs becomes "1.00 ms", not "1000 µs"
    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1.0, "ns")):
        if abs(rounded) >= scale or unit == "ns":
            value = rounded / scale
            if value == 0:
                return "0 ns"
            decimals = max(0, 2 - math.floor(math.log10(abs(value))))
            return f"{value:.{decimals}f} {unit}"
    raise AssertionError("unreachable")
