"""Every use of plotext's private API, in one file (as memray keeps Textual's in ``_textual_hacks.py``):
an upgrade of plotext (pinned in pyproject.toml) has one place to look, and a test
(``tests/tui/test_tui_plotext_internals.py``) checks that no other module reaches past it.

- the figure is laid out without rendering it to text (``_set_sizes``, ``_build_matrix``), and its
  cells read and written through :class:`Canvas`, which wraps plotext's ``monitor`` and its ``matrix``
  (:mod:`plotext_strips` reads them, :mod:`braille_lines` draws into them);
- the size is set as ``PlotextPlot.render`` sets it (``_set_size``, textual-plotext issue #5);
- a cell's colours become the ANSI codes plotext itself writes (``plotext._utility``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from plotext._utility import ansi_end, colors_to_ansi

Colours = tuple[Any, Any, Any]  # plotext's (foreground, style, background) of a cell


def set_size(plt: Any, width: int, height: int) -> None:
    """The figure's size, as textual-plotext's own render sets it."""
    plt.plotsize(width, height)
    plt._set_size(width, height)


def lay_out(figure: Any) -> Canvas:
    """Lay out the figure's cells without rendering them to text."""
    figure._set_sizes()
    figure._build_matrix()
    return Canvas(figure.monitor)


def cell_ansi(foreground: Any, style: Any, background: Any, text: str = "x") -> str:
    """``text`` with a cell's plotext colours, as the ANSI codes plotext writes for it."""
    return str(colors_to_ansi(foreground, style, background)) + text + str(ansi_end)


class Canvas:
    """A laid-out figure's cells (plotext's first axis pair). Rows count from the bottom, as plotext's."""

    def __init__(self, monitor: Any) -> None:
        self._monitor = monitor
        self._matrix = monitor.matrix

    # --- the whole figure, read row by row (plotext_strips) ---------------------------------------
    @property
    def width(self) -> int:
        return int(self._matrix.cols)

    def rows_top_down(self) -> Iterator[tuple[list[str], list[Any], list[Any], list[Any]]]:
        """Each row's markers, foregrounds, styles and backgrounds, from the top row down."""
        matrix = self._matrix
        for row in reversed(matrix.Rows):
            yield matrix.marker[row], matrix.fullground[row], matrix.style[row], matrix.background[row]

    def ansi_text(self) -> str:
        """The figure as plotext renders it to text, escape codes and all (tests compare against it)."""
        self._matrix.set_canvas()
        return str(self._matrix.get_canvas())

    # --- the plot area, where lines are drawn (braille_lines) -------------------------------------
    @property
    def columns(self) -> range:
        """The plot area's columns in the figure."""
        return range(self._matrix.Cols_canvas.start, self._matrix.Cols_canvas.stop)

    @property
    def rows(self) -> range:
        """The plot area's rows in the figure, from the bottom."""
        return range(self._matrix.Rows_canvas.start, self._matrix.Rows_canvas.stop)

    @property
    def x_limits(self) -> tuple[float, float]:
        """The x axis's ends, in plotted units (log10 of the value on a log scale)."""
        lo, hi = self._monitor.xlim[0]
        return float(lo), float(hi)

    @property
    def y_limits(self) -> tuple[float, float]:
        lo, hi = self._monitor.ylim[0]
        return float(lo), float(hi)

    @property
    def log_x(self) -> bool:
        return bool(self._monitor.xscale[0] == "log")

    def series_colour(self, index: int) -> tuple[Any, Any]:
        """The foreground and style plotext chose for series ``index``."""
        return self._monitor.color[index][0], self._monitor.style[index][0]

    @property
    def ticks_colour(self) -> tuple[Any, Any]:
        return self._monitor.ticks_color, self._monitor.ticks_style

    def marker(self, column: int, row: int) -> str:
        return str(self._matrix.marker[row][column])

    def set_cell(self, column: int, row: int, marker: str, colour: Any, style: Any) -> None:
        matrix = self._matrix
        matrix.marker[row][column], matrix.fullground[row][column], matrix.style[row][column] = marker, colour, style

    def insert(self, column: int, row: int, marker: str, colour: Any = None, style: Any = None) -> None:
        """A cell written as plotext writes a legend's (its colours kept where none are given)."""
        self._matrix.insert_element(column, row, marker, colour, style)

    def write(self, column: int, row: int, text: str, colour: Any, style: Any) -> None:
        """A string from this cell rightwards, as plotext writes a legend's label."""
        self._matrix.add_horizontal_string(column, row, text, colour, style)
