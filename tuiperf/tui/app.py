"""The tuiperf Textual app: pick a scenario, set its parameters, run, read the results.

The app never imports JAX: the runner it is given (a :class:`~tuiperf.core.worker.WorkerRunner` by
default, which owns JAX in a child process) is called only from thread workers, which stream
events back as messages (:mod:`tuiperf.tui.messages`). Only message handlers touch widgets.
"""

from __future__ import annotations

import asyncio
import threading
import time
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec
from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Input, Label, Tab, TabbedContent, TabPane, Tabs
from textual.worker import Worker, WorkerState

from tuiperf.core.errors import ParamError, TuiperfError
from tuiperf.core.events import RunFailed
from tuiperf.core.model import RunResult
from tuiperf.core.runner import DEFAULT_DISPATCH, RunRequest
from tuiperf.tui.live import LiveState
from tuiperf.tui.messages import CatalogFailed, CatalogLoaded, RunBegan, RunDone, RunError, RunUpdated, VariantDone
from tuiperf.tui.screens.error import ErrorScreen
from tuiperf.tui.screens.help import HelpScreen
from tuiperf.tui.screens.sweep import SweepScreen
from tuiperf.tui.screenshot import write_png
from tuiperf.tui.widgets.breakdown import OverheadBreakdown
from tuiperf.tui.widgets.histogram import LatencyHistogram
from tuiperf.tui.widgets.param_form import ParamForm
from tuiperf.tui.widgets.plot_base import CachedPlot
from tuiperf.tui.widgets.profile_table import ProfileTable
from tuiperf.tui.widgets.run_options import RunOptions
from tuiperf.tui.widgets.run_progress import RunProgress
from tuiperf.tui.widgets.scenario_info import ScenarioInfo
from tuiperf.tui.widgets.scenario_list import ScenarioList
from tuiperf.tui.widgets.stats_table import StatsTable
from tuiperf.tui.widgets.sweep_plot import SweepPlot
from tuiperf.tui.widgets.warnings_panel import WarningsPanel

RESULT_TABS = [
    ("histogram", "Histogram"),
    ("breakdown", "Breakdown"),
    ("sweep", "Sweep"),
    ("stats", "Statistics"),
    ("profile", "Profile"),
    ("warnings", "Warnings"),
]
LIVE_DELAY_S = 0.6
LIVE_REDRAW_S = 0.4
POST_INTERVAL_S = 0.1


class TuiperfApp(App[None]):
    """See the module docstring. ``runner`` implements :class:`tuiperf.core.runner.Runner`."""

    CSS_PATH = "app.tcss"
    TITLE = "tuiperf"
    SUB_TITLE = "per-call cost of JAX code"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    AUTO_FOCUS = "#scenario-options"  # so r, w, s work at once; / goes to the filter

    BINDINGS = [
        Binding("r", "run", "Run"),
        Binding("ctrl+r", "run", "Run", show=False),
        Binding("escape", "cancel", "Cancel"),
        Binding("w", "sweep", "Sweep"),
        Binding("l", "toggle_log", "Log scale"),
        Binding("b", "next_baseline", "Baseline", show=False),
        Binding("s", "screenshot", "Screenshot"),
        Binding("question_mark", "help", "Keys"),
        Binding("slash", "focus_filter", "Filter", show=False),
        Binding("f2", "toggle_view", "Setup/Results", show=False),
        Binding("left_square_bracket", "prev_tab", "Prev tab", show=False),
        Binding("right_square_bracket", "next_tab", "Next tab", show=False),
        Binding("q", "quit", "Quit", show=False),
        *[Binding(str(i + 1), f"show_tab('{tid}')", label, show=False) for i, (tid, label) in enumerate(RESULT_TABS)],
    ]

    log_scale: reactive[bool | None] = reactive(None)  # None: automatic
    running: reactive[bool] = reactive(False)

    def __init__(
        self,
        runner: Any,
        scenario_dirs: Iterable[str] = (),
        screenshots_dir: str | Path = "screenshots",
        *,
        scenario: str | None = None,
        params: dict[str, Any] | None = None,
        autorun: bool = False,
        sweep: tuple[str, list[Any]] | None = None,
        tab: str | None = None,
        budget_s: float | None = None,
        samples: int | None = None,
        dispatch: str | None = None,
        device: str | None = None,
        variants: list[str] | None = None,
        live_errors_modal: bool = True,
        **opts: Any,
    ) -> None:
        super().__init__()
        self.runner = runner
        self.scenario_dirs = [str(d) for d in scenario_dirs]
        self.screenshots_dir = Path(screenshots_dir)
        self.initial = dict(
            scenario=scenario,
            params=dict(params or {}),
            autorun=autorun,
            sweep=sweep,
            tab=tab,
            budget_s=budget_s,
            samples=samples,
            dispatch=dispatch,
            device=device,
            variants=variants,
        )
        self.errors_modal = live_errors_modal
        self.catalog: dict[str, Any] | None = None
        self.devices: list[dict[str, Any]] = []
        self.scenario: dict[str, Any] | None = None
        self.result: RunResult | None = None  # what the result panels show (last complete or partial)
        self.last_error: tuple[str, str] | None = None
        self.errors_seen: list[tuple[str, str]] = []
        self.run_count = 0  # runs that ended (done, partial or failed): tests wait on it
        self.run_id = 0
        self.live: LiveState | None = None
        self._cancel: threading.Event | None = None
        self._live_timer = None
        self._live_dirty = False
        self._form_values: dict[str, dict[str, Any]] = {}
        self._order: list[str] = []
        self.last_screenshot: Path | None = None

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Header(icon="⏱")
        yield Tabs(Tab("Setup", id="view-setup"), Tab("Results", id="view-results"), id="view-tabs")
        with Horizontal(id="main"):
            with Vertical(id="sidebar"):
                yield ScenarioList(id="scenarios")
                with VerticalScroll(id="setup"):
                    yield ScenarioInfo(id="info")
                    yield Label("Parameters", classes="section")
                    yield ParamForm(id="params")
                    yield RunOptions(id="options")
            with Vertical(id="results"):
                yield RunProgress(id="progress")
                with TabbedContent(id="tabs"):
                    with TabPane("Histogram", id="histogram"):
                        yield LatencyHistogram(id="histogram-plot")
                    with TabPane("Breakdown", id="breakdown"):
                        yield OverheadBreakdown(id="breakdown-view")
                    with TabPane("Sweep", id="sweep"):
                        yield SweepPlot(id="sweep-view")
                    with TabPane("Statistics", id="stats"):
                        yield StatsTable(id="stats-view")
                    with TabPane("Profile", id="profile"):
                        yield ProfileTable(id="profile-table")
                    with TabPane("Warnings", id="warnings"):
                        yield WarningsPanel(id="warnings-view")
        yield Footer()

    def on_mount(self) -> None:
        self.screen.add_class("-show-setup")
        self.query_one(RunProgress).show_result(None)
        self.query_one(ScenarioInfo).show(None)
        self.query_one(WarningsPanel).show(None)
        self.set_interval(LIVE_REDRAW_S, self._redraw_live)
        self._load_catalog()

    # ------------------------------------------------------------------ catalog
    @work(thread=True, group="catalog", exit_on_error=False)
    def _load_catalog(self) -> None:
        try:
            catalog = self.runner.catalog(self.scenario_dirs)
            devices = self.runner.devices()
        except TuiperfError as exc:
            self.post_message(CatalogFailed(exc.title, str(exc)))
            return
        except Exception as exc:  # noqa: BLE001 - shown, never raised into the UI
            self.post_message(CatalogFailed("Could not list scenarios", f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(CatalogLoaded(catalog, devices))

    def on_catalog_loaded(self, message: CatalogLoaded) -> None:
        self.catalog = message.catalog
        self.devices = message.devices
        self.query_one(RunOptions).set_devices(message.devices)
        self._apply_initial_options()
        scenarios = self.query_one(ScenarioList)
        scenarios.set_catalog(message.catalog)
        n, nb = len(message.catalog.get("scenarios", [])), len(message.catalog.get("broken", []))
        nd = len(self.devices)
        self.sub_title = (
            f"{n} scenario{'s' * (n != 1)}" + (f", {nb} broken" if nb else "") + f" · {nd} device{'s' * (nd != 1)}"
        )
        wanted = self.initial["scenario"]
        if wanted and not scenarios.select(wanted):
            self.initial_failed = True
            known = ", ".join(s["id"] for s in message.catalog.get("scenarios", []))
            self._report_error("Unknown scenario", f"no scenario {wanted!r} (known: {known})")
        self.query_one("#scenario-options").focus()

    def on_catalog_failed(self, message: CatalogFailed) -> None:
        self._report_error(message.title, message.message)

    # ------------------------------------------------------------------ selecting a scenario
    async def on_scenario_list_chosen(self, message: ScenarioList.Chosen) -> None:
        form = self.query_one(ParamForm)
        if self.scenario is not None and form.specs:
            self._form_values[self.scenario["id"]] = form.raw_values()
        self.query_one(ScenarioInfo).show(message.scenario, message.broken)
        self.scenario = message.scenario
        options = self.query_one(RunOptions)
        if message.scenario is None:
            await form.set_params([])
            options.set_variants([])
            return
        sid = message.scenario["id"]
        values = self._form_values.get(sid)
        first_time = self.initial["scenario"] == sid and not self.initial.get("applied")
        if first_time:
            values = {**(values or {}), **{k: v for k, v in self.initial["params"].items()}}
        unknown = [k for k in (values or {}) if k not in {p["name"] for p in message.scenario.get("params", [])}]
        for k in unknown:
            values.pop(k)
            self._report_error("Invalid parameter", f"unknown parameter {k!r} for {sid}")
        await form.set_params(message.scenario.get("params", []), values)
        options.set_variants(message.scenario.get("variants", []))
        if first_time:
            self.initial["applied"] = True
            if self.initial["variants"]:
                sl = options.query_one("#variants")
                sl.deselect_all()
                for v in self.initial["variants"]:
                    sl.select(v)
            if self.initial["sweep"]:
                name, vals = self.initial["sweep"]
                self.start_run(sweep=(name, list(vals)))
            elif self.initial["autorun"]:
                self.action_run()
            if self.initial["tab"]:
                self.action_show_tab(self.initial["tab"])

    def _apply_initial_options(self) -> None:
        opts = self.query_one(RunOptions)
        init = self.initial
        if init["budget_s"] is not None:
            opts.query_one("#budget", Input).value = f"{init['budget_s']:g}"
        if init["samples"] is not None:
            opts.query_one("#samples", Input).value = str(init["samples"])
        if init["dispatch"]:
            opts.query_one("#dispatch").value = init["dispatch"]
        if init["device"]:
            opts.query_one("#device").value = init["device"]

    # ------------------------------------------------------------------ building and starting runs
    def build_request(self, sweep: tuple[str, list[Any]] | None = None) -> RunRequest | None:
        """The request for the form's values, or None (with the reason shown) when they are invalid."""
        if self.scenario is None:
            self.notify("Choose a scenario first.", severity="warning", title="Nothing to run")
            return None
        form = self.query_one(ParamForm)
        opts = self.query_one(RunOptions)
        problems = [f"{n}: {m}" for n, m in form.errors.items() if not (sweep and n == sweep[0])]
        problems += opts.errors()
        if problems:
            self.notify("\n".join(problems), severity="error", title="Cannot run: invalid values")
            self.blocked_reason = problems[0]
            return None
        self.blocked_reason = None
        params = {k: v for k, v in form.raw_values().items() if not (sweep and k == sweep[0])}
        try:
            params = {k: form.specs[k].parse(v) for k, v in params.items()}
            budget, samples = opts.budget_s(), opts.samples()
        except ParamError as exc:  # pragma: no cover - errors were checked above
            self.notify(str(exc), severity="error", title="Cannot run")
            return None
        return RunRequest(
            scenario=self.scenario["id"],
            params=params,
            variants=opts.variants,
            device=opts.device,
            dispatch=opts.dispatch,
            samples=samples,
            budget_s=budget,
            sweep=sweep,
            scenario_dirs=list(self.scenario_dirs),
        )

    blocked_reason: str | None = None

    def start_run(self, request: RunRequest | None = None, sweep: tuple[str, list[Any]] | None = None) -> bool:
        request = request or self.build_request(sweep)
        if request is None:
            return False
        if self._cancel is not None:
            self._cancel.set()  # the run in progress (if any) stops within one sample
        self.run_id += 1
        self.live = LiveState(self.run_id)
        self.live.variants = list(request.variants or [])
        self._order = list(request.variants or [])
        self._cancel = threading.Event()
        self.running = True
        self._bench(request, self.live, self._cancel)
        return True

    @work(thread=True, exclusive=True, group="bench", exit_on_error=False)
    def _bench(self, request: RunRequest, live: LiveState, cancel: threading.Event) -> None:
        run_id = live.run_id
        self.post_message(RunBegan(run_id, live, sweep=request.sweep is not None))
        last_post = [0.0]
        failed: list[RunFailed] = []

        def on_event(event: Any) -> None:
            if isinstance(event, RunFailed):
                failed.append(event)
                return
            urgent = live.apply(event)
            now = time.monotonic()
            if urgent or now - last_post[0] >= POST_INTERVAL_S:
                last_post[0] = now
                self.post_message(RunUpdated(run_id, live))

        try:
            result = self.runner.run(request, on_event=on_event, cancel=cancel)
        except TuiperfError as exc:
            partial = failed[0].partial if failed else None
            self.post_message(RunError(run_id, exc.title, exc.message, exc.where, partial))
            return
        except Exception as exc:  # noqa: BLE001 - any failure is shown, the app stays up
            partial = failed[0].partial if failed else None
            self.post_message(
                RunError(
                    run_id,
                    "Run failed",
                    f"{type(exc).__name__}: {exc}",
                    None,
                    partial,
                    details=traceback.format_exc(limit=6),
                )
            )
            return
        if failed and not (result and (result.variants or result.points)):
            f = failed[0]
            self.post_message(RunError(run_id, f.title, f.message, None, f.partial))
            return
        if failed:
            f = failed[0]
            self.post_message(RunError(run_id, f.title, f.message, None, result))
            return
        self.post_message(RunDone(run_id, result))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # Workers catch their own errors; this is the safety net, routed to the same single handler.
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            exc = event.worker.error
            title = exc.title if isinstance(exc, TuiperfError) else "Unexpected error"
            self._report_error(title, str(exc))
            if event.worker.group == "bench":
                self.running = False

    # ------------------------------------------------------------------ run messages
    def on_run_began(self, message: RunBegan) -> None:
        if message.run_id != self.run_id:
            return
        self._show_view("results")
        self.query_one(LatencyHistogram).set_series({}, note="(waiting for samples)")
        self.query_one(RunProgress).show_live(message.live, self._order)

    def on_run_updated(self, message: RunUpdated) -> None:
        if message.run_id != self.run_id:
            return
        live = message.live
        with live.lock:
            if live.variants and live.variants != self._order:
                self._order = list(live.variants)
        self.query_one(RunProgress).show_live(live, self._order)
        self._live_dirty = True

    def _redraw_live(self) -> None:
        if not (self.running and self._live_dirty and self.live is not None):
            return
        self._live_dirty = False
        live = self.live
        series = live.snapshot_samples()
        note = f"(live, sweep value {live.sweep_value})" if live.sweep_value is not None else "(live)"
        self.query_one(LatencyHistogram).set_series(series, order=self._order, note=note)

    def on_variant_done(self, message: VariantDone) -> None:
        if message.run_id == self.run_id and self.live is not None:
            self.query_one(RunProgress).show_live(self.live, self._order)

    def on_run_done(self, message: RunDone) -> None:
        if message.run_id != self.run_id:
            return
        self.running = False
        self.run_count += 1
        self.last_error = None
        self.show_result(message.result)
        if message.result.partial:
            self.notify("Run cancelled: the partial result is shown.", title="Partial result", severity="warning")
        elif message.result.sweep is not None:
            self.action_show_tab("sweep")

    def on_run_error(self, message: RunError) -> None:
        """The one place run failures arrive (runner exceptions, RunFailed events, crashes)."""
        if message.run_id != self.run_id:
            return
        self.running = False
        self.run_count += 1
        partial = message.partial if message.partial and (message.partial.variants or message.partial.points) else None
        if partial is not None:
            partial.partial = True
        self._report_error(message.title, message.message, message.where, message.details)
        if partial is not None:
            self.show_result(partial)
        else:
            self.show_result(self.result, state="failed")  # keep (and redraw) the previous result

    def _report_error(self, title: str, message: str, where: str | None = None, details: str = "") -> None:
        self.last_error = (title, message if not where else f"{where}: {message}")
        self.errors_seen.append(self.last_error)
        self.query_one(WarningsPanel).set_error(self.last_error)
        self._update_tab_labels()
        live_mode = self.query_one(RunOptions).live
        if self.errors_modal and not live_mode and not self.is_headless_screenshot:
            self.push_screen(ErrorScreen(title, message, where, details))
        else:
            self.notify(self.last_error[1], title=title, severity="error", timeout=8)

    is_headless_screenshot = False
    initial_failed = False

    # ------------------------------------------------------------------ showing results
    def show_result(self, result: RunResult | None, state: str = "done") -> None:
        """Fill every result panel from one result document (also used by tests and screenshots).

        A document the panels cannot show (a newer schema, a bug) is reported, never fatal."""
        try:
            self._show_result(result, state)
        except Exception as exc:  # noqa: BLE001 - the app must stay up
            self._report_error(
                "Cannot display this result", f"{type(exc).__name__}: {exc}", details=traceback.format_exc(limit=4)
            )

    def _show_result(self, result: RunResult | None, state: str = "done") -> None:
        if state != "failed":
            self.result = result
        doc = result.shown if result is not None else None
        if result is not None and doc is not None and doc is not result:  # a sweep: show its last point
            doc = msgspec.structs.replace(doc, partial=result.partial, warnings=result.warnings)
        variants = doc.variants if doc is not None else []
        self._order = [v.name for v in variants] or self._order
        series = {v.name: v.samples_ns for v in variants if v.ok}
        medians = {v.name: v.stats.median_ns for v in variants if v.stats is not None}
        note = "PARTIAL" if doc is not None and doc.partial else ""
        if result is not None and result.sweep is not None and doc is not result:
            note = (note + f" ({result.sweep.parameter}={doc.params.get(result.sweep.parameter)})").strip()
        modes = [m.center_ns for v in variants if v.ok for m in v.modes if m.fraction >= 0.02]
        self.query_one(LatencyHistogram).set_series(series, medians, order=self._order, note=note, marks=modes)
        self.query_one(OverheadBreakdown).show(doc)
        self.query_one(SweepPlot).show(result.sweep if result is not None else None, self._order)
        self.query_one(StatsTable).show(doc)
        self.query_one(ProfileTable).show(doc)
        self.query_one(WarningsPanel).show(doc, self.last_error)
        fraction = self.live.fraction if (self.live is not None and doc is not None and doc.partial) else None
        self.query_one(RunProgress).show_result(doc, state=state, fraction=fraction)
        self._update_tab_labels()

    def _update_tab_labels(self) -> None:
        tabs = self.query_one("#tabs", TabbedContent)
        count = self.query_one(WarningsPanel).count
        tabs.get_tab("warnings").label = f"Warnings ({count})" if count else "Warnings"

    # ------------------------------------------------------------------ live mode
    def on_param_form_changed(self, message: ParamForm.Changed) -> None:
        self._schedule_live()

    def on_run_options_changed(self, message: RunOptions.Changed) -> None:
        if message.what == "live":
            state = "on: parameter changes re-run" if self.query_one(RunOptions).live else "off"
            self.notify(f"Live mode {state}.", timeout=2)
            return
        self._schedule_live()

    def _schedule_live(self) -> None:
        if not self.query_one(RunOptions).live:
            return
        if self._live_timer is not None:
            self._live_timer.stop()
        if not self.query_one(ParamForm).valid or self.query_one(RunOptions).errors():
            return
        self._live_timer = self.set_timer(LIVE_DELAY_S, self._live_run)

    def _live_run(self) -> None:
        self._live_timer = None
        self.start_run()

    # ------------------------------------------------------------------ input events
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
        if event.tabs.id != "view-tabs":
            return
        self._show_view("setup" if event.tab.id == "view-setup" else "results")

    def on_resize(self) -> None:
        # after the breakpoint classes change: keep focus on something visible
        self.set_timer(0.05, self._keep_focus_visible)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        # Textual moves focus off a widget that became hidden, possibly into the hidden half
        if self.screen.has_class("-narrow"):
            self.call_after_refresh(self._keep_focus_visible)

    def _keep_focus_visible(self) -> None:
        if self.screen is not self.screen_stack[0] or not self.screen.has_class("-narrow"):
            return  # a dialog is open, or both halves are shown
        view = "setup" if self.query_one("#view-tabs", Tabs).active == "view-setup" else "results"
        self._show_view(view)

    def _show_view(self, view: str) -> None:
        """Setup or results; on a narrow screen only one is visible, and focus must stay visible."""
        setup = view == "setup"
        self.screen.set_class(setup, "-show-setup")
        self.screen.set_class(not setup, "-show-results")
        tabs = self.query_one("#view-tabs", Tabs)
        if tabs.active != f"view-{view}":
            tabs.active = f"view-{view}"
        if self.screen.has_class("-narrow"):
            focused = self.focused
            if setup and (focused is None or self.query_one("#sidebar") not in focused.ancestors_with_self):
                self.query_one("#scenario-options").focus()
            elif not setup and (focused is None or self.query_one("#results") not in focused.ancestors_with_self):
                self.query_one("#tabs Tabs").focus()

    def watch_running(self, running: bool) -> None:
        if self.is_mounted:
            try:
                self.query_one(RunOptions).set_running(running)
            except Exception:  # noqa: BLE001 - during shutdown
                pass

    def watch_log_scale(self, log: bool) -> None:
        try:
            self.query_one(LatencyHistogram).set_log(log)
        except Exception:  # noqa: BLE001 - before mount
            pass

    # ------------------------------------------------------------------ actions
    def action_run(self) -> None:
        self.start_run()

    def action_cancel(self) -> None:
        if self.running and self._cancel is not None:
            self._cancel.set()
            self.workers.cancel_group(self, "bench")
            self.notify("Cancelling… the partial result will be kept.", timeout=3)
            return
        if self._live_timer is not None:
            self._live_timer.stop()
            self._live_timer = None
        # Not running: leave the field being edited, so single-key bindings (r, w, s, ?) work.
        focused = self.focused
        if focused is not None and self.query_one("#sidebar") in focused.ancestors_with_self:
            self.query_one("#run-button", Button).focus()
        else:
            self.query_one("#tabs Tabs").focus()

    def action_sweep(self) -> None:
        if self.scenario is None:
            self.notify("Choose a scenario first.", severity="warning")
            return
        specs = self.query_one(ParamForm).specs
        if not specs:
            self.notify("This scenario has no parameters to sweep.", severity="warning")
            return

        def chosen(value: tuple[str, list[Any]] | None) -> None:
            if value is not None:
                self.start_run(sweep=value)

        self.push_screen(SweepScreen(specs), chosen)

    def action_toggle_log(self) -> None:
        self.log_scale = not self.query_one(LatencyHistogram).effective_log
        self.notify(f"Histogram time axis: {'log' if self.log_scale else 'linear'} scale", timeout=2)

    def action_next_baseline(self) -> None:
        stats = self.query_one(StatsTable)
        ok = [v.name for v in stats.result.measured] if stats.result else []
        if not ok:
            return
        i = ok.index(stats.baseline) if stats.baseline in ok else -1
        stats.set_baseline(ok[(i + 1) % len(ok)])
        self.action_show_tab("stats")
        self.notify(f"Baseline: {stats.baseline}", timeout=2)

    async def plots_settled(self, timeout_s: float = 30.0) -> None:
        """Wait until every plot on screen shows its current data (plots are drawn in threads)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # let pending refreshes reach render() and start their builds
            if all(plot.settled for plot in self.query(CachedPlot) if plot.region.area):
                return

    def action_show_tab(self, tab: str) -> None:
        ids = [t for t, _ in RESULT_TABS]
        if tab not in ids:
            lowered = {label.lower(): t for t, label in RESULT_TABS}
            tab = lowered.get(tab.lower(), tab)
        if tab in ids:
            self.query_one("#tabs", TabbedContent).active = tab
            self._show_view("results")

    def action_prev_tab(self) -> None:
        self._step_tab(-1)

    def action_next_tab(self) -> None:
        self._step_tab(1)

    def _step_tab(self, step: int) -> None:
        ids = [t for t, _ in RESULT_TABS]
        current = self.query_one("#tabs", TabbedContent).active
        i = ids.index(current) if current in ids else 0
        self.action_show_tab(ids[(i + step) % len(ids)])

    def action_toggle_view(self) -> None:
        tabs = self.query_one("#view-tabs", Tabs)
        self._show_view("results" if tabs.active == "view-setup" else "setup")

    def action_focus_filter(self) -> None:
        self._show_view("setup")
        self.query_one("#scenario-filter", Input).focus()

    def action_focus_form(self) -> None:
        inputs = self.query("#params Input, #params Select, #params Switch")
        if inputs:
            inputs.first().focus()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def screenshot_name(self) -> str:
        sid = (self.scenario or {}).get("id") or (self.result.scenario.id if self.result else "") or "tuiperf"
        return f"{sid}-{time.strftime('%Y%m%d-%H%M%S')}.svg"

    def action_screenshot(self) -> None:
        try:
            self.screenshots_dir.mkdir(parents=True, exist_ok=True)
            path = Path(self.save_screenshot(filename=self.screenshot_name(), path=str(self.screenshots_dir)))
        except OSError as exc:
            self._report_error("Screenshot failed", f"{exc}")
            return
        self.last_screenshot = path
        self.notify(f"Saved {path}", title="Screenshot", timeout=6)
        self._write_png(path)

    @work(thread=True, group="png", exit_on_error=False)
    def _write_png(self, svg: Path) -> None:
        """cairosvg takes a moment: off the UI thread. Silent when the optional extra is missing."""
        png = write_png(svg)
        if png is not None:
            self.call_from_thread(self.notify, f"and {png.name} beside it", title="PNG", timeout=4)

    async def action_quit(self) -> None:
        if self._cancel is not None:
            self._cancel.set()
        self.workers.cancel_group(self, "bench")
        self.exit()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Run", "Run the selected scenario (r)", self.action_run)
        yield SystemCommand(
            "Cancel run", "Stop the run in progress, keep the partial result (escape)", self.action_cancel
        )
        yield SystemCommand("Sweep a parameter", "Run once per value of one parameter (w)", self.action_sweep)
        yield SystemCommand("Toggle log scale", "Linear or log time axis of the histogram (l)", self.action_toggle_log)
        yield SystemCommand("Next baseline", "Compare the variants against another one (b)", self.action_next_baseline)
        yield SystemCommand("Save screenshot", f"SVG (+ PNG) into {self.screenshots_dir}/ (s)", self.action_screenshot)
        yield SystemCommand("Show keys", "Every key binding (?)", self.action_help)
        yield SystemCommand("Filter scenarios", "Type to filter the scenario list (/)", self.action_focus_filter)
        yield SystemCommand("Setup / results", "Switch panels on a narrow screen (f2)", self.action_toggle_view)
        for tid, label in RESULT_TABS:
            yield SystemCommand(f"Show {label}", f"Show the {label.lower()} tab", lambda t=tid: self.action_show_tab(t))


def main(
    runner: Any = None, scenario_dirs: Iterable[str] = (), screenshots_dir: str | Path = "screenshots", **opts: Any
) -> int:
    """Open the app (the CLI's default command). Builds a WorkerRunner unless one is given."""
    own = runner is None
    if own:
        from tuiperf.core.worker import WorkerRunner

        runner = WorkerRunner(opts.get("dispatch") or DEFAULT_DISPATCH, list(scenario_dirs), spare=True)
        runner.warm_up()  # a measuring process imports JAX while the UI paints
    mouse = opts.pop("mouse", True)
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=screenshots_dir, **opts)
    try:
        app.run(mouse=mouse)
    finally:
        if own:
            try:
                runner.close()
            except Exception:  # noqa: BLE001
                pass
    return app.return_code or 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
