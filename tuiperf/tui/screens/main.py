"""The main screen: setup beside results (or as two tabs on a narrow terminal), and the run lifecycle.

A run is a thread worker that drives the runner and posts messages (:mod:`tuiperf.tui.messages`);
only handlers here touch widgets. Every message carries its run's id, so a superseded run's late
messages are dropped. Live updates coalesce (``RunUpdated.can_replace``) and are drawn by one timer,
at most :data:`REDRAW_S` apart: the one UI-side rate limit. Failures go to the app's one error handler.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from textual import events, messages, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Footer, Header, Input, Tab, Tabs

from tuiperf.common.errors import ParamError, TuiperfError
from tuiperf.common.text import one_line
from tuiperf.contract.catalog import Catalog
from tuiperf.contract.events import RunFailed
from tuiperf.contract.request import RunRequest
from tuiperf.results.model import RunResult
from tuiperf.tui.commands import bindings
from tuiperf.tui.live import LiveState
from tuiperf.tui.messages import (
    CatalogFailed,
    CatalogLoaded,
    RunBegan,
    RunDone,
    RunError,
    RunUpdated,
    ScenarioFilesChanged,
)
from tuiperf.tui.run_history import RunHistory
from tuiperf.tui.scenario_files import ScenarioFiles
from tuiperf.tui.screens.confirm import ConfirmScreen
from tuiperf.tui.tracing import start_trace
from tuiperf.tui.view import ResultView, view_of
from tuiperf.tui.widgets.setup_panel import SetupPanel

# What only the panels and dialogs need is imported with them: the first frame waits for every module
# imported at start-up (benchmarks/ui_startup.py).
if TYPE_CHECKING:
    from tuiperf.tui.app import TuiperfApp
    from tuiperf.tui.widgets.param_form import ParamForm
    from tuiperf.tui.widgets.results_panel import ResultsPanel
    from tuiperf.tui.widgets.run_options import RunOptions

REDRAW_S = 0.1  # live progress and histogram redraw at most ten times a second
LIVE_DELAY_S = 0.6  # live mode re-runs this long after the last change
PLAN_DELAY_S = 0.3  # the plan follows the form this long after the last change (not at each key)
# The live histogram is rebuilt at most twice a second from at most 20,000 samples per variant: its
# picture is built in a thread, but plotext is pure Python and shares the GIL with the event loop
# (at 10 Hz from every sample, the UI lagged p99 84 ms while a run streamed).
LIVE_PLOT_S = 0.5
LIVE_PLOT_SAMPLES = 20_000
FIRST_PAINT_WAIT_S = 2.0  # a cached list is refreshed once painted, or after this long at the latest
PANELS_AT_THE_LATEST_S = 0.3  # panels are mounted once the list is shown, or after this if it is slow
WITHOUT_PANELS = frozenset({"quit", "help", "palette", "screenshot", "focus_filter", "reload_scenarios"})


def run_header(request: RunRequest) -> str:
    """The progress block's first line: what runs, where and how."""
    params = " ".join(f"{k}={v}" for k, v in request.params.items())
    sweep = f" · sweep {request.sweep[0]}" if request.sweep else ""
    return one_line(
        f"{request.scenario} · {request.device or 'first device'} · "
        f"{request.settings.dispatch} dispatch · {params}{sweep}"
    )


class MainScreen(Screen[None]):
    BINDINGS = bindings()  # type: ignore[assignment]  # a list of Binding is what Screen accepts
    AUTO_FOCUS = "#scenario-options"  # so single-key commands work at once; / goes to the filter
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]

    def __init__(self) -> None:
        super().__init__()
        self.catalog: Catalog | None = None
        self.devices: list[dict[str, Any]] = []
        self.result: RunResult | None = None  # what the result panels show (last complete or partial run)
        self.live: LiveState | None = None
        self.run_id = 0
        self.running = False
        self.run_count = 0  # runs that ended (done, partial or failed)
        self.blocked_reason: str | None = None
        self._cancel: threading.Event | None = None
        self._order: list[str] = []
        self._dirty = False
        self._live_timer: Any = None
        self._plan_timer: Any = None
        self._run_ended = asyncio.Event()
        self._launched = False  # the launch options' run happens once
        self._catalog_shown = False  # the first catalog selects the launch scenario; reloads keep the selection
        self._catalog_requested = 0
        self._first_list_painted = threading.Event()
        self._last_live_plot = 0.0
        self.files = ScenarioFiles(self)
        self.history = RunHistory(self)
        self._catalog_shown_generation = 0
        self.view = "setup"  # the half a narrow screen shows: "setup" or "results"
        self.panels_ready = False  # the form, run options and results panels are mounted (see _build_panels)
        self._panels_started = False

    # -- layout ------------------------------------------------------------------------------------
    async def _on_layout(self, message: messages.Layout) -> None:
        """A widget on a hidden tab lays nothing out now: a layout of the screen costs 30-110 ms at
        160 x 48 on the 2-core machine, and the hidden result tabs filled when a run ends, or by a
        sweep's every point, each asked for one. Textual has forgotten the sizes the widget's depend on
        before it asks (``Widget._check_refresh``); the layout that shows its tab sizes it."""
        if _on_hidden_tab(message.widget):
            message.stop()
            message.prevent_default()  # Screen._on_layout would lay the whole screen out

    def compose(self) -> ComposeResult:
        yield Header(icon="■")
        with Horizontal(id="main"):
            yield SetupPanel(id="sidebar")  # the list only; _build_panels mounts the rest after the first frames
        yield Footer(show_command_palette=False)  # our own "ctrl+p Palette" reads better than "^ppalette"

    @property
    def shell(self) -> TuiperfApp:
        """The app, typed: the runner, launch options and error handler every screen shares."""
        return cast("TuiperfApp", self.app)

    @property
    def setup(self) -> SetupPanel:
        return self.query_one(SetupPanel)

    @property
    def results(self) -> ResultsPanel:
        return cast("ResultsPanel", self.query_one("#results"))

    def on_unmount(self) -> None:
        self.files.stop_watching()

    def on_scenario_files_changed(self, message: ScenarioFilesChanged) -> None:
        self.reload_scenarios()

    def action_edit_scenario(self) -> None:
        self.files.edit()

    def action_new_scenario(self) -> None:
        self.files.new()

    def action_revert_builtin(self) -> None:
        self.files.revert()

    def action_reload_scenarios(self) -> None:
        self.reload_scenarios()

    def action_history(self) -> None:
        self.history.browse()

    def action_export(self) -> None:
        self.history.export()

    def action_trace(self) -> None:
        start_trace(self)

    def on_mount(self) -> None:
        self.set_interval(REDRAW_S, self._redraw)
        self.reload_scenarios()
        self.set_timer(PANELS_AT_THE_LATEST_S, self._start_panels)  # if no cached list came first

    # -- the first frames ------------------------------------------------------------------------------
    # The first frame shows the header, the (empty) list and the footer; the list fills from the catalog
    # cache; then the form, run options and results panels (100+ widgets, plotext) are imported and
    # mounted. Composed at once they held the first frame back 2.8x an empty Textual app's.
    def _start_panels(self) -> None:
        if not self._panels_started:
            self._panels_started = True
            self.call_after_refresh(self._build_panels)

    async def _build_panels(self) -> None:
        from tuiperf.tui.widgets.results_panel import ResultsPanel

        row = self.query_one("#main", Horizontal)
        if not row.is_attached:
            return  # the app is closing already (quit within the first frames)
        results = ResultsPanel(id="results", error=self.shell.last_error)
        results.display = not self.has_class("-narrow") or self.view == "results"
        # A narrow screen's Setup/Results switch comes with the half it switches to (shown only when
        # narrow, it was a quarter of the first frame's widgets on every screen).
        tabs = [Tab("Setup", id="view-setup"), Tab("Results", id="view-results")]
        await self.mount(Tabs(*tabs, active=f"view-{self.view}", id="view-tabs"), before=row)
        await row.mount(results)
        if not self.setup.is_attached:
            return
        await self.setup.add_details(self.shell.launch)
        self.panels_ready = True
        self._apply_view()
        self.refresh_bindings()
        if self.shell.freeze_gc:
            # Everything built so far (modules, CSS, 180 widgets) lives as long as the app: out of the
            # collector's way, so that a full collection no longer walks it (GC pauses of 60-90 ms
            # were the slowest tab switches with a big result shown). A frozen heap also leaves the
            # oldest generation nearly empty, so the collector's "a quarter more old objects" rule let
            # full collections (20-55 ms here) come every ~70,000 allocations, several per run: one
            # in 100 middle-aged collections instead (young cycles are still collected as before).
            gc.freeze()
            young, middle, _ = gc.get_threshold()
            gc.set_threshold(young, middle, 100)
        self._keep_focus_visible()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Until the panels are mounted, only what needs none of them (shown, disabled: a blink)."""
        return True if self.panels_ready or action in WITHOUT_PANELS else None

    # -- catalog -------------------------------------------------------------------------------------
    def _after_first_list(self) -> None:
        """The list is painted: now the loader process may import JAX."""
        self._first_list_painted.set()

    def reload_scenarios(self) -> None:
        """Describe the scenario files again (at start, after a save, when a file changed)."""
        self._catalog_requested += 1
        self._load_catalog(self._catalog_requested)

    @work(thread=True, group="catalog", exit_on_error=False)
    def _load_catalog(self, generation: int) -> None:
        runner = self.shell.runner
        try:
            if not self.devices:  # the first time, the last known list at once, before JAX starts up
                cached = runner.cached_catalog(self.shell.scenario_dirs)
                if cached is not None:
                    self.post_message(CatalogLoaded(self.files.merge_last_good(cached), None, generation))
                    self._first_list_painted.wait(FIRST_PAINT_WAIT_S)  # then refresh it, off the paint's CPU
            catalog = runner.catalog(self.shell.scenario_dirs)
            devices = None if self.devices else runner.devices()  # devices do not change while we run
        except TuiperfError as exc:
            self.post_message(CatalogFailed(exc.title, str(exc)))
            return
        except Exception as exc:  # noqa: BLE001 - shown, never raised into the UI
            self.post_message(CatalogFailed("Could not list scenarios", f"{type(exc).__name__}: {exc}"))
            return
        # Reading sources and writing last-good copies is file I/O: here, not on the UI thread.
        self.post_message(CatalogLoaded(self.files.merge_last_good(catalog), devices, generation))
        warm_up = getattr(runner, "warm_up", None)
        if devices is not None and warm_up is not None:
            # The spare measuring process imports JAX too: after the loader did, not beside it (two
            # imports at once took both CPUs of a 2-core machine and stalled the UI 145 ms).
            warm_up()

    def on_catalog_loaded(self, message: CatalogLoaded) -> None:
        if message.generation < self._catalog_shown_generation:
            return  # an older reload finished after a newer one
        self._catalog_shown_generation = message.generation
        catalog = self.catalog = message.catalog
        if message.devices is not None:
            self.devices = message.devices
        first = None if self._catalog_shown else self.shell.launch.scenario  # the launch's scenario, at once
        self.setup.set_catalog(catalog, message.devices, select=first)
        n, n_broken, devices = len(catalog.scenarios), len(catalog.broken), len(self.devices)
        kept = sum(1 for s in catalog.scenarios if s.last_good is not None)
        self.sub_title = (
            f"{n} scenario{'s' * (n != 1)}"
            + (f", {n_broken} broken" if n_broken else "")
            + (f", {kept} from a last good version" if kept else "")
            + f" · {devices} device{'s' * (devices != 1)}"
        )
        self.files.after_catalog(catalog)
        if self._catalog_shown:
            return  # a reload: the selection and focus stay where the user left them
        self._catalog_shown = True
        self.call_after_refresh(self._after_first_list)
        self._start_panels()
        launch = self.shell.launch
        if launch.scenario and not self.setup.select(launch.scenario):
            broken = catalog.load_error(launch.scenario)
            if broken is not None:
                self.shell.report_error("Broken scenario", f"{broken} (e opens it in the editor)")
            else:
                known = ", ".join(s.id for s in catalog.scenarios)
                self.shell.report_error("Unknown scenario", f"no scenario {launch.scenario!r} (known: {known})")
            self._run_ended.set()  # nothing will run: headless drivers stop waiting
        self.query_one("#scenario-options").focus()

    def on_catalog_failed(self, message: CatalogFailed) -> None:
        self.shell.report_error(message.title, message.message)
        self._run_ended.set()

    def on_setup_panel_selected(self, message: SetupPanel.Selected) -> None:
        self._show_plan()
        launch = self.shell.launch
        if self._launched or message.scenario is None or launch.scenario != message.scenario.id:
            return
        self._launched = True
        if launch.sweep:
            self.start_run(sweep=(launch.sweep[0], list(launch.sweep[1])))
        elif launch.autorun:
            self.start_run()
        if launch.tab:
            self.action_show_tab(launch.tab)

    # -- starting and stopping runs ------------------------------------------------------------------
    def build_request(self, sweep: tuple[str, list[Any]] | None = None) -> RunRequest | None:
        """The request for the form, or None with the reason shown (and kept in ``blocked_reason``)."""
        try:
            request = self.setup.request(self.shell.scenario_dirs, sweep)
        except ParamError as exc:
            self.blocked_reason = exc.message
            self.notify(
                "\n".join(exc.message.split("; ")), severity="error", title="Cannot run: invalid values", markup=False
            )
            return None
        self.blocked_reason = None
        return request

    def start_run(
        self, request: RunRequest | None = None, sweep: tuple[str, list[Any]] | None = None, *, live: bool = False
    ) -> bool:
        request = request or self.build_request(sweep)
        if request is None:
            return False
        if self._cancel is not None:
            self._cancel.set()  # the run in progress (if any) stops; its late messages are dropped
        self.run_id += 1
        self.live = LiveState(self.run_id)
        self.live.variants = list(request.variants or [])
        self.live.started_by_live_mode = live
        self.live.header = run_header(request)
        self._order = list(request.variants or [])
        self._cancel = threading.Event()
        self._run_ended.clear()
        self.running = True
        self.setup.options.set_running(True)
        self._bench(request, self.live, self._cancel)
        return True

    @work(thread=True, exclusive=True, group="bench", exit_on_error=False)
    def _bench(self, request: RunRequest, live: LiveState, cancel: threading.Event) -> None:
        run_id = live.run_id
        self.post_message(RunBegan(run_id, live, sweep=request.sweep is not None))

        def on_event(event: Any) -> None:
            if isinstance(event, RunFailed):
                return  # the runner also returns the partial result; that one is reported below
            live.apply(event)
            self.post_message(RunUpdated(run_id, live))

        try:
            result = self.shell.runner.run(request, on_event=on_event, cancel=cancel)
        except TuiperfError as exc:
            self.post_message(RunError(run_id, exc.title, exc.message, exc.where))
            return
        except Exception as exc:  # noqa: BLE001 - any failure is shown, the app stays up
            self.post_message(
                RunError(run_id, "Run failed", f"{type(exc).__name__}: {exc}", details=traceback.format_exc(limit=6))
            )
            return
        if result.error:  # the measuring process stopped: what it measured comes with the error
            title = "Measuring process crashed" if result.crash is not None else "Run failed"
            self.post_message(RunError(run_id, title, result.error, partial=result))
            return
        self.post_message(RunDone(run_id, result))

    def cancel_run(self) -> bool:
        if not (self.running and self._cancel is not None):
            return False
        self._cancel.set()
        self.notify("Cancelling… the partial result will be kept.", timeout=3)
        return True

    async def wait_for_run_end(self, timeout_s: float = 600.0) -> None:
        """Until the current (or the launch) run ends, or nothing is going to run."""
        await asyncio.wait_for(self._run_ended.wait(), timeout_s)

    # -- run messages ------------------------------------------------------------------------------
    def on_run_began(self, message: RunBegan) -> None:
        if message.run_id != self.run_id:
            return
        if not message.live.started_by_live_mode:  # live re-runs never move the user's focus or view
            self._show_view("results")
        self.results.show(ResultView(None, order=self._order), state="running")  # no stale figures meanwhile
        self.results.show_live_samples({}, self._order, "(waiting for samples)")
        self.results.show_live(message.live, self._order)

    def on_run_updated(self, message: RunUpdated) -> None:
        if message.run_id == self.run_id:
            self._dirty = True

    def _redraw(self) -> None:
        live = self.live
        if not (self.running and live is not None):
            return
        with live.lock:
            if live.variants and live.variants != self._order:
                self._order = list(live.variants)
        self.results.show_live(live, self._order)  # always: the elapsed clock runs through compiles
        now = time.monotonic()
        if self._dirty and now - self._last_live_plot >= LIVE_PLOT_S:
            self._dirty, self._last_live_plot = False, now
            note = f"(live, sweep value {live.sweep_value})" if live.sweep_value is not None else "(live)"
            self.results.show_live_samples(live.snapshot_samples(LIVE_PLOT_SAMPLES), self._order, note)

    def on_run_done(self, message: RunDone) -> None:
        if message.run_id != self.run_id:
            return
        self._end_run()
        self.shell.last_error = None
        result = message.result
        if result.sweep is not None and not result.partial:
            self.action_show_tab("sweep")  # first: the histogram, hidden then, builds no picture meanwhile
        self.show_result(result)
        self.history.store(result)
        if result.partial:
            self.notify("Run cancelled: the partial result is shown.", title="Partial result", severity="warning")

    def on_run_error(self, message: RunError) -> None:
        """Every run failure arrives here: a runner exception, or a run that stopped with a partial result."""
        if message.run_id != self.run_id:
            return
        self._end_run()
        self.shell.report_error(message.title, message.message, message.where, message.details)
        partial = message.partial
        if partial is not None and (partial.variants or partial.points):
            self.show_result(partial)
        else:
            self.show_result(self.result, state="failed")  # keep (and redraw) the previous result

    def _show_plan(self) -> None:
        """Before the first result: the run the form describes, as its progress will show it."""
        self._plan_timer = None
        if self.running or self.result is not None or not self.panels_ready:
            return
        try:
            request = self.setup.request(self.shell.scenario_dirs)
        except ParamError:
            if self.setup.scenario is None or not self.setup.options.variants:
                self.results.show_plan("", [])  # nothing would run: no stale plan
            return  # else a value typed is not valid yet: the plan stays (no block jumping per key)
        self.results.show_plan(run_header(request), list(request.variants or []))

    def _schedule_plan(self) -> None:
        """The plan after the form's last change: a new header can change the block's height, and a
        layout of the screen at each key typed would lag the typing (30-110 ms each here)."""
        if self._plan_timer is not None:
            self._plan_timer.stop()
        self._plan_timer = self.set_timer(PLAN_DELAY_S, self._show_plan)

    def _end_run(self) -> None:
        self.running = False
        self.run_count += 1
        self.setup.options.set_running(False)
        self._run_ended.set()

    def show_result(self, result: RunResult | None, state: str = "done") -> None:
        """Fill every result panel from one result; a result the panels cannot show is reported."""
        try:
            if state != "failed":
                self.result = result
            view = view_of(result, self._order)
            self._order = view.order
            fraction = self.live.fraction if (self.live is not None and result is not None and result.partial) else None
            self.results.show(view, state=state, fraction=fraction, error=self.shell.last_error)
        except Exception as exc:  # noqa: BLE001 - the app must stay up
            self.shell.report_error(
                "Cannot display this result",
                f"{type(exc).__name__}: {exc}",
                details=traceback.format_exc(limit=4),
            )

    # -- live mode -----------------------------------------------------------------------------------
    def on_param_form_changed(self, message: ParamForm.Changed) -> None:
        self._schedule_plan()
        self._schedule_live()

    def on_run_options_changed(self, message: RunOptions.Changed) -> None:
        self._schedule_plan()
        if message.what == "live":
            state = "on: parameter changes re-run" if self.setup.options.live else "off"
            self.notify(f"Live mode {state}.", timeout=2)
            return
        self._schedule_live()

    def _schedule_live(self) -> None:
        if not self.setup.options.live:
            return
        if self._live_timer is not None:
            self._live_timer.stop()
        if self.setup.problems():
            return
        self._live_timer = self.set_timer(LIVE_DELAY_S, self._live_run)

    def _live_run(self) -> None:
        self._live_timer = None
        self.start_run(live=True)

    # -- input events --------------------------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "scenario-filter":
            self.action_run()

    @on(Button.Pressed, "#run-button")
    def _run_pressed(self) -> None:
        self.action_run()

    @on(Button.Pressed, "#sweep-button")
    def _sweep_pressed(self) -> None:
        self.action_sweep()

    @on(Button.Pressed, "#cancel-button")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        # A stale activation (the mounted switch's first, say) is not the active tab any more.
        if event.tabs.id == "view-tabs" and event.tab.id == event.tabs.active:
            self._show_view("setup" if event.tab.id == "view-setup" else "results")

    def on_resize(self, event: events.Resize) -> None:
        self._apply_view()  # Screen._on_resize has set the breakpoint classes
        self.set_timer(0.05, self._keep_focus_visible)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if self.has_class("-narrow"):  # Textual may move focus into the hidden half
            self.call_after_refresh(self._keep_focus_visible)

    def _keep_focus_visible(self) -> None:
        if self.app.screen is not self or not self.has_class("-narrow"):
            return
        self._show_view(self.view)

    def _show_view(self, view: str) -> None:
        """Setup or results; on a narrow screen only one is visible, and focus must stay visible."""
        self.view = view
        self._apply_view()
        if not self.panels_ready:
            return  # the switch and the results half come with the panels; they start at self.view
        setup = view == "setup"
        tabs = self.query_one("#view-tabs", Tabs)
        if tabs.active != f"view-{view}":
            tabs.active = f"view-{view}"
        if self.has_class("-narrow"):
            focused = self.focused
            half = self.setup if setup else self.results
            if focused is None or half not in focused.ancestors_with_self:
                (self.query_one("#scenario-options") if setup else self.query_one("#tabs Tabs")).focus()

    def _apply_view(self) -> None:
        """Both halves on a wide screen, the chosen one on a narrow screen (display only: no restyle)."""
        narrow = self.has_class("-narrow")
        self.setup.display = not narrow or self.view == "setup"
        if self.panels_ready:
            self.results.display = not narrow or self.view == "results"

    # -- actions (see tuiperf.tui.commands) ------------------------------------------------------------
    def action_run(self) -> None:
        if self.running:
            self.app.push_screen(
                ConfirmScreen("A run is measuring. Stop it and start a new one?", "Restart"), self._restart_if
            )
            return
        self.start_run()

    def _restart_if(self, yes: bool | None) -> None:
        if yes:
            self.start_run()

    def action_cancel(self) -> None:
        if self.cancel_run():
            return
        if self._live_timer is not None:
            self._live_timer.stop()
            self._live_timer = None
        # Not running: leave the field being edited, so single-key commands (r, w, s, ?) work.
        focused = self.focused
        if focused is not None and self.setup in focused.ancestors_with_self:
            self.query_one("#run-button", Button).focus()
        else:
            self.query_one("#tabs Tabs").focus()

    def action_sweep(self) -> None:
        specs = self.setup.form.specs
        if self.setup.scenario is None or not specs:
            self.notify("Choose a scenario with parameters first.", severity="warning")
            return

        def chosen(value: tuple[str, list[Any]] | None) -> None:
            if value is not None:
                self.start_run(sweep=value)

        from tuiperf.tui.screens.sweep import SweepScreen

        self.app.push_screen(SweepScreen(specs), chosen)

    def action_toggle_log(self) -> None:
        histogram = self.results.histogram
        histogram.set_log(not histogram.effective_log)
        self.notify(f"Histogram time axis: {'log' if histogram.log_x else 'linear'} scale", timeout=2)

    def action_next_baseline(self) -> None:
        stats = self.results.stats
        names = [v.name for v in stats.result.measured] if stats.result else []
        if not names:
            return
        index = names.index(stats.baseline) if stats.baseline in names else -1
        stats.set_baseline(names[(index + 1) % len(names)])
        self.action_show_tab("stats")
        self.notify(f"Baseline: {stats.baseline}", timeout=2, markup=False)

    def action_choose_plotted(self) -> None:
        from tuiperf.tui.screens.variants import VariantPickerScreen  # it imports the histogram, and plotext

        histogram = self.results.histogram
        names = [n for n in histogram.order if histogram.series.get(n)]
        if not names:
            self.notify("Nothing to draw yet: run first.", severity="warning")
            return

        def chosen(picked: list[str] | None) -> None:
            if picked is not None:
                histogram.choose(picked or None)
                self.action_show_tab("histogram")

        self.app.push_screen(VariantPickerScreen(names, histogram.drawn()), chosen)

    def action_palette(self) -> None:
        self.app.action_command_palette()

    def action_show_tab(self, tab: str) -> None:
        if self.results.show_tab(tab):
            self._show_view("results")

    def action_prev_tab(self) -> None:
        self.results.step_tab(-1)
        self._show_view("results")

    def action_next_tab(self) -> None:
        self.results.step_tab(1)
        self._show_view("results")

    def action_toggle_view(self) -> None:
        self._show_view("results" if self.view == "setup" else "setup")

    def action_focus_filter(self) -> None:
        self._show_view("setup")
        self.query_one("#scenario-filter", Input).focus()

    def action_help(self) -> None:
        from tuiperf.tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen())

    def action_screenshot(self) -> None:
        self.shell.save_svg(self.screenshot_name())

    def screenshot_name(self) -> str:
        chosen = self.setup.scenario.id if self.setup.scenario else ""
        sid = chosen or (self.result.scenario.id if self.result else "") or "tuiperf"
        return f"{sid}-{time.strftime('%Y%m%d-%H%M%S')}.svg"

    def action_quit(self) -> None:
        if not self.running:
            self.app.exit()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.cancel_run()
                self.app.exit()

        self.app.push_screen(ConfirmScreen("A run is measuring. Stop it and quit?", "Quit"), answered)

    @property
    def screenshots_dir(self) -> Path:
        return Path(self.shell.screenshots_dir)


def _on_hidden_tab(node: DOMNode) -> bool:
    """Whether a node is inside something not displayed (a tab not shown, a collapsed panel)."""
    return any(isinstance(ancestor, Widget) and not ancestor.display for ancestor in node.ancestors_with_self)
