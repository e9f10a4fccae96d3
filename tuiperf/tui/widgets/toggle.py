"""A one-line switch that says what state it is in: ``━━● on`` / ``●━━ off``.

Textual's Switch draws only a slider, which at one line high (and without colour) does not show
whether it is on. Same events and keys as Switch (space or enter toggles, a click toggles).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import RenderResult
from textual.geometry import Size
from textual.widgets import Switch


class Toggle(Switch):
    DEFAULT_CSS = """
    Toggle {
        border: none;
        height: 1;
        padding: 0;
        width: 8;
        background: transparent;
    }
    Toggle:focus {
        border: none;
        text-style: reverse;
    }
    """

    def render(self) -> RenderResult:
        if self.value:
            return Text.assemble(("━━", "dim"), ("●", "bold green"), (" on", "bold"))
        return Text.assemble(("●", "bold"), ("━━", "dim"), " off")

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return 6
