"""Updating a Static on a hidden tab without laying the whole screen out.

``Static.update`` asks for a layout of the screen, and one costs 30-110 ms at 160 x 48 on the 2-core
machine: when a run ended, the five hidden result tabs being filled cost one each turn. A static on a
hidden tab needs no layout now: the one that shows its tab sizes it, once Textual's cached sizes for it
are forgotten here, as ``Widget.refresh(layout=True)`` forgets them (private attributes, so
``tests/tui/test_tui_app.py`` checks such a static gets its height when its tab is shown).
"""

from __future__ import annotations

from textual.visual import VisualType
from textual.widget import Widget
from textual.widgets import Static


def hidden(widget: Widget) -> bool:
    """Whether the widget is on a hidden tab (or inside anything else not displayed)."""
    return any(isinstance(node, Widget) and not node.display for node in widget.ancestors_with_self)


def update(static: Static, content: VisualType) -> None:
    """``static.update(content)``, with a layout of the screen only when the static can be seen."""
    if not hidden(static):
        static.update(content)
        return
    static.update(content, layout=False)
    static._layout_updates += 1  # its box model is cached under this count
    for ancestor in static.ancestors:  # the containers whose arrangement depends on its size
        if not isinstance(ancestor, Widget):
            break
        ancestor._clear_arrangement_cache()
        ancestor._layout_updates += 1
        if not ancestor.styles.auto_dimensions:
            break
