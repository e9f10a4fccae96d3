"""A ``Static`` that redraws only when what it shows changed, and asks for a layout of the screen
only when its size may have changed.

``Static.update`` lays the whole screen out, the slowest thing the UI thread does: ten progress
updates a second each did, and so did every redraw of an unchanged warning list or bar chart when its
tab was shown or resized.

Text shown with :meth:`TextBlock.show_text` is wrapped once, to the block's width, into the lines it
draws: to know its height the block wrapped it already, and Textual then rendered it again, whole,
at the next paint (the Breakdown's bars: 6-7 ms of a 22 ms frame).
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.text import Text
from textual.strip import Strip
from textual.widgets import Static

_NOTHING = object()


@dataclass(frozen=True)
class Wrapped:
    """Text laid out as the lines a :class:`TextBlock` draws (:func:`wrap`, any thread): wrapped to
    ``width``, or each line as long as it is (``width`` None, a block as wide as its text)."""

    text: Text
    width: int | None
    lines: list[Strip]
    cut: bool = False  # lines longer than the width were cut with an ellipsis instead of wrapped

    def fits(self, width: int) -> bool:
        """Whether these lines are what a block ``width`` cells wide draws."""
        if self.width is None:
            return width >= max((line.cell_length for line in self.lines), default=0)
        return width == self.width


def joined(first: Wrapped, *more: Wrapped) -> Wrapped:
    """Wrapped texts one under the other, as their texts joined by a newline would be (same width)."""
    parts = [first, *more]
    assert all(part.width == first.width and part.cut == first.cut for part in parts)
    text = Text("\n").join(part.text for part in parts)
    return Wrapped(text, first.width, [line for part in parts for line in part.lines], first.cut)


@functools.cache
def _console() -> Console:
    """A console to lay text out with, in any thread (text carries its own styles: no terminal's needed)."""
    return Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=80, legacy_windows=False)


def wrap(text: Text, width: int | None = None, cut: bool = False) -> Wrapped:
    """``text`` as Textual draws it in a block ``width`` cells wide (None: as wide as its longest line):
    wrapped, the spaces a line is broken at not drawn; or with ``cut``, each line cut to the width with
    an ellipsis (CSS ``text-wrap: nowrap; text-overflow: ellipsis``). Each line rendered once; no
    Textual, so a thread can make what a tab will show."""
    console = _console()
    lines: list[Text] = []
    for paragraph in text.split("\n", allow_blank=True) if text.plain else []:
        if width is None:
            lines.append(paragraph)
        elif cut:
            paragraph.truncate(width, overflow="ellipsis")
            lines.append(paragraph)
        else:
            wrapped = paragraph.wrap(console, width)
            for line in wrapped[:-1]:
                line.rstrip()
            lines += wrapped
    return Wrapped(text, width, [Strip(list(line.render(console)), line.cell_len) for line in lines], cut)


class TextBlock(Static):
    _key: Any = _NOTHING  # what the block shows now, compared by value
    _extent: int | None = None
    _wrapped: Wrapped | None = None  # show_text's text as drawn at a width (None: Static draws it)
    last_width = 0  # its content's width when last laid out (a hidden block's size is 0)

    def on_resize(self) -> None:
        self.last_width = self.size.width or self.last_width

    def show(self, content: Any, key: Any = None, extent: int | None = None) -> None:
        """Show ``content`` unless ``key`` (the content itself by default, compared with ``==``) is
        what is shown already. ``extent`` (its lines, or its width) given and unchanged means the
        same size: the block is redrawn without laying the screen out."""
        self._show(content, key, extent, None)

    def _show(self, content: Any, key: Any, extent: int | None, wrapped: Wrapped | None) -> None:
        key = content if key is None else key
        if self._key is not _NOTHING and key == self._key:
            return
        same_size = self._key is not _NOTHING and extent is not None and extent == self._extent
        self._key, self._extent = key, extent
        self._wrapped = wrapped
        self.update(content, layout=not same_size)

    def _width(self) -> int:
        return self.size.width or self.last_width

    def lines_of(self, text: Text) -> int | None:
        """How many lines ``text`` takes wrapped to this block's width (None: never laid out yet)."""
        width = self._width()
        return (len(text.wrap(_console(), width)) if text.plain else 0) if width else None

    def show_text(self, text: Text | Wrapped) -> None:
        """Show ``text`` (or text :func:`wrap`-ped already, in a thread), laying the screen out again
        only when its wrapped height changes (every ``Static.update`` lays out all of the screen's
        widgets)."""
        wrapped, plain = (text, text.text) if isinstance(text, Wrapped) else (None, text)
        as_wide_as_text = self.styles.width is not None and self.styles.width.is_auto
        width = None if as_wide_as_text else self._width()
        cut = self.styles.text_wrap == "nowrap" and self.styles.text_overflow == "ellipsis"
        if self._key is not _NOTHING and plain == self._key:
            if self._wrapped is None and self._extent is None and width != 0:
                # shown before the block had a width: its lines now, so that the next text of as many
                # lays nothing out (a sweep's waiting caption, on a tab not laid out yet)
                if wrapped is None or wrapped.cut != cut or wrapped.width != width:
                    wrapped = wrap(plain, width, cut)
                self._wrapped, self._extent = wrapped, len(wrapped.lines)
            return
        if wrapped is None or wrapped.cut != cut or (width != 0 and wrapped.width != width):
            # (a block never laid out has no width yet: the one the text was wrapped to is a fair guess)
            wrapped = wrap(plain, width, cut) if width != 0 else None
        self._show(plain, None, None if wrapped is None else len(wrapped.lines), wrapped)

    def _drawn_lines(self, width: int) -> list[Strip] | None:
        """The lines made by :meth:`show_text`, if they are what this block draws at ``width``."""
        wrapped = self._wrapped
        return wrapped.lines if wrapped is not None and wrapped.fits(width) else None

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        lines = self._drawn_lines(width)
        return len(lines) if lines is not None else super().get_content_height(container, viewport, width)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        lines = self._drawn_lines(width)
        if lines is None:
            return super().render_line(y)
        style = self.visual_style.rich_style
        if y >= len(lines):
            return Strip.blank(width, style)
        # The block's own style under the text's, and every cell styled (NO_COLOR's filter expects it)
        return lines[y].extend_cell_length(width).apply_style(style)

    @property
    def extent(self) -> int | None:
        """The extent given with what is shown (its lines, or its width), if one was."""
        return self._extent
