"""What the app draws, as text, to look for raw control characters in it.

:func:`on_screen` renders every widget on screen into the segments Textual writes to the terminal
(``Widget.render_lines``). :func:`held` reads what each widget holds, shown or not (a hidden tab, rows
scrolled away), rendered without a layout: a ``Static``'s content into strips at 160 columns, a grid's
or a table's cells, a plot's title and legend. The hostile tests check both.
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Region
from textual.visual import Visual, visualize
from textual.widgets import DataTable, Static, TextArea

from tuiperf.tui.widgets.plot_base import CachedPlot
from tuiperf.tui.widgets.text_grid import TextGrid

# C0 controls but newline and tab, DEL, C1 controls, the bidi overrides and line separators.
RAW = {chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]} | set(
    "\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def raw_in(text: str) -> list[str]:
    return sorted({repr(c) for c in text if c in RAW})


def on_screen(app: Any) -> dict[str, str]:
    """The widgets on screen whose drawn segments hold a raw control character: ``{widget: its line}``."""
    found: dict[str, str] = {}
    for widget in app.screen.walk_children(with_self=True):
        if not widget.display or not widget.region.area:
            continue
        for strip in widget.render_lines(Region(0, 0, widget.size.width, widget.size.height)):
            line = "".join(segment.text for segment in strip)
            if raw_in(line):
                found.setdefault(f"{type(widget).__name__}#{widget.id}", line)
    return found


def _held_text(widget: Any) -> str:
    if isinstance(widget, TextGrid):
        return "\n".join([" ".join(widget.headers), *(" ".join(widget.get_row(k)) for k in widget.keys)])
    if isinstance(widget, DataTable):
        labels = " ".join(str(column.label) for column in widget.columns.values())
        return "\n".join([labels, *(" ".join(map(str, widget.get_row_at(i))) for i in range(widget.row_count))])
    if isinstance(widget, CachedPlot):
        return "\n".join(line.plain for line in widget.header)
    if isinstance(widget, TextArea):
        return widget.text
    if isinstance(widget, Static):
        strips = Visual.to_strips(widget, visualize(widget, widget.render()), 160, None, widget.visual_style)
        return "\n".join(strip.text for strip in strips)
    return ""


def held(root: Any) -> dict[str, str]:
    """The widgets under ``root`` (shown or not) whose content holds a raw control character."""
    found: dict[str, str] = {}
    for widget in root.walk_children(with_self=True):
        text = _held_text(widget)
        if raw_in(text):
            found.setdefault(f"{type(widget).__name__}#{widget.id}", text)
    return found


Cell = tuple[str, bool, bool, bool, bool]


def screen_cells(app: Any) -> list[list[Cell]]:
    """The screen as the terminal gets it (the compositor's full update, each widget's children drawn
    over it): per row, each cell's character and whether it is reversed, bold, underlined or struck
    through, which is what a terminal without colour still shows."""
    import io

    from rich.console import Console
    from rich.segment import Segment

    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, legacy_windows=False)
    update = app.screen._compositor.render_update(full=True)  # what App.export_screenshot draws
    rows = []
    for line in Segment.split_lines(console.render(update)):
        row: list[Cell] = []
        for segment in line:
            if segment.control:
                continue
            style = segment.style
            marks = tuple(bool(style and getattr(style, a)) for a in ("reverse", "bold", "underline", "strike"))
            row.extend((char, *marks) for char in segment.text)  # type: ignore[misc]
        rows.append(row)
    return rows


def cells_in(app: Any, region: Region) -> list[list[Cell]]:
    """:func:`screen_cells` within ``region`` (a widget's on screen)."""
    rows = screen_cells(app)
    return [rows[y][region.x : region.right] for y in range(region.y, min(region.bottom, len(rows)))]
