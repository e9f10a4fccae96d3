"""Rows of cells as aligned text: what Rich's ``Table`` draws for a borderless table, at a fraction
of the cost.

Rich measures every cell twice and lays the table out again at each render; in a ``Static`` Textual
renders it once to find its height and once to draw it: at each progress update and on a tab's first
show (the breakdown's two tables), many times what padded text costs (benchmarks/ui_responsiveness.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text

GAP = "  "  # between columns


def aligned(rows: Sequence[Sequence[Text]], justify: str) -> list[list[Text]]:
    """Each cell padded to its column's width, the width of the column's widest cell. ``justify`` has
    a letter per column, ``l`` or ``r`` (``"lrrl"``: the first and last columns aligned left).

    Each cell is tagged with its column (style meta), which keeps it a text run of its own: Rich's
    SVG export merges a row into one run, and cairosvg draws "—", "×" or "µ" in a fallback font of
    another width, pushing every later cell out of its column in the screenshots."""
    widths = [max((row[i].cell_len for row in rows), default=0) for i in range(len(justify))]
    table = []
    for row in rows:
        cells = []
        for column, (cell, width, side) in enumerate(zip(row, widths, justify, strict=True)):
            padding = " " * (width - cell.cell_len)
            padded = Text.assemble(padding, cell) if side == "r" else Text.assemble(cell, padding)
            padded.stylize(Style.from_meta({"column": column}))
            cells.append(padded)
        table.append(cells)
    return table


def columns(rows: Sequence[Sequence[Text]], justify: str) -> list[Text]:
    """One line per row, its cells aligned (see :func:`aligned`) and two spaces between columns."""
    lines = [Text(GAP).join(cells) for cells in aligned(rows, justify)]
    for line in lines:
        line.rstrip()  # a last column aligned left is not padded
    return lines


def fitted(rows: Sequence[Sequence[Text]], justify: str, width: int) -> list[Text]:
    """:func:`columns` when the table fits ``width`` cells (0: not known yet); otherwise each row
    below the header (``rows[0]``) as its first cell, then ``header value`` pairs wrapped between
    pairs, so a narrow screen reads every column without scrolling sideways."""
    lines = columns(rows, justify)
    if not width or not rows or max((line.cell_len for line in lines), default=0) <= width:
        return lines
    header, *body = rows
    stacked: list[Text] = []
    for row in body:
        stacked.append(row[0].copy())
        current = Text("  ")
        for name, cell in zip(header[1:], row[1:]):
            pair = Text.assemble(name.plain, " ", cell)
            if current.plain.strip() and current.cell_len + 3 + pair.cell_len > width:
                stacked.append(current)
                current = Text("  ")
            current.append_text(Text("   ") + pair if current.plain.strip() else pair)
        stacked.append(current)
    return stacked
