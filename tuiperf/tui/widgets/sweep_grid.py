"""The Sweep tab for a grid (two ``--sweep``): a heat map per variant, rows the first parameter, columns
the second, each cell the variant's ratio to the baseline there with its 95 % interval (``m``: time per
call instead).

Every cell prints its number; the shading is extra: red where the variant is slower than the
baseline, green where faster, deeper the larger the ratio (log scale, full at 8×), and none where the
95 % interval holds 1× (not told apart). Under NO_COLOR there is no shading and the numbers still read.
"""

from __future__ import annotations

import math
from typing import Any

from rich.color import Color
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll

from tuiperf.results.grid import GridCell, GridTable, ratio_text, time_text
from tuiperf.tui.text_table import fitted
from tuiperf.tui.widgets.plot_base import no_color
from tuiperf.tui.widgets.text_block import TextBlock

QUANTITIES = ("ratio", "time")  # what each cell shows (key m switches)
FULL_SHADE = 8.0  # a ratio this far from 1× (either way) gets the deepest shade
NEUTRAL, SLOWER, FASTER = (32, 32, 32), (150, 30, 30), (25, 115, 45)


def shade(cell: GridCell) -> Style:
    """The cell's background: how much slower (red) or faster (green) than the baseline, log scale;
    none when the 95 % interval holds 1× or colours are off."""
    if no_color() or cell.ratio is None:
        return Style()
    lo, hi = cell.ratio.ci95
    if lo <= 1.0 <= hi or not cell.ratio.ratio > 0:
        return Style()
    depth = min(abs(math.log(cell.ratio.ratio)) / math.log(FULL_SHADE), 1.0)
    target = SLOWER if cell.ratio.ratio > 1 else FASTER
    rgb = [round(n + (t - n) * (0.35 + 0.65 * depth)) for n, t in zip(NEUTRAL, target, strict=True)]
    return Style(bgcolor=Color.from_rgb(*rgb), color="white")


def table_lines(table: GridTable, quantity: str, width: int, cells_of: str) -> list[Text]:
    """One variant's heat map: its title, then a row per value of the first parameter."""
    (row_name, row_values), (column_name, column_values) = table.rows, table.columns
    if quantity == "ratio":
        what = f"{table.variant} ÷ {table.baseline} (95 % CI)"
    else:
        what = f"{table.variant}: time per call" + (" (the baseline)" if table.is_baseline else "")
    texts = [[time_text(c) if quantity == "time" else ratio_text(c) for c in cells] for cells in table.cells]
    widths = [max(len(row[i]) for row in texts) for i in range(len(column_values))]
    header = [Text(f"{row_name} \\ {column_name}", style="bold")]
    header += [Text(f"{value} ".rjust(w + 2), style="bold") for value, w in zip(column_values, widths, strict=True)]
    rows: list[list[Text]] = [header]
    for value, cells, row in zip(row_values, table.cells, texts, strict=True):
        shaded = [
            Text(f" {text.rjust(w)} ", style=shade(cell)) for cell, text, w in zip(cells, row, widths, strict=True)
        ]
        rows.append([Text(f"{row_name}={value}"), *shaded])
    return [Text(f"{what} · {cells_of}", style="bold"), *fitted(rows, "l" + "r" * len(column_values), width)]


class SweepGrid(VerticalScroll):
    """Each variant's heat map over a grid's cells (``show``); ``toggle_quantity``: ratio or time."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tables: list[GridTable] = []
        self.title = ""
        self.notes: list[str] = []
        self.quantity = "ratio"

    def compose(self) -> ComposeResult:
        yield TextBlock("", id="sweep-grid-maps")

    def show(self, tables: list[GridTable], title: str, notes: list[str] | None = None) -> None:
        self.tables, self.title, self.notes = tables, title, list(notes or [])
        self.refresh_maps()

    def toggle_quantity(self) -> str:
        self.quantity = QUANTITIES[(QUANTITIES.index(self.quantity) + 1) % len(QUANTITIES)]
        self.refresh_maps()
        return self.quantity

    def on_resize(self) -> None:
        self.refresh_maps()

    def refresh_maps(self) -> None:
        width = max(self.size.width - 2, 0)
        shown = [t for t in self.tables if self.quantity == "time" or not t.is_baseline]
        lines: list[Text] = []
        for table in shown:
            if not table.measured:  # skipped or failed at every cell (the Warnings tab says why)
                lines += [Text(f"{table.variant}: not measured at any cell", style="bold"), Text("")]
                continue
            lines += [*table_lines(table, self.quantity, width, self.title), Text("")]
        other = "time per call" if self.quantity == "ratio" else "ratio to the baseline"
        shading = "" if no_color() else "red slower, green faster than the baseline (none: CI holds 1×) · "
        lines.append(Text(f"{shading}m: {other}", style="dim"))
        lines += [Text(f"Does the extra fixed cost matter at your size? {note}", style="dim") for note in self.notes]
        self.query_one("#sweep-grid-maps", TextBlock).show_text(Text("\n").join(lines))
