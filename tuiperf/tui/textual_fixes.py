"""Every use of Textual's private API, in one file (as memray keeps its ``_textual_hacks.py``): three
fixes to Textual 8.2's layout bookkeeping, each of which made it arrange the whole screen once more
than needed (the most expensive step of a frame with a result shown).

- :meth:`Compositor.reflow` arranges every widget, but leaves the full map marked stale when it was
  marked before: the next paint asks a widget's region and arranges the whole screen again. Each tab
  switch paid it (the newly shown pane was stale when the switch was asked for).
- :meth:`Compositor.update_widgets` marks the full map stale when a widget to repaint is not on
  screen, meaning a new one, but a widget already arranged and merely out of sight (scrolled out of
  the setup panel, as the Cancel button is at a run's end) changes no geometry by being repainted.
- :meth:`Widget._size_updated`, called for each widget the screen's layout has just resized, sets its
  new virtual size as a reactive that asks for a layout again. A widget that cannot scroll (no
  children, no layout: a text block, a plot) has nothing that another layout would place
  differently, so its virtual size is set without asking (as Textual does after a scroll). Each text
  block that grew (a sweep's caption at its end) made the screen lay out twice.

Each is wrapped, not rewritten: Textual's own code runs (with the flag put right after it, or asked
for no layout). Where Textual no longer has what they wrap, nothing is applied (:func:`apply` returns
False) and Textual runs as it is; ``tests/tui/test_tui_textual_fixes.py`` says so, and checks that no
other module reaches Textual's private API.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from textual.widget import Widget

try:
    from textual._compositor import Compositor
except ImportError:  # another Textual: nothing to fix here
    Compositor = None  # type: ignore[assignment,misc]

_applied = False


def _fits(compositor_class: Any) -> bool:
    """Whether this Textual's compositor is the one these fixes were written for."""
    probe = compositor_class()
    sized = getattr(Widget, "_size_updated", None)
    return (
        all(callable(getattr(compositor_class, name, None)) for name in ("reflow", "update_widgets"))
        and isinstance(getattr(probe, "_full_map_invalidated", None), bool)
        and isinstance(getattr(probe, "_full_map", None), dict)
        and callable(sized)
        and list(inspect.signature(sized).parameters) == ["self", "size", "virtual_size", "container_size", "layout"]
    )


def _reflow_leaves_map_fresh(reflow: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(reflow)
    def fixed(self: Any, parent: Any, size: Any) -> Any:
        result = reflow(self, parent, size)
        self._full_map_invalidated = False  # reflow has just arranged every widget
        return result

    return fixed


def _repaint_keeps_arranged_map(update_widgets: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(update_widgets)
    def fixed(self: Any, widgets: set[Any]) -> None:
        arranged = not self._full_map_invalidated and self._full_map.keys() >= widgets
        update_widgets(self, widgets)
        if arranged:  # none is new: their places in the map still hold
            self._full_map_invalidated = False

    return fixed


def _leaf_resize_lays_out_nothing(size_updated: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(size_updated)
    def fixed(self: Any, size: Any, virtual_size: Any, container_size: Any, layout: bool = True) -> bool:
        return bool(size_updated(self, size, virtual_size, container_size, layout=layout and self.is_scrollable))

    return fixed


def apply() -> bool:
    """Apply the fixes once per process; False when this Textual lacks what they fix."""
    global _applied
    if _applied:
        return True
    if Compositor is None or not _fits(Compositor):
        return False
    Compositor.reflow = _reflow_leaves_map_fresh(Compositor.reflow)  # type: ignore[method-assign]
    Compositor.update_widgets = _repaint_keeps_arranged_map(Compositor.update_widgets)  # type: ignore[method-assign]
    Widget._size_updated = _leaf_resize_lays_out_nothing(Widget._size_updated)  # type: ignore[method-assign]
    _applied = True
    return True
