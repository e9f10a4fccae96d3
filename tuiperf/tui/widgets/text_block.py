"""A ``Static`` that redraws only when what it shows changed, and asks for a layout of the screen
only when its size may have changed.

``Static.update`` lays the whole screen out, the slowest thing the UI thread does: ten progress
updates a second each did, and so did every redraw of an unchanged warning list or bar chart when its
tab was shown or resized.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

_NOTHING = object()


class TextBlock(Static):
    _key: Any = _NOTHING  # what the block shows now, compared by value
    _extent: int | None = None
    last_width = 0  # its content's width when last laid out (a hidden block's size is 0)

    def on_resize(self) -> None:
        self.last_width = self.size.width or self.last_width

    def show(self, content: Any, key: Any = None, extent: int | None = None) -> None:
        """Show ``content`` unless ``key`` (the content itself by default, compared with ``==``) is
        what is shown already. ``extent`` (its lines, or its width) given and unchanged means the
        same size: the block is redrawn without laying the screen out."""
        key = content if key is None else key
        if self._key is not _NOTHING and key == self._key:
            return
        same_size = self._key is not _NOTHING and extent is not None and extent == self._extent
        self._key, self._extent = key, extent
        self.update(content, layout=not same_size)

    def lines_of(self, text: Text) -> int | None:
        """How many lines ``text`` takes wrapped to this block's width (None: never laid out yet)."""
        width = self.size.width or self.last_width
        return (len(text.wrap(self.app.console, width)) if text.plain else 0) if width else None

    def show_text(self, text: Text) -> None:
        """Show ``text``, laying the screen out again only when its wrapped height changes (every
        ``Static.update`` lays out all of the screen's widgets)."""
        self.show(text, extent=self.lines_of(text))

    @property
    def extent(self) -> int | None:
        """The extent given with what is shown (its lines, or its width), if one was."""
        return self._extent
