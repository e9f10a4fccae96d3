"""``w``: choose a parameter and the values to sweep it over; each value is validated by the core."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from tuiperf.api.params import Param
from tuiperf.common.errors import ParamError
from tuiperf.common.text import one_line
from tuiperf.tui.formatting import split_values, suggest_sweep


class SweepScreen(ModalScreen["tuple[str, list[Any]] | None"]):
    """Returns ``(parameter, typed values)`` or None when dismissed."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", priority=True)]
    AUTO_FOCUS = "#sweep-values"

    def __init__(self, specs: dict[str, Param], current: str | None = None) -> None:
        super().__init__()
        self.specs = specs
        self.current = current if current in specs else next(iter(specs), None)

    def compose(self) -> ComposeResult:
        with Vertical(id="sweep-box"):
            yield Static("[b]Sweep a parameter[/b]")
            yield Static("One run per value; the medians are plotted log-log with a fitted slope.", classes="dim")
            with Horizontal(classes="param-line"):
                yield Label("parameter", classes="param-name")
                yield Select(
                    [(Text(n), n) for n in self.specs],
                    value=self.current,
                    allow_blank=False,
                    id="sweep-param",
                    compact=True,
                )
            with Horizontal(classes="param-line"):
                yield Label("values", classes="param-name")
                yield Input(
                    suggest_sweep(self.specs[self.current]) if self.current else "",
                    id="sweep-values",
                    compact=True,
                    placeholder="comma-separated values",
                )
            yield Static("", id="sweep-error", classes="param-error")
            with Horizontal(id="sweep-buttons"):
                yield Button("Sweep", id="sweep-go", variant="primary", compact=True)
                yield Button("Cancel", id="sweep-cancel", compact=True)

    def parsed(self) -> tuple[str, list[Any]]:
        name = str(self.query_one("#sweep-param", Select).value)
        spec = self.specs[name]
        raw = split_values(self.query_one("#sweep-values", Input).value)
        if len(raw) < 2:
            raise ParamError("give at least two values", where=name)
        values = [spec.parse(v) for v in raw]
        return name, values

    def _check(self) -> bool:
        err = self.query_one("#sweep-error", Static)
        try:
            self.parsed()
        except ParamError as exc:
            err.update(Text(f"✗ {one_line(exc)}"))  # the message quotes what was typed: never markup
            err.add_class("-shown")
            return False
        err.update("")
        err.remove_class("-shown")
        return True

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        values = self.query("#sweep-values")
        if isinstance(event.value, str) and event.value in self.specs and values and event.value != self.current:
            self.current = event.value
            values.first(Input).value = suggest_sweep(self.specs[event.value])

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._check()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._go()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "sweep-go":
            self._go()
        else:
            self.dismiss(None)

    def _go(self) -> None:
        if self._check():
            self.dismiss(self.parsed())

    def action_cancel(self) -> None:
        self.dismiss(None)
