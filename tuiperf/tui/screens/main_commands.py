"""The main screen's commands: one ``action_*`` method per command of :mod:`tuiperf.tui.commands` (its
keys, the palette and ``?`` are derived from that table). Each says what a key does through the
screen's panels and helpers, which :class:`~tuiperf.tui.screens.main.MainScreen` builds; this base
class declares them and the screen's reactives (``shown``, ``run_phase``: :mod:`tuiperf.tui.shown`), so
the commands read apart from the screen's layout and run handling."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from textual.css.query import NoMatches
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Tabs

from tuiperf.common.errors import ParamError
from tuiperf.tui.messages import CommandFailed
from tuiperf.tui.output_folders import beside_screenshots
from tuiperf.tui.screens.confirm import ConfirmScreen
from tuiperf.tui.shown import RunPhase, Shown
from tuiperf.tui.tracing import start_trace, trace_request_of
from tuiperf.tui.widgets.setup_panel import SetupPanel
from tuiperf.tui.widgets.split_view import SplitView

if TYPE_CHECKING:
    from tuiperf.results.model import RunResult
    from tuiperf.tui.controller import RunController
    from tuiperf.tui.run_history import RunHistory
    from tuiperf.tui.scenario_files import ScenarioFiles
    from tuiperf.tui.shell import Shell
    from tuiperf.tui.widgets.results_panel import ResultsPanel


class MainCommands(Screen[None]):
    # Set only on the UI thread (a watcher runs on the thread that sets its reactive).
    shown: var[Shown] = var(Shown(None), init=False)  # what the result panels show: they follow it
    run_phase: var[RunPhase] = var("idle", init=False)  # the run buttons follow it

    shell: Shell
    runs: RunController
    files: ScenarioFiles
    history: RunHistory
    panels_ready: bool
    setup: SetupPanel
    split: SplitView
    _results: ResultsPanel | None = None  # mounted with the panels, after the first frames

    def start_run(
        self,
        sweep: tuple[str, list[Any]] | None = None,
        *,
        grid: tuple[str, list[Any]] | None = None,
        by_live_mode: bool = False,
    ) -> bool:
        raise NotImplementedError  # MainScreen's

    def reload_scenarios(self) -> None:
        raise NotImplementedError  # MainScreen's

    @property
    def result(self) -> RunResult | None:
        """The result the panels show (the last complete or partial run, or a stored one)."""
        return self.shown.result

    @property
    def results_panel(self) -> ResultsPanel:
        if self._results is None:
            raise NoMatches("the results panel is mounted after the first frames")
        return self._results

    @property
    def view(self) -> str:
        """The half a narrow screen shows: "setup" or "results"."""
        return self.split.view

    @property
    def running(self) -> bool:
        return self.runs.running

    def action_run(self) -> None:
        if not self.running:
            self.start_run()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.start_run()

        self.app.push_screen(ConfirmScreen("A run is measuring. Stop it and start a new one?", "Restart"), answered)

    def action_cancel(self) -> None:
        if self.runs.cancel():
            self.run_phase = "cancelling"
            self.notify("Cancelling… the partial result will be kept.", timeout=3)
            return
        self.runs.live_rerun.cancel()
        # Not running: leave the field being edited, so single-key commands (r, w, s, ?) work.
        focused = self.focused
        if focused is not None and self.setup in focused.ancestors_with_self:
            self.setup.options.run_button.focus()
        else:
            self.results_panel.tabbed.query_one(Tabs).focus()

    def action_sweep(self) -> None:
        specs = self.setup.form.specs
        if self.setup.scenario is None or not specs:
            self.notify("Choose a scenario with parameters first.", severity="warning")
            return
        from tuiperf.tui.screens.sweep import SweepScreen

        def chosen(axes: list[tuple[str, list[Any]]] | None) -> None:
            if axes:  # one axis: a sweep; two: a grid, run interleaved as a launch's two --sweep
                self.start_run(axes[0], grid=axes[1] if len(axes) > 1 else None)

        self.app.push_screen(SweepScreen(specs), chosen)

    def action_quit(self) -> None:
        if not self.running:
            self.app.exit()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.runs.cancel()
                self.app.exit()

        self.app.push_screen(ConfirmScreen("A run is measuring. Stop it and quit?", "Quit"), answered)

    def action_toggle_log(self) -> None:
        self.results_panel.toggle_log()

    def action_toggle_sweep_memory(self) -> None:
        if self.results_panel.toggle_sweep_quantity():
            self.action_show_tab("sweep")

    def action_next_baseline(self) -> None:
        if self.results_panel.next_baseline():
            self.split.show("results")

    def action_choose_plotted(self) -> None:
        self.results_panel.choose_plotted()

    def action_show_tab(self, tab: str) -> None:
        # a headless driver may ask before the panels are mounted (the launch's scenario is unknown)
        if self.panels_ready and self.results_panel.show_tab(tab):
            self.split.show("results")

    def action_prev_tab(self) -> None:
        self.results_panel.step_tab(-1)
        self.split.show("results")

    def action_next_tab(self) -> None:
        self.results_panel.step_tab(1)
        self.split.show("results")

    def action_toggle_view(self) -> None:
        self.split.show("results" if self.view == "setup" else "setup")

    def action_focus_filter(self) -> None:
        self.split.show("setup")
        self.setup.scenario_list.filter.focus()

    def action_palette(self) -> None:
        self.app.action_command_palette()

    def action_help(self) -> None:
        from tuiperf.tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen())

    def action_screenshot(self) -> None:
        shown = self.result.scenario.id if self.result else ""
        sid = shown or (self.setup.scenario.id if self.setup.scenario else "") or "tuiperf"
        self.shell.save_svg(f"{sid}-{time.strftime('%Y%m%d-%H%M%S')}.svg")

    def action_edit_scenario(self) -> None:
        self.files.edit()

    def action_new_scenario(self) -> None:
        self.files.new()

    def action_revert_builtin(self) -> None:
        self.files.revert()

    def action_reload_scenarios(self) -> None:
        self.reload_scenarios()

    def action_history(self) -> None:
        # the shown result's scenario first (a stored run's may not be the list's selection)
        chosen = self.result.scenario.id if self.result else self.setup.scenario.id if self.setup.scenario else None
        self.history.browse(chosen, self.results_panel.view_maker if self.panels_ready else None)

    def action_export(self) -> None:
        self.history.export(self.result, beside_screenshots(self.shell.screenshots_dir, "exports"))

    def action_copy_markdown(self) -> None:
        self.history.copy(self.result)

    def on_command_failed(self, message: CommandFailed) -> None:
        """A helper's thread could not do what a command asked: said, as a failed command is."""
        self.shell.tell_error(message.title, message.message)

    def action_trace(self) -> None:
        """The shown result's scenario with its values (a stored run's may not be the list's
        selection); before any result, the form's."""
        if self.result is not None:
            request, variants = trace_request_of(self.result, self.shell.scenario_dirs)
        else:
            try:
                request = self.setup.request(self.shell.scenario_dirs)
            except ParamError as exc:
                self.shell.tell_error(exc.title, str(exc))
                return
            chosen = self.setup.scenario
            variants = request.variants or ([v.name for v in chosen.variants] if chosen else [])
        out = beside_screenshots(self.shell.screenshots_dir, "traces")
        start_trace(self, request, variants, out, self.shell.tell_error)
