"""A read-only table drawn a line at a time: a header that stays put, rows that scroll both ways, zebra
stripes, columns as wide as their widest cell.

The Statistics tab used Textual's ``DataTable``, which renders every cell through Rich on each fill and
again after each resize (most of the tab's first show after a run). Here each row is one aligned line
of text turned into segments once, when the table is filled; drawing a line crops it to the view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tuiperf.tui.text_table import columns


def grid_lines(headers: Sequence[str], justify: str, rows: Sequence[tuple[str, Sequence[Text]]]) -> list[Text]:
    """The header's line and a line per row, each column as wide as its widest cell (no Textual: a
    thread can make them)."""
    header = [Text(name) for name in headers]
    by_key = {key: list(cells) for key, cells in rows}  # a key once, as the table holds its rows
    # A column of margin each side, as DataTable's cell padding had.
    return [Text(" ") + line for line in columns([header, *by_key.values()], justify)]


class TextGrid(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {"text-grid--header", "text-grid--even-row"}
    DEFAULT_CSS = """
    TextGrid {
        background: $surface;
        color: $foreground;
        height: auto;
        max-height: 100%;
        &:focus { background-tint: $foreground 5%; }
        & > .text-grid--header { text-style: bold; background: $panel; color: $foreground; }
        &:ansi > .text-grid--header { background: ansi_bright_blue; color: ansi_default; }
        & > .text-grid--even-row { background: $surface-lighten-1 50%; }
        &:dark > .text-grid--even-row { background: $surface-darken-1 40%; }
    }
    """

    def __init__(self, headers: Sequence[str], justify: str, **kwargs: Any) -> None:
        """``justify``: a letter per column, ``l`` or ``r`` (see :func:`~tuiperf.tui.text_table.columns`)."""
        super().__init__(**kwargs)
        self.headers = list(headers)
        self.justify = justify
        self._cells: dict[str, list[Text]] = {}  # each row's cells by its key, in order
        self._lines: list[Strip] = []  # the header's line, then a line per row

    def set_rows(self, rows: Sequence[tuple[str, Sequence[Text]]], lines: list[Text] | None = None) -> None:
        """Replace the rows: ``(key, cells)`` each, a cell per header; ``lines``, if given, are
        :func:`grid_lines` of them (made off the UI thread)."""
        self._cells = {key: list(cells) for key, cells in rows}
        if lines is None:
            lines = grid_lines(self.headers, self.justify, rows)
        console = self.app.console
        self._lines = [Strip(list(line.render(console)), line.cell_len) for line in lines]
        width = max(strip.cell_length for strip in self._lines) + 1
        self.virtual_size = Size(width, len(self._lines))  # lays the screen out only if it changed
        self.refresh()

    def clear(self) -> None:
        self.set_rows([])

    # Named as DataTable's, which this replaces.
    @property
    def row_count(self) -> int:
        return len(self._cells)

    @property
    def keys(self) -> list[str]:
        """The rows' keys, in order."""
        return list(self._cells)

    def get_row(self, key: str) -> list[str]:
        """The cells of the row ``key``, as text."""
        return [cell.plain for cell in self._cells[key]]

    def get_cell(self, key: str, header: str) -> str:
        return self._cells[key][self.headers.index(header)].plain

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        scroll_x, scroll_y = self.scroll_offset
        index = 0 if y == 0 else y + scroll_y  # the header stays put while the rows scroll under it
        if index >= len(self._lines):
            return Strip.blank(width, self.rich_style)
        line = self._lines[index].crop(scroll_x, scroll_x + width)
        if index == 0:
            style = self.get_component_rich_style("text-grid--header")
        elif index % 2 == 0:
            style = self.get_component_rich_style("text-grid--even-row")
        else:
            style = self.rich_style
        # Every segment styled: Textual's filters (NO_COLOR's monochrome) expect a style on each.
        return line.extend_cell_length(width).apply_style(style)
