"""A plotext plot built off the UI thread, only when its data, options, size or theme changed."""

from __future__ import annotations

import os
import threading
from typing import Any

from rich.text import Text
from textual import work
from textual.app import RenderResult
from textual.geometry import Region
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual, visualize
from textual_plotext import PlotextPlot

from tuiperf.tui.widgets.plotext_internals import Canvas, set_size
from tuiperf.tui.widgets.plotext_strips import figure_strips

PictureKey = tuple[int, int, int, str]  # the data's version, the size, the theme: one picture each
AFTER_FRAME_S = 0.04  # a frame is painted within ~17 ms of a change (Textual's 60 fps) and takes ~10-20 ms

# Distinct, colour-blind-friendly-ish colours for variants (Okabe-Ito inspired), as RGB for plotext
# and as hex for Rich text, so tables and plots use the same colour for the same variant.
PALETTE = [
    (86, 180, 233),
    (230, 159, 0),
    (204, 121, 167),
    (0, 158, 115),
    (240, 228, 66),
    (0, 114, 178),
    (213, 94, 0),
    (170, 170, 170),
]
MARKERS_NO_COLOR = ["braille", "x", "o", "+", "*", "#", "@", "%"]


# One figure is built at a time across all plots: plotext keeps some state at module level (two
# plots built at once in threads swapped tick labels now and then, seen in the sweep snapshot).
_PLOTEXT_LOCK = threading.Lock()


def no_color() -> bool:
    return bool(os.environ.get("NO_COLOR"))


def variant_rgb(index: int) -> tuple[int, int, int]:
    return PALETTE[index % len(PALETTE)]


def variant_hex(index: int) -> str:
    r, g, b = variant_rgb(index)
    return f"#{r:02x}{g:02x}{b:02x}"


def variant_marker(index: int, default: str = "braille") -> str:
    return MARKERS_NO_COLOR[index % len(MARKERS_NO_COLOR)] if no_color() else default


class CachedPlot(PlotextPlot):
    """Subclasses implement :meth:`draw`; call :meth:`invalidate` after changing their data.

    Building a plotext figure is slow (more so with many overlaid series), and
    ``PlotextPlot.render`` rebuilds it on every refresh. Here the figure is built once per change of
    data, size or theme, in a thread worker, and so are the strips Textual draws (straight from the
    figure's cells, :mod:`plotext_strips`): turning a screenful of coloured cells into strips on the UI
    thread held it up at every new picture (two a second while a run streams). ``render_line`` serves
    the cached strips: the event loop never waits on plotext
    (measured by ``benchmarks/ui_responsiveness.py``). The previous picture stays on screen while the
    next one is drawn.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._version = 0
        self._built: tuple[PictureKey, list[Strip]] | None = None  # (key, the picture's strips)
        self._building: PictureKey | None = None
        self._held = False  # new data not drawn yet: a frame that asks before it is due gets the last picture
        self._frame: tuple[PictureKey, list[Strip]] | None = None  # the picture the frame being drawn shows
        self._frame_width = 0
        self._cell_styles: dict[Any, Any] = {}  # plotext colours -> Rich style, for this widget's style and theme
        self.header: list[Text] = []  # lines above the figure (title, legend): never over the plot

    def invalidate(self, hold: bool = False) -> None:
        """The data changed: draw it anew (with ``hold``, only once :meth:`release` is called)."""
        self._version += 1
        self._held = True  # (a frame that paints the widget meanwhile shows the last picture)
        if not hold:
            self._draw_soon()

    def release(self) -> None:
        """Draw the data held back by :meth:`invalidate` (at the size the widget has by then)."""
        if self._held:
            self._draw_soon()

    def _draw_soon(self) -> None:
        if self.region.area:  # on screen: drawn once the frame showing what changed with it is painted
            # (not when that frame asks: the old picture stays meanwhile), as plotext's pure Python shares
            # the GIL with the event loop: a build started at once doubled that frame (a sweep's end).
            self.set_timer(AFTER_FRAME_S, self._draw_now)
        else:
            self._held = False
            self.refresh()

    def _draw_now(self) -> None:
        self._held = False
        self._current()

    def draw(self, width: int, height: int) -> None:  # pragma: no cover - abstract
        """Set up plotext's figure; lines put in :attr:`header` are drawn above it, outside the plot."""
        raise NotImplementedError

    def text_picture(self, width: int, height: int) -> list[Text] | None:
        """The whole picture as lines of text instead of a plotext figure (None: draw with plotext)."""
        return None

    def finish(self, canvas: Canvas) -> None:
        """Called with the figure's cells once they are laid out, before they become strips."""

    def _theme_name(self) -> str:
        """The plotext theme this plot draws with: for ``theme = "auto"`` the one textual-plotext
        registers for the app's theme, under the name it gives it (pinned in pyproject.toml)."""
        return f"textual-auto-{self.app.theme}" if self.theme == "auto" else self.theme

    def _key(self) -> PictureKey:
        return (self._version, self.size.width, self.size.height, self._theme_name())

    @property
    def settled(self) -> bool:
        """True when the picture on screen shows the current data at the current size."""
        return self._building is None and self._built is not None and self._built[0] == self._key()

    def _current(self) -> tuple[PictureKey, list[Strip]] | None:
        """The picture for the current data and size, else the last one (a build is started)."""
        key = self._key()
        if self._built is not None and self._built[0] == key:
            return self._built
        if self._building != key and not self._held:
            self._building = key
            self._build(key, self.visual_style)
        return self._built

    def render(self) -> RenderResult:
        built = self._current()
        return Text("\n".join(strip.text for strip in built[1])) if built is not None else Text("")

    def render_lines(self, crop: Region) -> list[Strip]:
        # the picture and the width once a frame, not once a line (each asks the compositor)
        self._frame, self._frame_width = self._current(), self.size.width
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        built: tuple[PictureKey, list[Strip]] | None
        if self._frame is not None:
            built, width = self._frame, self._frame_width
        else:
            built, width = self._current(), self.size.width
        if built is None or y >= len(built[1]):
            return Strip.blank(width, self.visual_style.rich_style)
        strip = built[1][y]
        return strip if strip.cell_length == width else strip.adjust_cell_length(width)

    def set_up_figure(self, width: int, height: int, theme: str) -> None:
        """plotext's figure for the current data at this size and theme, not yet laid out (call with
        ``_PLOTEXT_LOCK`` held)."""
        plt = self.plt
        plt.clear_figure()
        self.header = []
        if width > 4 and height > 3:
            self.draw(width, height)
        height -= len(self.header)
        set_size(plt, width, height)
        plt.theme(theme)

    @work(thread=True, group="plots", exit_on_error=False, description="plot")
    def _build(self, key: PictureKey, style: Style) -> None:
        _, width, height, theme = key
        with _PLOTEXT_LOCK:
            try:
                lines = self.text_picture(width, height) if width > 4 and height > 3 else None
                if lines is not None:
                    strips = text_strips(self, lines, width, style)
                else:
                    self.set_up_figure(width, height, theme)
                    strips = figure_strips(self, self.plt, style, self.finish, self._cell_styles)
                    strips = text_strips(self, self.header, width, style) + strips
            except Exception as exc:  # noqa: BLE001 - a broken plot says so instead of vanishing
                error = Text(f"could not draw this plot: {type(exc).__name__}: {exc}", style="red")
                strips = Visual.to_strips(self, visualize(self, error), width, height, style)
        self.app.call_from_thread(self._show_built, key, strips)

    def _show_built(self, key: PictureKey, strips: list[Strip]) -> None:
        self._built, self._frame = (key, strips), None
        if self._building == key:
            self._building = None
        self.refresh()


def text_strips(widget: Any, lines: list[Text], width: int, style: Style) -> list[Strip]:
    """Lines of text as strips ``width`` cells wide, each cut to the width (never wrapped)."""
    if not lines:
        return []
    cut = []
    for line in lines:
        line = line.copy()
        line.truncate(width, overflow="ellipsis", pad=True)  # padded here: Textual's padding has no style
        cut.append(line)
    text = Text("\n").join(cut)
    return Visual.to_strips(widget, visualize(widget, text), width, len(cut), style)
