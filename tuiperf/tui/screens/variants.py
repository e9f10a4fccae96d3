"""``v``: which variants the histogram draws (as many strips as its height holds)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tuiperf.common.text import one_line
from tuiperf.tui.widgets.checklist import Checklist
from tuiperf.tui.widgets.histogram import MAX_DRAWN


class VariantPickerScreen(ModalScreen["list[str] | None"]):
    """Returns the chosen names, or None when dismissed."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", priority=True), Binding("enter", "done", "Done", priority=True)]
    AUTO_FOCUS = "#plotted"

    def __init__(self, names: list[str], chosen: list[str]) -> None:
        super().__init__()
        self.names, self.chosen = names, chosen

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Static(f"[b]Variants to draw[/b] (as many as fit, at most {MAX_DRAWN}; space toggles, enter applies)")
            # Text: a str prompt is read as markup ('[link=...' in a name raised MarkupError)
            options = [(Text(one_line(n, 40)), n, n in self.chosen) for n in self.names]
            yield Checklist(*options, id="plotted", compact=True)
            with Horizontal(id="picker-buttons"):
                yield Button("Draw  enter", id="picker-done", variant="primary", compact=True)
                yield Button("Cancel  esc", id="picker-cancel", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "picker-done":
            self.action_done()
        else:
            self.action_cancel()

    def action_done(self) -> None:
        self.dismiss(list(self.query_one(Checklist).selected))

    def action_cancel(self) -> None:
        self.dismiss(None)
