"""The setup side: the scenario list, the selected scenario's description, its parameter form and the
run options. It turns what the user chose into a :class:`~tuiperf.contract.request.RunRequest`.

Only the list is composed: the first frame shows it as soon as possible, and :meth:`SetupPanel.add_details`
mounts the rest right after (a choice or devices that arrive before are kept and applied then)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.message import Message
from textual.widgets import Label

from tuiperf.common.errors import ParamError
from tuiperf.contract.catalog import Catalog, LoadError, ScenarioEntry
from tuiperf.contract.request import RunRequest
from tuiperf.results.model import DeviceInfo
from tuiperf.tui.controller import planned_variants, run_header
from tuiperf.tui.launch import LaunchOptions
from tuiperf.tui.widgets.scenario_list import ScenarioList

if TYPE_CHECKING:  # imported by add_details: the first frame waits for every module imported before it
    from tuiperf.contract.environments import PythonEnv
    from tuiperf.tui.widgets.param_form import ParamForm
    from tuiperf.tui.widgets.run_options import RunOptionsForm
    from tuiperf.tui.widgets.scenario_info import ScenarioInfo


class SetupPanel(Vertical):
    """See the module docstring. Posts :class:`SetupPanel.Selected` once a scenario's form is ready."""

    @dataclass
    class Selected(Message):
        scenario: ScenarioEntry | None  # None: a broken file or nothing

    @dataclass
    class Changed(Message):
        """A value of the form or of the run options changed (``what``: which; "live": the live switch)."""

        what: str

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario: ScenarioEntry | None = None
        self.broken: LoadError | None = None  # the broken file selected instead, if any
        self._typed: dict[str, dict[str, Any]] = {}  # form values per scenario, kept while browsing
        self._pending: LaunchOptions | None = None  # launch values for the scenario to select first
        self.has_details = False  # the description, form and run options are mounted
        self._early_choice: ScenarioList.Chosen | None = None  # chosen before they were
        self._early_devices: list[DeviceInfo] | None = None
        self._early_environments: list[PythonEnv] | None = None
        self._launch_environments: list[str] | None = None  # the launch's choice, ticked when the list comes
        self.scenario_list, self._details = ScenarioList(id="scenarios"), VerticalScroll(id="setup")
        self._info: ScenarioInfo | None = None  # the details, once mounted
        self._form: ParamForm | None = None
        self._options: RunOptionsForm | None = None

    def compose(self) -> ComposeResult:
        yield self.scenario_list
        yield self._details

    async def add_details(self, launch: LaunchOptions) -> None:
        """Mount the description, form and run options; then apply what arrived before them."""
        from tuiperf.tui.widgets.param_form import ParamForm
        from tuiperf.tui.widgets.run_options import RunOptionsForm
        from tuiperf.tui.widgets.scenario_info import DescriptionBox, ScenarioInfo

        info = self._info = ScenarioInfo(id="info")
        self._form, self._options = ParamForm(id="params"), RunOptionsForm(id="options")
        await self._details.mount_all(
            [
                # a long description scrolls in its own box (its CSS caps it): the parameters stay in view
                DescriptionBox(info, id="info-box"),
                Label("Parameters", classes="section"),
                self._form,
                self._options,
            ]
        )
        info.show(None)
        self.has_details = True
        if self._early_devices is not None:
            self.options.set_devices(self._early_devices)
        self.apply_launch(launch)
        if self._early_environments is not None:
            self.set_environments(self._early_environments)
        if self._early_choice is not None:
            choice, self._early_choice = self._early_choice, None
            await self.on_scenario_list_chosen(choice)

    @property
    def form(self) -> ParamForm:
        if self._form is None:
            raise NoMatches("the parameter form is mounted after the first frames")
        return self._form

    @property
    def options(self) -> RunOptionsForm:
        if self._options is None:
            raise NoMatches("the run options are mounted after the first frames")
        return self._options

    # -- catalog and launch options --------------------------------------------------------------
    def set_catalog(self, catalog: Catalog, devices: list[DeviceInfo] | None, select: str | None = None) -> None:
        if devices is not None and not self.has_details:
            self._early_devices = devices
        elif devices is not None:
            self.options.set_devices(devices)
        self.scenario_list.set_catalog(catalog, select)

    def set_environments(self, environments: list[PythonEnv]) -> None:
        """The registered environments (kept until the run options are mounted); the launch's choice
        is ticked the first time, and a name of it that is not registered is said."""
        if not self.has_details:
            self._early_environments = environments
            return
        chosen, self._launch_environments = self._launch_environments, None
        unknown = self.options.set_environments(environments, chosen)
        if unknown:
            known = ", ".join(e.name for e in environments)
            self.app.notify(
                f"no environment {', '.join(map(repr, unknown))} (registered: {known}; see tuiperf env list)",
                title="Unknown environment",
                severity="error",
                markup=False,
            )

    def apply_launch(self, launch: LaunchOptions) -> None:
        """The run options of ``launch`` now; its parameter values when its scenario is selected."""
        self._launch_environments = list(launch.environments) or None
        self.options.set_settings(launch.settings)
        if launch.device:
            self.options.choose_device(launch.device)
        if launch.scenario:
            self._pending = launch

    def select(self, scenario_id: str, show: bool = False) -> bool:
        return self.scenario_list.select(scenario_id, show)

    # -- choosing a scenario ---------------------------------------------------------------------
    async def on_scenario_list_chosen(self, message: ScenarioList.Chosen) -> None:
        message.stop()
        if not self.has_details:
            self._early_choice = message  # the newest wins; add_details applies it
            return
        if self.form.owner is not None and self.form.specs:
            self._typed[self.form.owner] = self.form.typed_values()
        if self._info is not None:
            self._info.show(message.scenario, message.broken)
        self.scenario, self.broken = message.scenario, message.broken
        if message.scenario is None:
            await self.form.set_params([])
            self.options.set_variants([])
            self.post_message(self.Selected(None))
            return
        sid = message.scenario.id
        values = dict(self._typed.get(sid, {}))
        pending = self._pending if self._pending is not None and self._pending.scenario == sid else None
        if pending:
            values.update(pending.params)
        known = set(message.scenario.param_names())
        unknown = [k for k in values if k not in known]
        for k in unknown:
            values.pop(k)
        if not await self.form.set_params(message.scenario.params, values, owner=sid):
            return  # another scenario was chosen meanwhile; its own call finishes the job
        self.options.set_variants(message.scenario.variants)
        if pending:
            self._pending = None
            if pending.variants:
                self.options.choose_variants(pending.variants)
            for k in unknown:
                self.app.notify(
                    f"unknown parameter {k!r} for {sid}", title="Invalid parameter", severity="error", markup=False
                )
        self.post_message(self.Selected(message.scenario))

    def on_param_form_changed(self, message: ParamForm.Changed) -> None:
        message.stop()
        self.post_message(self.Changed("params"))

    def on_run_options_form_changed(self, message: RunOptionsForm.Changed) -> None:
        message.stop()
        if message.what == "live":
            self.notify(f"Live mode {'on: parameter changes re-run' if self.options.live else 'off'}.", timeout=2)
        self.post_message(self.Changed(message.what))

    def on_scenario_list_entered(self, message: ScenarioList.Entered) -> None:
        message.stop()
        self.focus_form()

    def focus_form(self) -> None:
        fields = self.form.query("Input, Select, Switch")
        if fields:
            fields.first().focus()

    # -- the request ---------------------------------------------------------------------------------
    def problems(self, sweep: tuple[str, list[Any]] | None = None) -> list[str]:
        """Why the form cannot run now (empty when it can); the swept parameter's field is ignored."""
        if self.scenario is None:
            return ["choose a scenario first"]
        if self.form.rebuilding:
            return [f"the form for {self.scenario.id} is still being built"]
        problems = [f"{n}: {m}" for n, m in self.form.errors.items() if not (sweep and n == sweep[0])]
        return problems + self.options.errors()

    def plan(self, scenario_dirs: list[str]) -> tuple[str, list[str]] | None:
        """What a run of the form would show at its start (its header and variants); None while a value
        typed is not valid yet (the plan shown stays: no block jumping per key)."""
        try:
            request = self.request(scenario_dirs)
        except ParamError:
            if self.scenario is None or not self.options.variants:
                return "", []  # nothing would run: no stale plan
            return None
        return run_header(request), planned_variants(request)

    def request(
        self,
        scenario_dirs: list[str],
        sweep: tuple[str, list[Any]] | None = None,
        grid: tuple[str, list[Any]] | None = None,
    ) -> RunRequest:
        """The request for the form's values; raises ParamError naming the first problem. ``grid``: a
        second swept parameter (a launch's two ``--sweep``), its field ignored as the first's."""
        problems = self.problems(sweep)
        if problems:
            raise ParamError("; ".join(problems))
        assert self.scenario is not None
        from tuiperf.contract.environments import CURRENT

        swept = {axis[0] for axis in (sweep, grid) if axis}
        params = {k: self.form.specs[k].parse(v) for k, v in self.form.raw_values().items() if k not in swept}
        return RunRequest(
            scenario=self.scenario.id,
            params=params,
            variants=self.options.variants,
            device=self.options.device,
            sweep=sweep,
            grid=grid,
            scenario_dirs=list(scenario_dirs),
            # A broken file's last good version runs from its copy (see tuiperf.catalog.last_good).
            scenario_path=self.scenario.path if self.scenario.last_good is not None else None,
            settings=self.options.settings(),
            environments=[] if self.options.environments == [CURRENT] else self.options.environments,
        )
