"""Polylines of many points drawn straight into a plotext figure's cells, at braille resolution.

plotext draws a line as a Python list of every dot on it, then groups the dots into 2 x 4 braille
cells through a dict of nested lists: most of a histogram's build. Here each column of dots a segment
crosses becomes one span of rows, and a span lights its cells' dots a whole cell at a time from a
table: the same lines for a small fraction of that (benchmarks/ui_responsiveness.py). plotext still
lays out everything else (axes, ticks, labels, title, median lines); :func:`overlay` writes the lines
into its cells afterwards (through :class:`plotext_internals.Canvas`), in the colours plotext chose for
the series, then the legend on top, as plotext would.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from tuiperf.tui.widgets.plotext_internals import Canvas

Cells = dict[tuple[int, int], int]  # (column, row counted from the bottom) -> braille dots lit (or 1)

# The braille dot bits of U+2800, indexed [row from the bottom][column]
_DOT = ((0x40, 0x80), (0x04, 0x20), (0x02, 0x10), (0x01, 0x08))
# The bits for dot rows first..last (from the bottom) of one dot column: _SPAN[column][first][last]
_SPAN = [
    [[sum(_DOT[r][col] for r in range(first, last + 1)) for last in range(4)] for first in range(4)] for col in range(2)
]
BRAILLE_LEGEND = "⢕"  # plotext's legend symbol for a braille series


@dataclass(frozen=True)
class Polyline:
    xs: Sequence[float]  # in the plot's x units (before a log scale is applied)
    ys: Sequence[float]
    marker: str  # "braille", or one character drawn whole in every cell the line crosses
    label: str | None = None  # shown in the legend


def dot_positions(values: Sequence[float], lo: float, hi: float, dots: int) -> list[int]:
    """Where plotext puts these values on an axis of ``dots`` positions (``get_matrix_data``), so a
    line drawn here meets plotext's own points, ticks and median lines at the same dots."""
    scale = (dots - 1) / (hi - lo)
    return [math.floor(round(0.5 + scale * (value - lo), 8)) for value in values]


def trace(points: Sequence[tuple[int, int]], width: int, height: int, braille: bool = True) -> Cells:
    """The cells a polyline through these dot positions crosses, and the dots it lights in each.

    With ``braille`` a cell is 2 x 4 dots and the value is the dot bits; otherwise a cell is one dot
    and the value 1. Cells outside ``width`` x ``height`` cells are left out. The line is taken as a
    function's graph: where it comes back over a column of dots, that column is lit between its parts.
    """
    xf, yf = (2, 4) if braille else (1, 1)
    columns, rows = width * xf, height * yf
    low, high = [rows] * columns, [-1] * columns  # the dots lit in each column of dots: low..high

    def span(x: int, first: int, last: int) -> None:
        if 0 <= x < columns:
            low[x], high[x] = min(low[x], first), max(high[x], last)

    for x, y in points[:1]:
        span(x, y, y)
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if x0 > x1:
            (x0, y0), (x1, y1) = (x1, y1), (x0, y0)
        if x0 == x1:
            span(x0, min(y0, y1), max(y0, y1))
            continue
        slope = (y1 - y0) / (x1 - x0)
        half = slope / 2
        for x in range(max(x0, 0), min(x1, columns - 1) + 1):
            # the dots less than half a dot from the segment's part over this column (from half a
            # dot left to half right): one dot a column on a diagonal, no gap on a steep slope
            middle = y0 + slope * (x - x0)
            ya = middle - half if x > x0 else middle
            yb = middle + half if x < x1 else middle
            if ya > yb:
                ya, yb = yb, ya
            first, last = math.floor(ya - 0.5) + 1, math.ceil(yb + 0.5) - 1
            if first < low[x]:
                low[x] = first
            if last > high[x]:
                high[x] = last
    cells: Cells = {}
    for x in range(columns):
        first, last = max(low[x], 0), min(high[x], rows - 1)
        if first > last:
            continue
        col, sub = divmod(x, xf)
        spans = _SPAN[sub]
        for row in range(first // yf, last // yf + 1):
            bits = spans[max(first - row * yf, 0)][min(last - row * yf, yf - 1)] if braille else 1
            cells[col, row] = cells.get((col, row), 0) | bits
    return cells


def overlay(canvas: Canvas, lines: Sequence[Polyline]) -> None:
    """Draw ``lines`` into a laid-out plotext figure's plot area; line i takes plotext series i's
    colour and style (plot each line's end points there first, so the axes and colours are set)."""
    cols, rows = canvas.columns, canvas.rows
    if not cols or not rows or not lines:  # (no lines: plotext may have set no limits)
        return
    xlo, xhi = canvas.x_limits
    ylo, yhi = canvas.y_limits
    log_x = canvas.log_x
    for index, line in enumerate(lines):
        braille = line.marker == "braille"
        xf, yf = (2, 4) if braille else (1, 1)
        kept = [(x, y) for x, y in zip(line.xs, line.ys, strict=True) if x > 0 or not log_x]
        xs = [math.log10(x) for x, _ in kept] if log_x else [x for x, _ in kept]
        dot_xs = dot_positions(xs, xlo, xhi, len(cols) * xf)
        dot_ys = dot_positions([y for _, y in kept], ylo, yhi, len(rows) * yf)
        colour, style = canvas.series_colour(index)
        for (col, row), bits in trace(list(zip(dot_xs, dot_ys)), len(cols), len(rows), braille).items():
            x, y = cols.start + col, rows.start + row
            if braille:
                previous = canvas.marker(x, y)
                if "\u2800" <= previous <= "\u28ff":  # another line's dots there stay lit
                    bits |= ord(previous) - 0x2800
            canvas.set_cell(x, y, chr(0x2800 + bits) if braille else line.marker, colour, style)
    _legend(canvas, lines)


def _legend(canvas: Canvas, lines: Sequence[Polyline]) -> None:
    """plotext's legend for one axis pair: two markers and the label, one line a row from the top."""
    cols, rows = canvas.columns, canvas.rows
    labelled = [(i, line) for i, line in enumerate(lines) if line.label is not None]
    if not labelled:
        return
    width = max(len(line.label or "") for _, line in labelled) + 2
    if len(cols) < 3 + width or len(rows) < len(labelled):
        return
    for n, (index, line) in enumerate(labelled):
        row = rows.stop - 1 - n
        marker = BRAILLE_LEGEND if line.marker == "braille" else line.marker
        canvas.insert(cols.start, row, " ")
        for col in (cols.start + 1, cols.start + 2):
            canvas.insert(col, row, marker, *canvas.series_colour(index))
        text = f" {line.label} ".ljust(width)
        canvas.write(cols.start + 3, row, text, *canvas.ticks_colour)
