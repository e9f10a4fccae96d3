"""Every use of plotext's private API, in one file (as memray keeps Textual's in ``_textual_hacks.py``):
an upgrade of plotext (pinned in pyproject.toml) has one place to look.

- the figure is laid out without rendering it to text (``_set_sizes``, ``_build_matrix``), and its
  cells read from ``monitor.matrix`` (:mod:`plotext_strips`, :mod:`braille_lines`);
- the size is set as ``PlotextPlot.render`` sets it (``_set_size``, textual-plotext issue #5);
- a cell's colours become the ANSI codes plotext itself writes (``plotext._utility``).
"""

from __future__ import annotations

from typing import Any

from plotext._utility import ansi_end, colors_to_ansi


def set_size(plt: Any, width: int, height: int) -> None:
    """The figure's size, as textual-plotext's own render sets it."""
    plt.plotsize(width, height)
    plt._set_size(width, height)


def lay_out(figure: Any) -> Any:
    """Lay out the figure's cells without rendering them to text; its monitor, whose ``matrix`` holds them."""
    figure._set_sizes()
    figure._build_matrix()
    return figure.monitor


def cell_ansi(foreground: Any, style: Any, background: Any, text: str = "x") -> str:
    """``text`` with a cell's plotext colours, as the ANSI codes plotext writes for it."""
    return str(colors_to_ansi(foreground, style, background)) + text + str(ansi_end)
