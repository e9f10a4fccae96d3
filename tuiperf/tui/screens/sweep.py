"""``w``: choose a parameter and the values to sweep it over, and optionally a second one to make a
grid; each value is validated by the core, the pair as the command line's two ``--sweep`` are."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from tuiperf.api.params import MAX_LIST, Param, check_grid
from tuiperf.common.errors import ParamError
from tuiperf.common.text import one_line
from tuiperf.tui.formatting import split_values, suggest_sweep

Axis = tuple[str, list[Any]]  # a swept parameter and its typed values

ONE_PARAMETER = "(none: sweep one)"


class SweepScreen(ModalScreen["list[Axis] | None"]):
    """Returns the swept axes, one (a sweep) or two (a grid, rows then columns), or None when dismissed."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", priority=True)]
    AUTO_FOCUS = "#sweep-values"

    def __init__(self, specs: dict[str, Param], current: str | None = None) -> None:
        super().__init__()
        self.specs = specs
        self.current = current if current in specs else next(iter(specs), None)
        self.second: str | None = None
        self._suggested: dict[str, str] = {}  # a values field's id -> the suggestion put there last

    def _second_choices(self) -> list[tuple[Text, str]]:
        """The parameters a grid's second axis can be: any but the first."""
        return [(Text(n), n) for n in self.specs if n != self.current]

    def compose(self) -> ComposeResult:
        names = [(Text(n), n) for n in self.specs]
        with Vertical(id="sweep-box"):
            yield Static("[b]Sweep a parameter[/b] (or two: a grid)")
            yield Static(
                "One run per value, plotted log-log; with a second parameter, one per pair: a heat map.",
                classes="dim",
            )
            with Horizontal(classes="param-line"):
                yield Label("parameter", classes="param-name")
                yield Select(names, value=self.current, allow_blank=False, id="sweep-param", compact=True)
            with Horizontal(classes="param-line"):
                yield Label("values", classes="param-name")
                first = self._suggested["sweep-values"] = (
                    suggest_sweep(self.specs[self.current]) if self.current else ""
                )
                yield Input(
                    first,
                    id="sweep-values",
                    compact=True,
                    placeholder="comma-separated values",
                )
            with Horizontal(classes="param-line"):
                yield Label("and over", classes="param-name")
                yield Select(self._second_choices(), prompt=ONE_PARAMETER, id="sweep-param-2", compact=True)
            with Horizontal(classes="param-line"):
                yield Label("its values", classes="param-name")
                yield Input(id="sweep-values-2", compact=True, placeholder="empty: sweep one parameter")
            yield Static("", id="sweep-error", classes="param-error")
            with Horizontal(id="sweep-buttons"):
                yield Button("Sweep", id="sweep-go", variant="primary", compact=True)
                yield Button("Cancel", id="sweep-cancel", compact=True)

    def _axis(self, name: str, text: str) -> Axis:
        spec = self.specs[name]
        raw = split_values(text)
        if len(raw) < 2:
            raise ParamError("give at least two values", where=name)
        if len(raw) > MAX_LIST:
            raise ParamError(f"sweep over {name} has {len(raw)} values; at most {MAX_LIST}")
        return name, [spec.parse(v) for v in raw]

    def parsed(self) -> list[Axis]:
        """The first axis, then the second when its values are given (the same checks as two ``--sweep``)."""
        first = str(self.query_one("#sweep-param", Select).value)
        axes = [self._axis(first, self.query_one("#sweep-values", Input).value)]
        second = self.query_one("#sweep-param-2", Select).value
        text = self.query_one("#sweep-values-2", Input).value
        if split_values(text):
            if not isinstance(second, str):
                raise ParamError("choose the parameter the second values are for ('and over')")
            axes.append(self._axis(second, text))
        check_grid(axes)
        return axes

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
        value = event.value if isinstance(event.value, str) and event.value in self.specs else None
        if event.select.id == "sweep-param-2":
            if value != self.second:
                self.second = value
                self._suggest("sweep-values-2", value)
        elif value is not None and value != self.current:
            self.current = value
            self._suggest("sweep-values", value)
            second = self.query_one("#sweep-param-2", Select)
            with self.prevent(Select.Changed):
                second.set_options(self._second_choices())  # never the first parameter twice
                if self.second is not None and self.second != value:
                    second.value = self.second
            if self.second == value:
                self.second = None
                self._suggest("sweep-values-2", None)
        if self.is_mounted:
            self._check()  # the same parameter twice is told at once, whatever the values

    def _suggest(self, field_id: str, name: str | None) -> None:
        """Fill a values field with the parameter's suggested sweep, unless the user typed there (the
        field holds something other than the last suggestion): what was typed is kept."""
        field = self.query_one(f"#{field_id}", Input)
        if field.value.strip() and field.value != self._suggested.get(field_id):
            return
        field.value = self._suggested[field_id] = suggest_sweep(self.specs[name]) if name else ""

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
