"""How to run: which variants, on which device, in which Python environments, and a field for each
run option the table puts in the form (:mod:`tuiperf.contract.options`: dispatch mode, sample budget,
samples, ...). Its run buttons follow ``run_phase``, which the main screen binds to its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import var
from textual.validation import ValidationResult, Validator
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, SelectionList, Static, Switch

from tuiperf.common.devices import chosen_index
from tuiperf.common.errors import ParamError
from tuiperf.common.text import one_line
from tuiperf.contract import options
from tuiperf.contract.catalog import VariantEntry
from tuiperf.contract.environments import CURRENT, PythonEnv
from tuiperf.contract.options import Declared, RunSettings
from tuiperf.results.model import DeviceInfo
from tuiperf.tui.shown import RunPhase
from tuiperf.tui.widgets.checklist import Checklist
from tuiperf.tui.widgets.toggle import Toggle


class RunOptionsForm(Vertical):
    DEFAULT_CSS = """
    RunOptionsForm {
        height: auto;
    }
    #variants {
        height: auto;
        max-height: 10;
        border: none;
        padding: 0;
        scrollbar-size-vertical: 1;
    }
    #environments {
        height: auto;
        max-height: 6;
        width: 1fr;
        border: none;
        padding: 0;
    }
    #environments-none {
        width: 1fr;
        height: auto;
        color: $text-muted;
    }
    #environments-note {
        display: none;
    }
    #environments-note.-shown {
        display: block;
    }
    #environments-note.-error {
        color: $error;
        text-style: bold;
    }
    #run-buttons {
        height: auto;
        margin-top: 1;
    }
    #run-buttons Button {
        margin-right: 1;
        width: 1fr;
        min-width: 8;
    }
    """

    run_phase: var[RunPhase] = var("idle", init=False)  # bound to the screen's (data_bind)

    @dataclass
    class Changed(Message):
        what: str

    _device_options: list[tuple[Text, str]] | None = None  # what the device picker lists
    _platforms: dict[str, str] = {}  # each listed device's platform ("cpu", "gpu", "tpu")
    _launch_device: str | None = None  # a --device choice (id, index or platform) until the devices are listed
    _cpu_dispatch: str | None = None  # the user's CPU dispatch choice, kept while an accelerator is chosen
    _env_names: list[str] = [CURRENT]  # the registered environments, current first
    _env_order: list[str] = [CURRENT]  # those ticked, in the order ticked: the first is the reference

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows = [row for row in options.declared() if row.option.label is not None]  # the form's options
        self.base = options.TABLE()  # values of the options the form does not show (the launch's)
        self.fields = {row.name: self._field(row) for row in self.rows}  # each option's, by name
        self.variants_list = Checklist(id="variants", compact=True)
        self.environments_list = Checklist(id="environments", compact=True)
        self.device_select = Select([("cpu:0", "cpu:0")], value="cpu:0", allow_blank=False, id="device", compact=True)
        self.live_switch = Toggle(False, id="live", animate=False, tooltip="re-run shortly after a parameter changes")
        self.run_button = Button("Run  r", id="run-button", variant="primary", compact=True, action="screen.run")
        self.cancel_button = Button(
            "Cancel  esc", id="cancel-button", variant="error", compact=True, disabled=True, action="screen.cancel"
        )
        self.notes = {name: Static(text, id=name, classes=classes) for name, (text, classes) in NOTES.items()}

    @staticmethod
    def _field(row: Declared) -> Widget:
        o, fid = row.option, row.option.field_id or row.name
        if o.choices:
            value = str(row.default)
            return Select([(c, c) for c in o.choices], value=value, allow_blank=False, id=fid, compact=True)
        if row.kind is bool:
            return Toggle(bool(row.default), id=fid, animate=False, tooltip=o.help)
        return Input(
            row.text_of(row.default),
            placeholder=o.none or "",
            id=fid,
            compact=True,
            validators=[OptionValidator(row)],
            valid_empty=row.optional,
            tooltip=o.help,
        )

    def compose(self) -> ComposeResult:
        yield Label("Variants", classes="section")
        yield self.variants_list
        yield self.notes["variants-error"]
        with Horizontal(classes="param-line"):
            yield Label("device", classes="param-name")
            yield self.device_select
        with Horizontal(classes="param-line"):
            yield Label("environments", classes="param-name")
            yield self.environments_list
            yield self.notes["environments-none"]
        yield self.notes["environments-note"]
        for row in self.rows:
            with Horizontal(classes="param-line"):
                yield Label(row.option.label or row.name, classes="param-name")
                yield self.fields[row.name]
        yield self.notes["options-error"]
        with Horizontal(classes="param-line"):
            yield Label("live", classes="param-name")
            yield self.live_switch
        with Horizontal(id="run-buttons"):
            yield self.run_button
            yield Button("Sweep  w", id="sweep-button", compact=True, action="screen.sweep")
            yield self.cancel_button

    def set_variants(self, variants: list[VariantEntry]) -> None:
        sl = self.variants_list
        sl.clear_options()
        for v in variants:
            label = one_line(v.name) + ("" if v.equivalent else " (computes something else)")
            sl.add_option((Text(label), v.name, True))  # Text: a name is never markup
        self._check_variants()

    def choose_variants(self, names: list[str]) -> None:
        """Tick ``names`` alone (a launch's ``--variants``)."""
        self.variants_list.deselect_all()
        for name in names:
            self.variants_list.select(name)

    def set_devices(self, devices: list[DeviceInfo]) -> None:
        select = self.device_select
        options = [(Text(one_line(f"{d.id}  {d.kind}".rstrip())), d.id) for d in devices] or [(Text("cpu:0"), "cpu:0")]
        if options == self._device_options:
            return  # the same devices (each catalog reload reports them): no restyle and relayout
        self._device_options = options
        self._platforms = {d.id: d.platform for d in devices}
        current = select.value
        select.set_options(options)
        ids = [o[1] for o in options]
        select.value = current if current in ids else ids[0]
        if devices:
            self._apply_launch_device()

    def choose_device(self, choice: str) -> None:
        """Pick the device ``choice`` names, as ``--device`` takes it (``gpu``, ``1``, ``cpu:0``). Until
        the devices are listed, a run goes with the choice itself: the measuring process reads it alike."""
        self._launch_device = choice
        if self._platforms:
            self._apply_launch_device()

    def _apply_launch_device(self) -> None:
        choice, self._launch_device = self._launch_device, None
        if choice is None:
            return
        listed = list(self._platforms.items())
        index = chosen_index(choice, listed)
        if index is None:
            names = ", ".join(one_line(device_id, 20) for device_id, _ in listed)
            self.app.notify(
                f"no device {one_line(choice, 20)!r} here (listed: {names}); runs go to {self.device}",
                title="Unknown device",
                severity="error",
                markup=False,
            )
            return
        self.device_select.value = listed[index][0]

    def set_environments(self, environments: list[PythonEnv], chosen: list[str] | None = None) -> list[str]:
        """List the registered ``environments`` and tick ``chosen`` in its order (None: keep what is
        ticked, less those no longer registered; current when nothing is left). Returns the names of
        ``chosen`` that are not registered."""
        names = [e.name for e in environments] or [CURRENT]
        wanted = self._env_order if chosen is None else chosen
        unknown = [n for n in wanted if n not in names]
        order = list(dict.fromkeys(n for n in wanted if n in names)) or [CURRENT]
        checklist = self.environments_list
        several = len(names) > 1
        checklist.display = several
        self.notes["environments-none"].display = not several
        if names != self._env_names or order != self._env_order:
            self._env_names, self._env_order = names, order
            with checklist.prevent(SelectionList.SelectedChanged):
                checklist.clear_options()
                checklist.add_options([(_environment_label(e), e.name, e.name in order) for e in environments])
        self._show_environment_order()
        return unknown

    def _show_environment_order(self) -> None:
        note = self.notes["environments-note"]
        order = self._env_order
        if len(self._env_names) < 2:
            text = ""
        elif not order:
            text = "✗ tick at least one (current is the Python tuiperf runs on)"
        elif len(order) == 1:
            text = f"measures in {one_line(order[0])}; tick more to compare (the first ticked is the reference)"
        else:
            others = ", ".join(one_line(n) for n in order[1:])
            text = f"reference {one_line(order[0])} (ticked first) · compared with it: {others}"
        note.update(Text(text))
        note.set_class(bool(text), "-shown")
        note.set_class(not order, "-error")

    @property
    def environments(self) -> list[str]:
        """The ticked environments in the order ticked (the first is the reference)."""
        return list(self._env_order)

    @property
    def variants(self) -> list[str]:
        return list(self.variants_list.selected)

    @property
    def device(self) -> str | None:
        if self._launch_device is not None:
            return self._launch_device
        value = self.device_select.value
        return value if isinstance(value, str) else None

    @property
    def live(self) -> bool:
        return self.live_switch.value

    def _raw(self, row: Declared) -> Any:
        field = self.fields[row.name]
        if isinstance(field, Input):
            return field.value
        return field.value  # type: ignore[attr-defined]  # a Select's or a Toggle's value

    def set_settings(self, settings: RunSettings) -> None:
        """Show ``settings`` (the launch's); those the form does not show are kept for :meth:`settings`."""
        self.base = settings
        for row in self.rows:
            field = self.fields[row.name]
            value = getattr(settings, row.name)
            if isinstance(field, Input):
                field.value = row.text_of(value)
            else:
                field.value = value  # type: ignore[attr-defined]

    def settings(self) -> RunSettings:
        """The run options: the form's values over the launch's; raises ParamError naming a bad one."""
        return options.parsed({row.name: self._raw(row) for row in self.rows}, self.base)

    def errors(self) -> list[str]:
        out = []
        if not self.variants:
            out.append("variants: choose at least one variant")
        if not self._env_order:
            out.append("environments: tick at least one (current is the Python tuiperf runs on)")
        for row in self.rows:
            try:
                row.parse(self._raw(row))
            except ParamError as exc:
                out.append(f"{row.label_word}: {exc.message}")
        return out

    def _check_variants(self) -> None:
        err = self.notes["variants-error"]
        err.update("✗ choose at least one variant" if not self.variants else "")
        err.set_class(not self.variants, "-shown")

    def _check_options(self) -> None:
        errs = [e for e in self.errors() if not e.startswith("variants")]
        err = self.notes["options-error"]
        err.update(Text("\n".join("✗ " + one_line(e) for e in errs)))
        err.set_class(bool(errs), "-shown")

    def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged[str]) -> None:
        event.stop()
        if event.selection_list.id == "environments":
            ticked = list(event.selection_list.selected)
            kept = [n for n in self._env_order if n in ticked]
            self._env_order = kept + [n for n in ticked if n not in kept]  # a new tick goes last
            self._show_environment_order()
            self.post_message(self.Changed("environments"))
            return
        self._check_variants()
        self.post_message(self.Changed("variants"))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._check_options()
        self.post_message(self.Changed(event.input.id or ""))

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.select.id == "device":
            self._dispatch_for_platform()
        self.post_message(self.Changed(event.select.id or ""))

    def _dispatch_for_platform(self) -> None:
        """The dispatch mode is a CPU setting (jax_cpu_enable_async_dispatch): on an accelerator every
        call is asynchronous, as the measuring side records, so the form shows that, greyed, and says
        why; back on the CPU, the user's choice returns."""
        field = self.fields.get("dispatch")
        if not isinstance(field, Select):
            return
        platform = self._platforms.get(self.device or "", "cpu")
        on_accelerator = platform not in ("cpu", "")
        if on_accelerator and not field.disabled:
            self._cpu_dispatch = str(field.value)
            field.value, field.disabled = "async", True
            field.tooltip = (
                f"dispatch is a CPU-only setting: on a {one_line(platform, 20)} every call is asynchronous "
                "(runs there are recorded as async); choose a CPU device to set it"
            )
        elif not on_accelerator and field.disabled:
            field.disabled, field.tooltip = False, None
            if self._cpu_dispatch is not None:
                field.value = self._cpu_dispatch

    def on_switch_changed(self, event: Switch.Changed) -> None:  # the live switch, and bool options
        event.stop()
        self.post_message(self.Changed(event.switch.id or ""))

    def watch_run_phase(self, phase: RunPhase) -> None:
        """Run restarts a run at any time; Cancel while a run measures and has not been cancelled."""
        self.cancel_button.disabled = phase != "running"


ONLY_CURRENT = "current only; add one: tuiperf env add NAME PYTHON, or env create NAME REQ…"
NOTES = {  # the form's notes (id: first text, classes)
    "variants-error": ("", "param-error"),
    "environments-none": (ONLY_CURRENT, ""),
    "environments-note": ("", "param-help"),
    "options-error": ("", "param-error"),
}


def _environment_label(env: PythonEnv) -> Text:
    """A registered environment as the picker lists it: its name, then its Python (data, never markup)."""
    where = "this Python" if env.name == CURRENT else env.python
    return Text.assemble((one_line(env.name, 40), "bold"), "  ", (one_line(where, 120), "dim"))


class OptionValidator(Validator):
    """Textual validator backed by the option's own parser (the one the command line and the run use)."""

    def __init__(self, row: Declared) -> None:
        super().__init__()
        self.row = row

    def validate(self, value: str) -> ValidationResult:
        try:
            self.row.parse(value)
        except ParamError as exc:
            return self.failure(exc.message, value)
        return self.success()
