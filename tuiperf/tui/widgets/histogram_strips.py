"""Small multiples: one histogram strip per variant on a shared time axis, drawn as text.

Overlaid on one plot, more than three distributions hide each other (at 80x24 the plot has six rows,
and their tails and median lines are all that show). Here every variant gets its own rows, labelled
with its name and median in a gutter (so the strips need no colour to tell apart), its bars scaled to
its own peak, its median marked ``┃``; the time axis below is shared, so positions compare.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.text import Text

from tuiperf.tui.formatting import bin_counts, format_ns, log_ticks

MEDIAN_MARK = "┃"
MAX_STRIP_ROWS = 4  # taller strips add nothing a reader uses; the rest of the height stays empty
AXIS_ROWS = 2  # the tick line and its labels
_DOTS = ((0x40, 0x04, 0x02, 0x01), (0x80, 0x20, 0x10, 0x08))  # braille bits [column][dot row from the bottom]


@dataclass(frozen=True)
class Strip:
    name: str
    sample: Sequence[float]  # sorted
    median: float
    style: str  # "" without colour


def strip_rows(count: int, rows: int) -> int:
    """Rows each of ``count`` strips gets in ``rows`` (0 when not even one row each fits)."""
    return min(MAX_STRIP_ROWS, rows // count) if count else 0


def draw_strips(
    strips: Sequence[Strip], lo: float, hi: float, log: bool, width: int, rows: int, unit: tuple[str, float]
) -> list[Text]:
    """The strips and the shared axis below them, ``width`` cells wide (``rows`` for the strips)."""
    name_w = min(max(len(s.name) for s in strips), max(8, width // 4))
    medians = [format_ns(s.median) for s in strips]
    med_w = max(len(m) for m in medians)
    gutter = name_w + 1 + med_w + 1
    plot_w = max(width - gutter - 1, 4)
    each = strip_rows(len(strips), rows)
    to_col = _scale(lo, hi, log, plot_w)
    lines: list[Text] = []
    for strip, med in zip(strips, medians, strict=True):
        cells = _bars(strip.sample, lo, hi, log, plot_w, each)
        mark = to_col(strip.median)
        for r in range(each):
            line = Text(no_wrap=True, overflow="crop")
            if r == 0:
                name = strip.name if len(strip.name) <= name_w else strip.name[: name_w - 1] + "…"
                line.append(name.ljust(name_w), style=f"bold {strip.style}".strip())
                line.append(" " + med.rjust(med_w) + " ")
            else:
                line.append(" " * gutter)
            line.append("│")
            row = cells[r]
            if 0 <= mark < plot_w:
                line.append(row[:mark], style=strip.style)
                line.append(MEDIAN_MARK, style=f"bold {strip.style}".strip())
                line.append(row[mark + 1 :], style=strip.style)
            else:
                line.append(row, style=strip.style)
            lines.append(line)
    lines.extend(_axis(lo, hi, log, plot_w, gutter, unit))
    return lines


def _scale(lo: float, hi: float, log: bool, cols: int) -> Callable[[float], int]:
    a, b = (math.log10(lo), math.log10(hi)) if log else (lo, hi)
    span = (b - a) or 1.0

    def to_col(value: float) -> int:
        if log and value <= 0:
            return -1
        v = math.log10(value) if log else value
        return math.floor((v - a) / span * cols) if v < b else (cols - 1 if v == b else cols)

    return to_col


def _bars(sample: Sequence[float], lo: float, hi: float, log: bool, cols: int, rows: int) -> list[str]:
    """Braille bars, two dot columns a cell, ``rows`` cells high, scaled to the strip's own peak."""
    _, fractions, _ = bin_counts(sample, lo, hi, 2 * cols, log=log)
    peak = max(fractions, default=0.0)
    dots = 4 * rows
    heights = [0 if f <= 0 or peak <= 0 else max(1, round(f / peak * dots)) for f in fractions]
    grid = [[0] * cols for _ in range(rows)]  # row 0 is the top
    for x, h in enumerate(heights):
        col, sub = divmod(x, 2)
        for d in range(h):
            cell_row = rows - 1 - d // 4
            grid[cell_row][col] |= _DOTS[sub][d % 4]
    return ["".join(chr(0x2800 + bits) if bits else " " for bits in row) for row in grid]


def _axis(lo: float, hi: float, log: bool, cols: int, gutter: int, unit: tuple[str, float]) -> list[Text]:
    name, div = unit
    to_col = _scale(lo, hi, log, cols)
    ticks = log_ticks(lo / div, hi / div, max(cols // 8, 2)) if log else linear_ticks(lo / div, hi / div, cols // 8)
    line = ["─"] * cols
    labels = [" "] * (cols + 8)
    taken = -1
    for t in ticks:
        col = to_col(t * div)
        if not 0 <= col < cols:
            continue
        line[col] = "┬"
        label = f"{t:g}"
        start = max(col - len(label) // 2, 0)
        if start <= taken or start + len(label) > len(labels):
            continue
        labels[start : start + len(label)] = label
        taken = start + len(label)
    title = f"time per call ({name}{', log' if log else ''})"
    title = title if len(title) < gutter else title[: gutter - 2] + "…"
    return [
        Text(" " * gutter + "└" + "".join(line), no_wrap=True, overflow="crop"),
        Text(title.ljust(gutter) + " " + "".join(labels).rstrip(), no_wrap=True, overflow="crop"),
    ]


def linear_ticks(lo: float, hi: float, max_ticks: int) -> list[float]:
    """1-2-5 steps between lo and hi, at most ``max_ticks`` (at least two)."""
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / max(max_ticks, 2)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step) * step
    return [round(first + i * step, 12) for i in range(int((hi - first) / step) + 1)]
