"""Ask before throwing something away: a running measurement, unsaved edits, a shadowing copy."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("escape,n", "answer(False)", "No", priority=True),
        Binding("y", "answer(True)", "Yes", priority=True),
    ]
    AUTO_FOCUS = "#confirm-no"

    def __init__(self, question: str, yes: str, no: str = "Keep measuring") -> None:
        super().__init__()
        self.question, self.yes, self.no = question, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(Text(self.question), id="confirm-question")  # it may name a file: never markup
            with Horizontal(id="confirm-buttons"):
                yield Button(f"{self.yes}  y", id="confirm-yes", variant="warning", compact=True)
                yield Button(f"{self.no}  n", id="confirm-no", variant="primary", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
