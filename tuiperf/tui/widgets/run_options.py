"""How to run: which variants, on which device, in which dispatch mode, with what sample budget."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Input, Label, Select, SelectionList, Static, Switch

from tuiperf.api.params import Float, Int
from tuiperf.common.errors import ParamError
from tuiperf.contract.request import DISPATCH_MODES, MAX_SAMPLES_PER_VARIANT
from tuiperf.tui.widgets.checklist import Checklist
from tuiperf.tui.widgets.param_form import ParamValidator
from tuiperf.tui.widgets.toggle import Toggle

BUDGET = Float(3.0, min=0.05, max=3600.0).named("budget")
SAMPLES = Int(0, min=0, max=MAX_SAMPLES_PER_VARIANT).named("samples")


class RunOptionsForm(Vertical):
    @dataclass
    class Changed(Message):
        what: str

    _device_options: list[tuple[str, str]] | None = None  # what the device picker lists

    def compose(self) -> ComposeResult:
        yield Label("Variants", classes="section")
        yield Checklist(id="variants", compact=True)
        yield Static("", id="variants-error", classes="param-error")
        with Horizontal(classes="param-line"):
            yield Label("device", classes="param-name")
            yield Select([("cpu:0", "cpu:0")], value="cpu:0", allow_blank=False, id="device", compact=True)
        with Horizontal(classes="param-line"):
            yield Label("dispatch", classes="param-name")
            yield Select(
                [(m, m) for m in DISPATCH_MODES],
                value=DISPATCH_MODES[0],
                allow_blank=False,
                id="dispatch",
                compact=True,
            )
        with Horizontal(classes="param-line"):
            yield Label("budget s", classes="param-name")
            yield Input(
                "3",
                id="budget",
                compact=True,
                validators=[ParamValidator(BUDGET)],
                tooltip="time budget for sampling each run, in seconds",
            )
        with Horizontal(classes="param-line"):
            yield Label("samples", classes="param-name")
            yield Input(
                "",
                placeholder="auto",
                id="samples",
                compact=True,
                validators=[ParamValidator(SAMPLES)],
                valid_empty=True,
                tooltip="fixed samples per variant; empty: until the median is known to ±1 % or the budget ends",
            )
        yield Static("", id="options-error", classes="param-error")
        with Horizontal(classes="param-line"):
            yield Label("live", classes="param-name")
            yield Toggle(False, id="live", animate=False, tooltip="re-run shortly after a parameter changes")
        with Horizontal(id="run-buttons"):
            yield Button("Run  r", id="run-button", variant="primary", compact=True, action="screen.run")
            yield Button("Sweep  w", id="sweep-button", compact=True, action="screen.sweep")
            yield Button(
                "Cancel  esc", id="cancel-button", variant="error", compact=True, disabled=True, action="screen.cancel"
            )

    def set_variants(self, variants: list[dict[str, Any]]) -> None:
        sl = self.query_one("#variants", SelectionList)
        sl.clear_options()
        for v in variants:
            label = v["name"] if v.get("equivalent", True) else f"{v['name']} (computes something else)"
            sl.add_option((label, v["name"], True))
        self._check_variants()

    def set_devices(self, devices: list[dict[str, Any]]) -> None:
        select = self.query_one("#device", Select)
        options = [(f"{d['id']}  {d.get('kind', '')}".rstrip(), d["id"]) for d in devices] or [("cpu:0", "cpu:0")]
        if options == self._device_options:
            return  # the same devices (each catalog reload reports them): no restyle and relayout
        self._device_options = options
        current = select.value
        select.set_options(options)
        ids = [o[1] for o in options]
        select.value = current if current in ids else ids[0]

    @property
    def variants(self) -> list[str]:
        return list(self.query_one("#variants", SelectionList).selected)

    @property
    def device(self) -> str | None:
        value = self.query_one("#device", Select).value
        return value if isinstance(value, str) else None

    @property
    def dispatch(self) -> str:
        return str(self.query_one("#dispatch", Select).value)

    @property
    def live(self) -> bool:
        return self.query_one("#live", Switch).value

    def budget_s(self) -> float:
        return BUDGET.parse(self.query_one("#budget", Input).value)

    def samples(self) -> int | None:
        raw = self.query_one("#samples", Input).value.strip()
        if not raw:
            return None
        value = SAMPLES.parse(raw)
        return value or None

    def errors(self) -> list[str]:
        out = []
        if not self.variants:
            out.append("variants: choose at least one variant")
        for name, fn in (("budget", self.budget_s), ("samples", self.samples)):
            try:
                fn()
            except ParamError as exc:
                out.append(f"{name}: {exc.message}")
        return out

    def _check_variants(self) -> None:
        err = self.query_one("#variants-error", Static)
        err.update("✗ choose at least one variant" if not self.variants else "")
        err.set_class(not self.variants, "-shown")

    def _check_options(self) -> None:
        errs = [e for e in self.errors() if not e.startswith("variants")]
        err = self.query_one("#options-error", Static)
        err.update("\n".join("✗ " + e for e in errs))
        err.set_class(bool(errs), "-shown")

    def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged) -> None:
        event.stop()
        self._check_variants()
        self.post_message(self.Changed("variants"))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._check_options()
        self.post_message(self.Changed(event.input.id or ""))

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(event.select.id or ""))

    def on_switch_changed(self, event: Switch.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(event.switch.id or ""))

    def set_running(self, running: bool) -> None:
        self.query_one("#run-button", Button).disabled = False
        self.query_one("#cancel-button", Button).disabled = not running
