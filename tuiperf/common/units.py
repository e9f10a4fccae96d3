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


P_FLOOR = 1e-6  # below this a p-value is shown as "< 1e-6": the normal approximation means no more


def format_p(p: float | None) -> str:
    """A p-value with its real magnitude: "< 1e-6", "3.2e-05", "0.0032", "0.41", "1"; never "0"."""
    if p is None or not math.isfinite(p):
        return "—"
    if p < P_FLOOR:
        return "< 1e-6"
    if p < 1e-3:
        return f"{p:.1e}".replace("e-0", "e-")
    return f"{p:.2g}" if p < 0.995 else "1"


def format_bytes(count: float | None) -> str:
    """A size in bytes with binary units and 3 significant figures: "12.0 MiB"; "–" when unknown."""
    if count is None or not math.isfinite(count):
        return "–"
    sign, size = ("−" if count < 0 else ""), abs(float(count))
    for scale, unit in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if size >= scale:
            value = size / scale
            # 3 significant figures, but never in exponent form ("1e+03 KiB"): 1000-1023 are whole numbers
            return f"{sign}{value:.3g} {unit}" if value < 999.5 else f"{sign}{value:.0f} {unit}"
    return f"{sign}{size:.0f} B"


def sig3(value: float) -> str:
    """Three significant figures, trailing zeros kept so that a range reads evenly: ``0.980``, ``1.20``,
    ``12.0``, ``123`` (``.3g`` drops them: ``[0.98–1.2]``); ``1,060`` from a thousand up, never in
    exponent form (a ratio's interval read ``[884–1.06e+03]``)."""
    if abs(value) >= 999.5:
        return f"{float(f'{value:.3g}'):,.0f}"
    text = f"{value:#.3g}"
    return text[:-1] if text.endswith(".") else text


def ratio_with_interval(ratio: float, lo: float, hi: float) -> str:
    """``1.07× [0.980–1.23]``: a ratio and its 95 % interval, each to three significant figures."""
    return f"{sig3(ratio)}× [{sig3(lo)}–{sig3(hi)}]"


def how_much(ratio: float) -> str:
    """``26.6× as slow`` (not ``2558.6 % slower``), ``12.0 % slower``, ``3× as fast``, ``40.0 % faster``."""
    if ratio >= 100:
        return f"{ratio:,.0f}× as slow"
    if ratio >= 2:
        return f"{ratio:.3g}× as slow"
    if ratio >= 1:
        return f"{(ratio - 1) * 100:.1f} % slower"
    if ratio <= 0.01:
        return f"{1 / ratio:,.0f}× as fast"
    if ratio <= 0.5:
        return f"{1 / ratio:.3g}× as fast"
    return f"{(1 - ratio) * 100:.1f} % faster"


def how_much_interval(ratio: float, lo: float, hi: float) -> str:
    """:func:`how_much` with its 95 % interval in the same unit: ``4.58× as slow (95 % CI 4.57–4.6×)``,
    ``12.0 % slower (95 % CI 11.5–12.6 %)``, ``23.5× as fast (95 % CI 23.4–23.6×)``."""
    return f"{how_much(ratio)} ({interval_words(ratio, lo, hi)})"


def interval_words(ratio: float, lo: float, hi: float) -> str:
    """A ratio's 95 % interval in the unit :func:`how_much` says the ratio in: ``95 % CI 11.5–12.6 %``."""
    if ratio >= 2:
        bounds, unit = (lo, hi), "×"
    elif ratio >= 1:
        bounds, unit = ((lo - 1) * 100, (hi - 1) * 100), " %"
    elif ratio > 0.5:
        bounds, unit = ((1 - hi) * 100, (1 - lo) * 100), " %"
    else:
        bounds, unit = ((1 / hi if hi > 0 else math.inf), (1 / lo if lo > 0 else math.inf)), "×"
    first, second = (sig3(b) if unit == "×" else f"{b:.1f}" for b in bounds)
    return f"95 % CI {first}–{second}{unit}"


def article(n: int) -> str:
    """``a`` or ``an`` before a whole number read out in English: ``an`` where its reading starts with a
    vowel sound — eight (8, 80–89, 800–899, 8,000…), eleven and eighteen (11, 18, 11,000, 18,000…) —
    else ``a``. The first three-digit group is read first: 8,500 is "eight thousand…", 1,100 "one
    thousand…"."""
    lead = abs(n)
    while lead >= 1000:
        lead //= 1000
    return "an" if lead in (11, 18) or str(lead).startswith("8") else "a"


def counted(n: int, word: str, plural: str | None = None) -> str:
    """``1 commit``, ``5 commits``: a count and its noun, singular only for one."""
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"
