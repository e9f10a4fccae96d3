"""Pure helpers for the TUI: time formatting, parameter specs from catalog dicts, binning.

Nothing here imports Textual, JAX or numpy, so it is cheap to import and easy to test.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence

from tuiperf.api.params import Bool, Choice, Int, Param
from tuiperf.common.units import format_ns as _format_ns


def format_ns(ns: float | None) -> str:
    """``12.3 µs`` (the core's formatter); an em dash for a missing value."""
    if ns is None or (isinstance(ns, float) and not math.isfinite(ns)):
        return "—"
    return _format_ns(ns)


def format_ms(ms: float | None) -> str:
    return "—" if ms is None else format_ns(ms * 1e6)


def format_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, sec = divmod(int(seconds), 60)
    return f"{minutes}m{sec:02d}s"


def split_values(text: str) -> list[str]:
    """``"1, 2 4;8"`` → ``["1", "2", "4", "8"]``."""
    for sep in ",;":
        text = text.replace(sep, " ")
    return [t for t in text.split() if t]


def suggest_sweep(spec: Param) -> str:
    """A reasonable list of values to sweep for a parameter (shown pre-filled in the sweep dialog)."""
    if isinstance(spec, Choice):
        return ", ".join(spec.choices)
    if isinstance(spec, Bool):
        return "false, true"
    if isinstance(spec, Int):
        lo = spec.min if spec.min is not None else 1
        base = max(int(spec.default), 1, lo)
        values = sorted({max(lo, base // 4), max(lo, base // 2), base, base * 2, base * 4, base * 16})
        if spec.max is not None:
            values = [v for v in values if v <= spec.max]
        if len(values) < 3 and spec.max is not None:
            values = sorted({*values, *range(lo, min(spec.max, lo + 3) + 1)})
        return ", ".join(str(v) for v in values)
    scale = float(spec.default) or 1.0
    return ", ".join(f"{scale * f:g}" for f in (0.25, 0.5, 1, 2, 4))


def downsample(values: Sequence[float], n: int) -> list[float]:
    """At most ``n`` evenly spaced values (plots stay cheap whatever the sample count): every k-th one,
    a slice, done in C rather than by indexing in Python, whatever the sample count."""
    if n <= 0 or len(values) <= n:
        return list(values)
    return list(values[:: -(-len(values) // n)])


def quantile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def median(values: Iterable[float]) -> float:
    s = sorted(values)
    return quantile(s, 0.5)


LEFT_CUT = 0.05  # at most this share of a series' fastest samples is left of the histogram's axis


def histogram_range(
    series: Mapping[str, Sequence[float]], clip: float = 0.005, include: Iterable[float] = ()
) -> tuple[float, float] | None:
    """A shared x range for all series.

    The bulk of each series (a few IQRs around its middle half) plus every point in ``include``
    (cluster centres and medians, so a second mode stays on the axis), never beyond the
    ``clip``..``1-clip`` quantiles: a long tail of rare slow calls would otherwise squash every peak.
    On the left, every series keeps all but its fastest :data:`LEFT_CUT` of samples.
    """
    lo, hi = math.inf, -math.inf
    q_lo, q_hi = math.inf, -math.inf
    for values in series.values():
        if not values:
            continue
        s = sorted(downsample(values, 5000))
        q25, q50, q75 = quantile(s, 0.25), quantile(s, 0.5), quantile(s, 0.75)
        iqr = max(q75 - q25, 0.02 * q50)
        a, b = quantile(s, clip), quantile(s, 1 - clip)
        q_lo, q_hi = min(q_lo, a), max(q_hi, b)
        # the left tail is fast calls, rare and real (another dispatch path): at most LEFT_CUT of
        # any series is left of the axis; the right is cut harder (a few slow calls squash every peak)
        lo = min(lo, max(a, q25 - 3 * iqr), quantile(s, LEFT_CUT))
        hi = max(hi, min(b, q75 + 5 * iqr))
    if not math.isfinite(lo) or not math.isfinite(hi):
        return None
    for point in include:
        if point is not None and math.isfinite(point):
            lo = min(lo, max(q_lo, point * 0.97))
            hi = max(hi, min(q_hi, point * 1.05))
    if hi <= lo:
        lo, hi = lo * 0.95, hi * 1.05 + 1e-9
    return lo, hi


def bin_counts(
    values: Sequence[float], lo: float, hi: float, bins: int, log: bool = False
) -> tuple[list[float], list[float], int]:
    """Histogram on [lo, hi] with ``bins`` bins (log-spaced when ``log``): bin i holds the values in
    [edge i, edge i+1), the last one ``hi`` too.

    Returns bin centres, fractions of the series' samples in each bin, and how many samples fell outside.
    The values are sorted once and each edge found by bisection: the loop over values runs in C (a
    Python loop over every sample was most of a histogram's build).
    """
    bins = max(bins, 2)
    ordered = sorted(values)
    if log:
        lo, hi = math.log10(max(lo, 1e-9)), math.log10(max(hi, lo * 1.0001 if lo > 0 else 1e-9))
        lo, hi = min(lo, hi), max(lo, hi)
    width = (hi - lo) / bins or 1.0
    scaled = [lo + i * width for i in range(bins)]
    edges = [10**e for e in scaled] + [10**hi] if log else [*scaled, hi]
    positions = [bisect.bisect_left(ordered, edge) for edge in edges[:-1]]
    positions.append(bisect.bisect_right(ordered, edges[-1]))
    counts = [b - a for a, b in itertools.pairwise(positions)]
    outside = len(ordered) - (positions[-1] - positions[0])
    total = len(ordered) or 1
    centres = [lo + (i + 0.5) * width for i in range(bins)]
    if log:
        centres = [10**c for c in centres]
    return centres, [c / total for c in counts], outside


def round_ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """Evenly spaced round ticks (a step of 1, 2 or 5 times a power of ten) from at or below ``lo`` to
    at or above ``hi``, at most ``most`` steps: an axis from 0 to 58 reads 0 20 40 60, not 0 9.7 19.3."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return []
    e = math.floor(math.log10((hi - lo) / max(most, 1)))
    while True:
        for m in (1, 2, 5):
            step = m * 10.0**e
            first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
            if last - first <= max(most, 1):
                return [round(k * step, 12) for k in range(first, last + 1)]
        e += 1


def log_ticks(lo: float, hi: float, max_ticks: int = 12) -> list[float]:
    """1-2-5 ticks between lo and hi (five evenly spread ones for a narrow range), at most max_ticks:
    two labels on one text row would leave plotext to pick one, differently from run to run."""
    ticks = _all_log_ticks(lo, hi)
    step = math.ceil(len(ticks) / max(max_ticks, 2))
    return ticks[::step] if step > 1 else ticks


def _all_log_ticks(lo: float, hi: float) -> list[float]:
    if lo <= 0 or hi <= lo:
        return []
    ticks = []
    e = math.floor(math.log10(lo))
    while 10**e <= hi * 1.0001:
        for m in (1, 2, 5):
            t = m * 10**e
            if lo <= t <= hi:
                ticks.append(t)
        e += 1
    if len(ticks) < 3:
        ratio = (hi / lo) ** (1 / 4)
        ticks = [float(f"{lo * ratio**i:.2g}") for i in range(5)]
        ticks = sorted({t for t in ticks if lo <= t <= hi})
    return ticks
