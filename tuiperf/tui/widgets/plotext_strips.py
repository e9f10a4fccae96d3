"""A plotext figure's cells straight into Textual strips, without a detour through ANSI text.

``figure.build()`` writes every cell's colours as escape codes; Rich parses them back into a Text and
Textual lays that out into strips, which cost more than building the figure. The figure already
holds the cells (marker, foreground, style and background matrices), so each run of equal colours
becomes one segment, styled exactly as that path styles it (a test checks the two agree cell for
cell), at a fraction of the cost. It reads plotext's cells (through :class:`plotext_internals.Canvas`),
which is why plotext is pinned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual, visualize
from textual.widget import Widget

from tuiperf.tui.widgets.plotext_internals import Canvas, Colours, cell_ansi, lay_out

_OFFSETS: dict[tuple[int, int], RichStyle] = {}  # (x, y) -> its offset style: the same from build to build


def figure_strips(
    widget: Widget,
    figure: Any,
    style: Style,
    finish: Callable[[Canvas], None] | None = None,
    cell_styles: dict[Any, RichStyle] | None = None,
) -> list[Strip]:
    """Lay out the figure (without rendering it to text), let ``finish`` add to its cells,
    and return its rows as strips. ``cell_styles`` keeps each colour combination's style from one
    build to the next (rendering one is not free, and a histogram has about ten)."""
    canvas = lay_out(figure)
    if finish is not None:
        finish(canvas)
    cell_styles = {} if cell_styles is None else cell_styles
    strips = []
    width = canvas.width
    for y, (markers, fg, st, bg) in enumerate(canvas.rows_top_down()):
        segments, start = [], 0
        for col in range(1, width + 1):
            if col < width and fg[col] == fg[start] and st[col] == st[start] and bg[col] == bg[start]:
                continue
            colours = (fg[start], st[start], bg[start])
            key = (_hashable(colours), style)
            cell_style = cell_styles.get(key)
            if cell_style is None:
                cell_style = cell_styles[key] = _cell_style(widget, colours, style)
            # the offset Textual's own rendering marks each segment with (for selection); it also keeps
            # runs apart in an SVG export, where one long run is drawn misplaced
            offset = _OFFSETS.get((start, y))
            if offset is None:
                offset = _OFFSETS[start, y] = RichStyle.from_meta({"offset": (start, y)})
            segments.append(Segment("".join(markers[start:col]), cell_style + offset))
            start = col
        strips.append(Strip(segments, width))
    return strips


def _cell_style(widget: Widget, colours: Colours, style: Style) -> RichStyle:
    """The style Textual gives a cell of these plotext colours on this widget: rendered once, the
    same way as the whole picture would be."""
    cell = Text.from_ansi(cell_ansi(*colours))
    (strip,) = Visual.to_strips(widget, visualize(widget, cell), 1, 1, style)
    (segment,) = list(strip)
    return (segment.style or RichStyle()).clear_meta_and_links()


def _hashable(colours: Colours) -> Colours:
    fg, st, bg = colours
    return (tuple(fg) if isinstance(fg, list) else fg, st, tuple(bg) if isinstance(bg, list) else bg)
