"""A selection list whose boxes read [x] and [ ]: the state shows by shape, with NO_COLOR too."""

from __future__ import annotations

from rich.segment import Segment
from textual import events
from textual.strip import Strip
from textual.widgets import SelectionList


class Checklist(SelectionList[str]):
    """Textual's SelectionList draws the same "X" for selected and unselected options and tells them
    apart by colour only. Here the box is ``[x]`` or ``[ ]``; focusing it highlights the first option
    so space toggles at once."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        index = self.scroll_offset[1] + y
        if len(segments) < 4 or index >= self.option_count:
            return strip
        selected = self.get_option_at_index(index).value in self.selected
        left, inner, right = segments[:3]
        boxed = [Segment("[", left.style), Segment("x" if selected else " ", inner.style), Segment("]", right.style)]
        return Strip([*boxed, *segments[3:]], strip.cell_length)

    def on_focus(self, event: events.Focus) -> None:
        if self.highlighted is None and self.option_count:
            self.highlighted = 0
