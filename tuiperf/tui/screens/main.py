"""The main screen: setup beside results (or as two tabs on a narrow terminal).

A run's lifecycle lives in :class:`~tuiperf.tui.controller.RunController` (no Textual); this screen
gives it a thread worker, ``post_message`` and ``set_timer``, hands each news back to it (it drops a
superseded run's) and keeps what drives the widgets in reactives: ``shown`` (the result the panels show:
set it, and its watcher fills them) and ``run_phase`` (the run buttons follow it). The streamed progress
is drawn by one timer, at most :data:`REDRAW_S` apart: the one UI-side rate limit. Failures go to the
app's one error handler.
"""

from __future__ import annotations

import time
import traceback
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer, Header, Input, Tabs

from tuiperf.common.errors import ParamError
from tuiperf.contract.catalog import Catalog
from tuiperf.contract.request import RunRequest
from tuiperf.results.model import DeviceInfo, RunResult
from tuiperf.tui import catalog_feed
from tuiperf.tui.catalog_feed import CatalogFeed
from tuiperf.tui.commands import bindings
from tuiperf.tui.controller import Debounce, RunBegan, RunController, RunDone, RunError, RunNews
from tuiperf.tui.messages import (
    CatalogFailed,
    CatalogLoaded,
    EnvironmentsListed,
    RunNewsArrived,
    ScenarioFilesChanged,
    StoredRunRead,
)
from tuiperf.tui.run_history import STORE_AFTER_S, RunHistory
from tuiperf.tui.scenario_files import ScenarioFiles
from tuiperf.tui.screens.main_commands import MainCommands
from tuiperf.tui.shown import Shown, stored_state
from tuiperf.tui.widgets.setup_panel import SetupPanel
from tuiperf.tui.widgets.split_view import SplitView

# What only the panels and dialogs need is imported with them: the first frame waits for every module
# imported at start-up (benchmarks/ui_startup.py).
if TYPE_CHECKING:
    from tuiperf.tui.shell import Shell
    from tuiperf.tui.tab_contents import TabContents
    from tuiperf.tui.view import ResultView

REDRAW_S = 0.1  # streamed progress and histogram redraw at most ten times a second
PLAN_DELAY_S = 0.3  # the plan follows the form this long after the last change (not at each key)
STREAM_PLOT_SAMPLES = 20_000  # per variant in the streamed histogram: its cost does not grow with the run
PANELS_AT_THE_LATEST_S = 0.3  # panels are mounted once the list is shown, or after this if it is slow
WITHOUT_PANELS = frozenset({"quit", "help", "palette", "screenshot", "focus_filter", "reload_scenarios"})


class MainScreen(MainCommands):
    BINDINGS = bindings()  # type: ignore[assignment]  # a list of Binding is what Screen accepts
    AUTO_FOCUS = "#scenario-options"  # so single-key commands work at once; / goes to the filter
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]

    def __init__(self, shell: Shell) -> None:
        super().__init__()
        self.shell = shell  # the runner, launch options and error handler every screen shares
        self.catalog: Catalog | None = None
        self.devices: list[DeviceInfo] = []
        self.shown_at = 0.0  # when a result was last shown (time.monotonic): its plots are drawn after it
        self.blocked_reason: str | None = None  # why the last run asked for could not start
        self.panels_ready = False  # the form, run options and results panels are mounted (see _build_panels)
        self._launched = False  # the launch options' run happens once
        self._panels_started = False
        self.setup, self.split = SetupPanel(id="sidebar"), SplitView(id="main")  # composed below, kept
        self.runs = RunController(
            shell.runner,
            start_thread=lambda fn: self.run_worker(fn, thread=True, exclusive=True, group="run", exit_on_error=False),
            post=lambda news: self.post_message(RunNewsArrived(news)),
            schedule=self.set_timer,
            rerun=lambda: self.start_run(by_live_mode=True),
        )
        self.plan = Debounce(self.set_timer, PLAN_DELAY_S, self._show_plan)
        # a file command, a compare or an export that fails is no failed run: a notification
        self.files = ScenarioFiles(self, self.setup, shell.scenario_dirs, shell.tell_error)
        self.history = RunHistory(self, shell.history_path, shell.tell_error, shell.scenario_dirs)
        self.feed = CatalogFeed(
            shell.runner,
            shell.scenario_dirs,
            self.files.merge_last_good,
            loaded=lambda *answer: self.post_message(CatalogLoaded(*answer)),
            failed=lambda title, message: self.post_message(CatalogFailed(title, message)),
            start_thread=lambda fn: self.run_worker(fn, thread=True, group="catalog", exit_on_error=False),
        )

    def compose(self) -> ComposeResult:
        yield Header(icon="■")
        with self.split:
            yield self.setup  # the list only; _build_panels mounts the rest after the first frames
        yield Footer(show_command_palette=False)  # our own "ctrl+p Palette" reads better than "^ppalette"

    def on_mount(self) -> None:
        self.set_interval(REDRAW_S, self._redraw)
        self.reload_scenarios()
        self.run_worker(self._list_environments, thread=True, group="environments", exit_on_error=False)
        self.set_timer(PANELS_AT_THE_LATEST_S, self._start_panels)  # if no cached list came first

    def on_unmount(self) -> None:
        self.files.stop_watching()
        self.history.flush()  # a run still waiting to be stored is not lost by quitting

    # -- the first frames ------------------------------------------------------------------------------
    # The first frame shows the header, the (empty) list and the footer; the list fills from the catalog
    # cache; then the form, run options and results panels (100+ widgets, plotext) are imported and
    # mounted: composed at once, they held the first frame back (benchmarks/ui_startup.py).
    def _start_panels(self) -> None:
        if not self._panels_started:
            self._panels_started = True
            self.call_after_refresh(self._build_panels)

    async def _build_panels(self) -> None:
        from tuiperf.tui.widgets.results_panel import ResultsPanel

        row = self.split
        if not row.is_attached:
            return  # the app is closing already (quit within the first frames)
        self._results = ResultsPanel(id="results", error=self.shell.last_error)
        await row.add_results(self._results)
        if not self.setup.is_attached:
            return
        await self.setup.add_details(self.shell.launch)
        self.setup.options.data_bind(MainScreen.run_phase)  # the run buttons follow the run's phase
        self.panels_ready = row.switchable = True
        row.apply()
        self.refresh_bindings()
        self.shell.freeze_start_up()
        row.keep_focus_visible()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Until the panels are mounted, only what needs none of them (shown, disabled: a blink)."""
        return True if self.panels_ready or action in WITHOUT_PANELS else None

    # -- catalog -------------------------------------------------------------------------------------
    def reload_scenarios(self) -> None:
        """Describe the scenario files again (at start, after a save, when a file changed)."""
        self.feed.reload()

    def on_scenario_files_changed(self, message: ScenarioFilesChanged) -> None:
        self.reload_scenarios()

    def on_catalog_loaded(self, message: CatalogLoaded) -> None:
        first_time = self.catalog is None
        if not self.feed.is_current(message.generation, message.devices):
            return  # an older reload finished after a newer one
        catalog = self.catalog = message.catalog
        if message.devices is not None:
            self.devices = message.devices
        launch = self.shell.launch
        self.setup.set_catalog(catalog, message.devices, select=launch.scenario if first_time else None)
        self.sub_title = catalog_feed.summary(catalog, len(self.devices) if self.feed.have_devices else None)
        self.files.after_catalog(catalog)
        if not first_time:
            return  # a reload: the selection and focus stay where the user left them
        self.call_after_refresh(self.feed.first_list_painted.set)  # now the loader may import JAX
        self._start_panels()
        if launch.scenario and not self.setup.select(launch.scenario):
            self.shell.report_error(*catalog_feed.not_launchable(catalog, launch.scenario))
            self.runs.nothing_will_run()
        self.setup.scenario_list.options.focus()

    # -- Python environments ---------------------------------------------------------------------------
    def _list_environments(self) -> None:
        """In a thread: the registered environments (a file read), or why they cannot be read."""
        self.post_message(EnvironmentsListed(*catalog_feed.environments(self.shell.list_environments)))

    def on_environments_listed(self, message: EnvironmentsListed) -> None:
        if message.error is not None:
            self.shell.tell_error("Cannot list the Python environments", message.error)
        self.setup.set_environments(message.environments)

    def on_catalog_failed(self, message: CatalogFailed) -> None:
        self.shell.report_error(message.title, message.message)
        if self.catalog is not None and not self.feed.have_devices:  # the cached list shown: not "listing…"
            self.sub_title = catalog_feed.summary(self.catalog, None, failed=True)
        self.runs.nothing_will_run()

    def on_setup_panel_selected(self, message: SetupPanel.Selected) -> None:
        self._show_plan()
        launch = self.shell.launch
        if self._launched or message.scenario is None or launch.scenario != message.scenario.id:
            return
        self._launched = True
        if (axes := launch.axes()) is not None:
            self.start_run(sweep=axes[0], grid=axes[1])
        elif launch.autorun:
            self.start_run()
        if launch.tab:
            self.action_show_tab(launch.tab)

    # -- runs ---------------------------------------------------------------------------------------
    def build_request(
        self, sweep: tuple[str, list[Any]] | None = None, grid: tuple[str, list[Any]] | None = None
    ) -> RunRequest | None:
        """The request for the form, or None with the reason shown (and kept in ``blocked_reason``);
        ``grid``: a second swept parameter (a launch's two ``--sweep``)."""
        try:
            request = self.setup.request(self.shell.scenario_dirs, sweep, grid)
        except ParamError as exc:
            self.blocked_reason = exc.message
            self.notify(
                "\n".join(exc.message.split("; ")), severity="error", title="Cannot run: invalid values", markup=False
            )
            return None
        self.blocked_reason = None
        return request

    def start_run(
        self,
        sweep: tuple[str, list[Any]] | None = None,
        *,
        grid: tuple[str, list[Any]] | None = None,
        by_live_mode: bool = False,
    ) -> bool:
        """Run what the form describes (a run in progress is cancelled); False when the form cannot."""
        request = self.build_request(sweep, grid)
        if request is None:
            return False
        self.runs.start(
            request, by_live_mode=by_live_mode, make_view=self.results_panel.view_maker() if self.panels_ready else None
        )
        self.run_phase = "running"
        return True

    def on_run_news_arrived(self, message: RunNewsArrived) -> None:
        news = self.runs.receive(message.news)
        if isinstance(news, RunBegan):
            if not news.state.started_by_live_mode:  # live mode's re-runs never move the focus or the view
                self.split.show("results")
            self.split.tell_results("live re-run…" if news.state.started_by_live_mode else "running…")
            self.results_panel.begin_run(news.state, sweep=news.sweep, to_sweep=not news.state.started_by_live_mode)
        elif isinstance(news, RunDone | RunError):
            self.run_phase = "idle"
            self.split.tell_results("new result" if isinstance(news, RunDone) else "run failed")
            self._run_ended(news)

    def _redraw(self) -> None:
        state = self.runs.state
        if self.runs.running and state is not None:  # always: the elapsed clock runs through compiles
            samples = state.snapshot_samples(STREAM_PLOT_SAMPLES) if self.runs.plot_due() else None
            self.results_panel.show_progress(state, samples)

    def _run_ended(self, news: RunNews) -> None:
        if isinstance(news, RunDone):
            self.shell.last_error = None
            result = news.result
            self.shown = Shown(result, view=news.view, contents=news.contents)
            self.history.store(result, after_s=STORE_AFTER_S)
            if result.partial:
                self.notify("Run cancelled: the partial result is shown.", title="Partial result", severity="warning")
        elif isinstance(news, RunError):
            self.shell.report_error(news.title, news.message, news.where, news.details)
            partial = news.partial
            if partial is not None and (partial.variants or partial.points):
                self.shown = Shown(partial)
            else:
                self.shown = Shown(self.result, state="failed")  # keep (and redraw) the previous result

    def show_result(
        self,
        result: RunResult | None,
        state: str = "done",
        view: ResultView | None = None,
        contents: TabContents | None = None,
    ) -> None:
        """Show ``result`` (``view``, ``contents``: its view and its tabs' text, made already)."""
        self.shown = Shown(result, state, view, contents)

    def watch_shown(self, shown: Shown) -> None:
        """Every result panel from the shown result, once; one the panels cannot show is reported."""
        self.shown_at = time.monotonic()
        result, run = shown.result, self.runs.state
        try:
            fraction = run.fraction if (run is not None and result is not None and result.partial) else None
            self.results_panel.show_result(
                result, shown.state, fraction, self.shell.last_error, view=shown.view, contents=shown.contents
            )
        except Exception as exc:  # noqa: BLE001 - the app must stay up
            details = traceback.format_exc(limit=4)
            self.shell.report_error("Cannot display this result", f"{type(exc).__name__}: {exc}", details=details)

    def on_stored_run_read(self, message: StoredRunRead) -> None:
        if message.purpose == "open":
            self._open_stored(message.stored, message.run_id, message.made)
        else:
            self.history.compare(message.run_id, message.stored, self.result)

    def _open_stored(
        self, stored: RunResult, run_id: int, made: tuple[ResultView, TabContents | None] | None = None
    ) -> None:
        view, contents = made if made is not None else (None, None)
        self.action_show_tab("stats")  # first: the tab is filled once, for the stored run
        self.shown = Shown(stored, stored_state(stored, run_id), view, contents)

    def show_error(self, error: tuple[str, str]) -> None:
        """The app's error handler shows the last error in the Warnings tab (once the panels are there)."""
        if self.panels_ready:
            self.results_panel.set_error(error)

    @property
    def live_mode(self) -> bool:
        """Re-run after each change (errors then come as notifications, not dialogs)."""
        return self.panels_ready and self.setup.options.live

    def _show_plan(self) -> None:
        """Before the first result: the run the form describes, as its progress will show it."""
        if not (self.running or self.result is not None or not self.panels_ready):
            plan = self.setup.plan(self.shell.scenario_dirs)
            if plan is not None:
                self.results_panel.show_plan(*plan)

    # -- the form changed: the plan follows, and live mode re-runs ------------------------------------
    def on_setup_panel_changed(self, message: SetupPanel.Changed) -> None:
        self.plan.poke()  # a new header can change the progress block's height: the plan waits for the last key
        if message.what != "live" and self.live_mode:
            self.runs.form_changed(can_run=not self.setup.problems())

    # -- input events --------------------------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "scenario-filter":
            self.action_run()

    # -- which half a narrow screen shows --------------------------------------------------------------
    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        # A stale activation (the mounted switch's first, say) is not the active tab any more.
        if event.tabs.id == "view-tabs" and event.tab.id == event.tabs.active:
            self.split.show("setup" if event.tab.id == "view-setup" else "results")

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if self.has_class("-narrow"):  # Textual may move focus into the hidden half (or the switch)
            self.call_after_refresh(self.split.keep_focus_visible)

    def on_resize(self, event: events.Resize) -> None:
        self.split.apply()  # Textual has set the breakpoint classes before this handler
        self.set_timer(0.05, self.split.keep_focus_visible)
