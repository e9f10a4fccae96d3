"""Latency histogram: up to three variants' per-call times overlaid, more as one strip each on a
shared axis (:mod:`histogram_strips`); medians marked, optional log axis. The title, what is shown of
how many and the legend are drawn above the plot, never over it.

Samples are binned here (pure Python) into about as many bins as the plot has columns, so drawing
costs the same with 100 or 100,000 samples and several clusters (JAX's asynchronous dispatch makes
per-call times multi-modal) stay visible as separate peaks.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from typing import Any

from rich.text import Text

from tuiperf.tui.formatting import (
    bin_counts,
    downsample,
    format_ns,
    histogram_range,
    log_ticks,
    median,
    quantile,
    round_ticks,
)
from tuiperf.tui.widgets.braille_lines import BRAILLE_LEGEND, Polyline, overlay
from tuiperf.tui.widgets.histogram_strips import AXIS_ROWS, MEDIAN_MARK, Strip, draw_strips
from tuiperf.tui.widgets.plot_base import CachedPlot, no_color, variant_hex, variant_marker, variant_rgb
from tuiperf.tui.widgets.plotext_internals import Canvas

MAX_BINNED = 10_000  # / 50 a bin: 200 bins, the braille columns of a ~110-cell-wide plot
MAX_OVERLAID = 3  # more distributions on one plot hide each other: then one strip each
MAX_DRAWN = 12  # strips at most (fewer when the height holds fewer); v chooses which


class LatencyHistogram(CachedPlot):
    DEFAULT_CSS = """
    LatencyHistogram {
        height: 1fr;
        min-height: 6;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.series: dict[str, Sequence[float]] = {}
        self.medians: dict[str, float] = {}
        self.order: list[str] = []
        self.log_x: bool | None = None  # None: automatic (log when medians differ more than 8×)
        self.note = ""
        self.marks: list[float] = []
        self.chosen: list[str] | None = None  # variants to draw (None: the first MAX_DRAWN)
        self._lines: list[Polyline] = []  # the figure being built's lines, drawn by finish()

    def set_series(
        self,
        series: Mapping[str, Sequence[float]],
        medians: dict[str, float] | None = None,
        order: list[str] | None = None,
        note: str = "",
        marks: list[float] | None = None,
    ) -> None:
        self.series = {k: v for k, v in series.items() if v}
        self.marks = list(marks or [])
        self.order = order or list(series)
        self.medians = dict(medians or {})
        self.note = note
        self.invalidate()

    @property
    def effective_log(self) -> bool:
        if self.log_x is not None:
            return self.log_x
        meds = [m for m in self.medians.values() if m and m > 0]
        return bool(meds) and max(meds) / min(meds) > 8

    def set_log(self, log: bool | None) -> None:
        self.log_x = log
        self.invalidate()

    def drawn(self, height: int | None = None) -> list[str]:
        """The variants the histogram draws: the chosen ones, as many strips as ``height`` (default:
        the widget's) holds below the title and above the axis, at most MAX_DRAWN."""
        names = [n for n in self.order if self.series.get(n)]
        if self.chosen is not None:
            names = [n for n in names if n in self.chosen]
        height = self.size.height if height is None else height
        fit = height - 1 - AXIS_ROWS if height else MAX_DRAWN
        return names if len(names) <= MAX_OVERLAID else names[: max(min(fit, MAX_DRAWN), 1)]

    def _available(self) -> int:
        return len([n for n in self.order if self.series.get(n)])

    def _title(self, drawn: list[str], clipped: tuple[int, int], log: bool) -> Text:
        """What is shown of how many first (it must never be cut), then what the picture is."""
        parts = []
        available = self._available()
        if len(drawn) < available:
            parts.append(f"showing {len(drawn)} of {available}: v chooses")
        parts.append(f"Latency per call, {MEDIAN_MARK if len(drawn) > MAX_OVERLAID else '│'} median")
        if len(drawn) > MAX_OVERLAID:
            parts.append("strips to own peak")
        left, right = clipped
        if left or right:
            sides = [f"{left} left" if left else "", f"{right} right" if right else ""]
            parts.append(f"{' and '.join(s for s in sides if s)} of the axis")
        if self.note:
            parts.append(self.note)
        return Text(" · ".join(parts), style="bold", no_wrap=True, overflow="ellipsis")

    def _legend(self, drawn: list[str], meds: dict[str, float], width: int) -> list[Text]:
        """Each overlaid variant's marker (its colour too, when there is colour), name and median,
        flowed over as few lines as the width allows."""
        lines, line = [], Text(no_wrap=True, overflow="ellipsis")
        for name in drawn:
            index = self.order.index(name)
            marker = variant_marker(index)
            marker = BRAILLE_LEGEND if marker == "braille" else marker
            entry = Text.assemble(
                (marker * 2, "" if no_color() else variant_hex(index)), f" {name} {format_ns(meds[name])}"
            )
            if line.cell_len and line.cell_len + 3 + entry.cell_len > width:
                lines.append(line)
                line = Text(no_wrap=True, overflow="ellipsis")
            if line.cell_len:
                line.append("   ")
            line.append_text(entry)
        lines.append(line)
        return lines

    def choose(self, names: list[str] | None) -> None:
        self.chosen = names
        self.invalidate()

    def finish(self, canvas: Canvas) -> None:
        overlay(canvas, self._lines)

    def _prepare(self, width: int, height: int) -> dict[str, Any] | None:
        """What both pictures need: the variants drawn, their sorted samples and medians, the range."""
        if not self.series:
            return None
        drawn = self.drawn(height)
        # one evenly spaced sample per series, sorted once for both the range and the bins
        samples = {n: sorted(downsample(self.series[n], MAX_BINNED)) for n in drawn}
        rng = histogram_range(samples, include=[*self.marks, *(self.medians[n] for n in drawn if n in self.medians)])
        if rng is None:
            return None
        lo, hi = rng
        log = self.effective_log
        if log:
            lo = max(lo, 1e-3)
        meds = {}
        for name in drawn:
            med = self.medians.get(name)
            if med is None:  # live samples: the sorted sample is all of them unless there are many
                values, sample = self.series[name], samples[name]
                med = quantile(sample, 0.5) if len(sample) == len(values) else median(values)
            meds[name] = med
        return {"drawn": drawn, "samples": samples, "lo": lo, "hi": hi, "log": log, "medians": meds}

    def _outside(self, name: str, sample: list[float], lo: float, hi: float) -> tuple[int, int]:
        """Samples of ``name`` left and right of the axis, counted in all of them (the sample may be a part)."""
        scale = len(self.series[name]) / len(sample)
        left, right = bisect.bisect_left(sample, lo), len(sample) - bisect.bisect_right(sample, hi)
        return round(left * scale), round(right * scale)

    def text_picture(self, width: int, height: int) -> list[Text] | None:
        prep = self._prepare(width, height)
        if prep is None or len(prep["drawn"]) <= MAX_OVERLAID:
            return None
        drawn, samples, lo, hi, log = prep["drawn"], prep["samples"], prep["lo"], prep["hi"], prep["log"]
        strips = [
            Strip(name, samples[name], prep["medians"][name], "" if no_color() else variant_hex(self.order.index(name)))
            for name in drawn
        ]
        outside = [self._outside(n, samples[n], lo, hi) for n in drawn]
        clipped = (sum(o[0] for o in outside), sum(o[1] for o in outside))
        body = draw_strips(strips, lo, hi, log, width, height - 1 - AXIS_ROWS, _unit(hi))
        return [self._title(drawn, clipped, log), *body]

    def draw(self, width: int, height: int) -> None:
        self._lines = lines = []
        plt = self.plt
        prep = self._prepare(width, height)
        if prep is None:
            if not self.series:  # a note: a run streams (an interleaved sweep's samples come at its end)
                waiting = "waiting for samples" if self.note else "no samples yet (press r to run)"
                plt.title(f"Latency histogram — {waiting}")
            return
        drawn, samples, lo, hi, log = prep["drawn"], prep["samples"], prep["lo"], prep["hi"], prep["log"]
        unit, div = _unit(hi)
        n_max = max((len(self.series[n]) for n in drawn), default=1)
        # ~50 samples a bin keeps the noise near 15 %; never more bins than braille dots across
        bins = int(min(max(12, min(n_max, MAX_BINNED) / 50), max(12, 2 * (width - 14))))
        clipped = (0, 0)
        axis = (math.inf, -math.inf)  # the bins' span: the axis, also where a line ends early
        for name in drawn:
            index = self.order.index(name)
            sample = samples[name]
            centres, fractions, _ = bin_counts(sample, lo, hi, bins, log=log)
            left, right = self._outside(name, sample, lo, hi)
            clipped = (clipped[0] + left, clipped[1] + right)
            med = prep["medians"][name]
            axis = (min(axis[0], centres[0] / div), max(axis[1], centres[-1] / div))
            # from the bin before the first sample to the bin after the last: empty bins beyond are not
            # drawn as a line along the whole axis
            filled = [i for i, f in enumerate(fractions) if f > 0] or [0, len(fractions) - 1]
            kept = slice(max(filled[0] - 1, 0), min(filled[-1] + 2, len(fractions)))
            xs, ys = [c / div for c in centres[kept]], [f * 100 for f in fractions[kept]]
            line = Polyline(xs, ys, variant_marker(index))
            lines.append(line)
            # plotext gets the end points (its axes and colours); the line itself is drawn by overlay()
            ends = [line.xs[0], line.xs[-1]], [line.ys[0], line.ys[-1]]
            plt.scatter(*ends, color=variant_rgb(index), marker=line.marker)
            if lo <= med <= hi:
                plt.vline(med / div, color=variant_rgb(index))
        plt.xlim(*(math.log10(end) for end in axis) if log else axis)  # plotext takes a log axis's limits as log10
        ylo, yhi = _span([y for line in lines for y in line.ys])
        ticks = round_ticks(min(ylo, 0.0), yhi, most=max(2, (height - len(self.header) - 6) // 3))
        if ticks:  # round percentages (0 20 40 60), a row or more apart
            ylo, yhi = ticks[0], ticks[-1]
            plt.yticks(ticks, [f"{t:g}" for t in ticks])
        plt.ylim(ylo, yhi)
        plt.xscale("log" if log else "linear")
        plt.xlabel(f"time per call ({unit}){', log scale' if log else ''}")
        plt.ylabel("% of samples")
        self.header = [self._title(drawn, clipped, log), *self._legend(drawn, prep["medians"], width)]
        if log:
            ticks = log_ticks(lo / div, hi / div, max_ticks=width // 8)  # a label is up to 6 characters
            if ticks:
                plt.xticks(ticks, [f"{t:g}" for t in ticks])


def _span(values: list[float]) -> tuple[float, float]:
    """The y range plotext gives these values (``get_lim``): the lines are drawn outside plotext."""
    lo, hi = min(values, default=0.0), max(values, default=0.0)
    if lo != hi:
        return lo, hi
    return (0.5 * lo, 1.5 * lo) if lo else (-1.0, 1.0)


def _unit(ns: float) -> tuple[str, float]:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return unit, scale
    return "ns", 1.0
