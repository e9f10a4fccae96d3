"""A failed run or catalog load: title, message and, when known, where."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ErrorScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,enter,q", "close", "Close", priority=True)]

    def __init__(self, title: str, message: str, where: str | None = None, details: str = "") -> None:
        super().__init__()
        self.error_title = title
        self.error_message = message
        self.where = where
        self.details = details

    def compose(self) -> ComposeResult:
        with Vertical(id="error-box"):
            yield Static(Text("✗ " + self.error_title, style="bold red"), id="error-title")
            with VerticalScroll(id="error-scroll"):
                body = Text(self.error_message)
                if self.where:
                    body = Text.assemble((self.where, "dim"), "\n", body)
                if self.details:
                    body.append("\n\n" + self.details, style="dim")
                yield Static(body, id="error-message")
            yield Static(Text("The previous results are kept. escape to close.", style="dim"))
            yield Button("Close", id="error-close", variant="error", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
