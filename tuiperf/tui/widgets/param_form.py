"""The parameter form: typed inputs, selects for choices, switches for booleans, live validation.

Validation is the core's own: every value goes through ``Param.parse`` (see
:mod:`tuiperf.api.params`), so the form accepts exactly what a run would accept and shows the
core's message when it does not.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.validation import ValidationResult, Validator
from textual.widget import Widget
from textual.widgets import Input, Label, Select, Static, Switch

from tuiperf.api.params import Bool, Choice, Float, Int, Param
from tuiperf.common.errors import ParamError
from tuiperf.common.text import inert, one_line
from tuiperf.contract.catalog import ParamSpec
from tuiperf.tui.widgets.toggle import Toggle


class ParamValidator(Validator):
    """Textual validator backed by the core's ``Param.parse``."""

    def __init__(self, spec: Param) -> None:
        super().__init__()
        self.spec = spec

    def validate(self, value: str) -> ValidationResult:
        try:
            self.spec.parse(value)
        except ParamError as exc:
            return self.failure(exc.message, value)
        return self.success()


class ParamForm(Vertical):
    """One row per parameter; :attr:`errors` maps a parameter to why its value is not allowed."""

    DEFAULT_CSS = """
    ParamForm {
        height: auto;
    }
    """

    @dataclass
    class Changed(Message):
        form: ParamForm
        name: str

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.specs: dict[str, Param] = {}
        self.errors: dict[str, str] = {}
        self._generation = 0  # the form readers see: ids of its fields start with f"p{_generation}-"
        self._requested = 0  # the newest set_params call; older ones that are still waiting give way
        self._rebuilding = asyncio.Lock()
        self.owner: str | None = None  # the scenario whose parameters the form shows

    def compose(self) -> ComposeResult:
        yield Static("no parameters", id="no-params", classes="dim")

    async def set_params(
        self, params: list[ParamSpec], values: dict[str, Any] | None = None, owner: str | None = None
    ) -> bool:
        """Rebuild the form for ``owner``'s parameter descriptions, optionally with given values.

        Returns False when a newer call superseded this one before it was shown.
        """
        values = values or {}
        self._requested += 1
        gen = self._requested
        specs = {p.name: p.to_param() for p in params}
        # Scenarios chosen in quick succession (typing in the filter) call this while an earlier
        # rebuild is still awaiting its mount: rebuilds run one at a time, and only the newest runs.
        async with self._rebuilding:
            if gen != self._requested:
                return False
            rows: list[Widget] = [
                self._row(name, spec, values.get(name, spec.default), gen) for name, spec in specs.items()
            ]
            if not rows:
                rows.append(Static("no parameters", id="no-params", classes="dim"))
            await self.remove_children()
            await self.mount_all(rows)
            if specs and not self.query(f"#p{gen}-{next(iter(specs))}"):
                return False  # the app is closing: nothing was mounted
            # Only now, with its fields mounted, does the new form replace the old one for readers.
            self._generation, self.specs, self.errors, self.owner = gen, specs, {}, owner
            for name in self.specs:  # validate given values at once (e.g. --set from the command line)
                self._check(name)
            return True

    def _row(self, name: str, spec: Param, value: Any, gen: int) -> Vertical:
        wid = f"p{gen}-{name}"
        field: Widget
        if isinstance(spec, Choice):
            choices = [(Text(one_line(c)), c) for c in spec.choices]  # Text: "[/]" is a legal choice, never markup
            field = Select(choices, value=str(value), allow_blank=False, id=wid, compact=True)
        elif isinstance(spec, Bool):
            field = Toggle(
                value=bool(spec.parse(value)) if not isinstance(value, bool) else value, id=wid, animate=False
            )
        else:
            field = Input(  # type "text": "1_000" and "1e3" are allowed for integers, not type="integer"
                str(value),
                id=wid,
                type="text",
                compact=True,
                validators=[ParamValidator(spec)],
                valid_empty=False,
                tooltip=Text(inert(spec.help)) if spec.help else None,
            )
        hint = spec.allowed() if isinstance(spec, (Int, Float)) else ""
        label = Label(name, classes="param-name")
        label.tooltip = Text(inert(spec.help)) if spec.help else None
        row = Vertical(
            Horizontal(label, field, classes="param-line"),
            Static(
                Text(" ".join(x for x in (inert(spec.help), f"[{hint}]" if hint else "") if x)), classes="param-help"
            ),
            Static("", classes="param-error", id=f"err-{wid}"),
            classes="param-row",
        )
        return row

    def _field(self, name: str) -> Any:  # an Input, a Switch or a Select, by the parameter's kind
        return self.query_one(f"#p{self._generation}-{name}")

    @property
    def rebuilding(self) -> bool:
        """Between removing the old fields and showing the new ones: the form cannot be read."""
        return self._rebuilding.locked()

    def raw_values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.specs:
            field = self._field(name)
            out[name] = field.value
        return out

    def typed_values(self) -> dict[str, Any]:
        """The raw values the user changed from the defaults (kept when the form is rebuilt)."""
        typed = {}
        for name, raw in self.raw_values().items():
            spec = self.specs[name]
            try:
                if spec.parse(raw) == spec.parse(spec.default):
                    continue
            except ParamError:
                pass  # an invalid value was typed: keep it, so its message stays in view
            typed[name] = raw
        return typed

    def values(self) -> dict[str, Any]:
        """Typed values (raises ParamError for the first invalid one)."""
        return {name: self.specs[name].parse(v) for name, v in self.raw_values().items()}

    def set_value(self, name: str, value: Any) -> None:
        field = self._field(name)
        if isinstance(field, Switch):
            field.value = bool(self.specs[name].parse(value))
        elif isinstance(field, Select):
            field.value = str(value)
        else:
            field.value = str(value)
        self._check(name)

    @property
    def valid(self) -> bool:
        return not self.errors

    def first_error(self) -> str | None:
        for name, message in self.errors.items():
            return f"{name}: {message}"
        return None

    def _check(self, name: str) -> None:
        field = self._field(name)
        message = ""
        try:
            self.specs[name].parse(field.value)
        except ParamError as exc:
            message = exc.message
        if message:
            self.errors[name] = message
        else:
            self.errors.pop(name, None)
        err = self.query_one(f"#err-{field.id}", Static)
        shown = err.has_class("-shown")
        err.update(Text(f"✗ {one_line(message)}") if message else "")
        err.set_class(bool(message), "-shown")
        field.set_class(bool(message), "-invalid")
        if shown != bool(message):
            # the line appearing or going changes the form's height: lay it out now (hiding it alone
            # left the old line on a real terminal until the next resize or run)
            self.refresh(layout=True)

    def _changed(self, widget: Any) -> None:
        prefix = f"p{self._generation}-"  # fields of an older form (a scenario left behind) are ignored
        name = (widget.id or "")[len(prefix) :] if (widget.id or "").startswith(prefix) else None
        if name is None or name not in self.specs:
            return
        self._check(name)
        self.post_message(self.Changed(self, name))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._changed(event.input)

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._changed(event.select)

    def on_switch_changed(self, event: Switch.Changed) -> None:
        event.stop()
        self._changed(event.switch)
