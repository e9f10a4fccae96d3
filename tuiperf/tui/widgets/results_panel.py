"""The results side: the run's progress line and the six result tabs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import ContentSwitcher, Static, TabbedContent, TabPane

from tuiperf.results.model import RunResult
from tuiperf.tui.commands import RESULT_TABS
from tuiperf.tui.explanations import Explanation, Explanations, explain
from tuiperf.tui.messages import TabFailed
from tuiperf.tui.run_state import RunState
from tuiperf.tui.tab_contents import TabContents, Widths, prepare
from tuiperf.tui.view import ResultView, view_of
from tuiperf.tui.widgets.breakdown import OverheadBreakdown
from tuiperf.tui.widgets.histogram import LatencyHistogram
from tuiperf.tui.widgets.profile_table import ProfileTable
from tuiperf.tui.widgets.run_progress import RunProgress
from tuiperf.tui.widgets.stats_table import StatsTable, baseline_for
from tuiperf.tui.widgets.sweep_plot import SweepPlot
from tuiperf.tui.widgets.warnings_panel import WarningsPanel, warnings_count

TAB_IDS = [tab for tab, _ in RESULT_TABS]
SWEEP_WAITING = "Sweeping: the plot comes once every point is measured.\nKey 1: the histogram of the point measured."


def warnings_label(count: int) -> str:
    """The Warnings tab's label, as wide with any count under 100: a new label then redraws the tab
    without laying the screen out."""
    return (f"Warnings ({count})" if count else "Warnings").center(len("Warnings (99)"))


class ResultsPanel(Vertical):
    DEFAULT_CSS = """
    ResultsPanel {
        width: 1fr;
    }
    #tabs {
        height: 1fr;
    }
    #tabs > ContentSwitcher {
        height: 1fr;
    }
    TabPane {
        padding: 0;
        height: 1fr;
    }
    """

    @dataclass
    class TabsPrepared(Message):
        generation: int
        contents: TabContents | None  # None: could not be made (each tab makes its own)

    @dataclass
    class Explained(Message):
        explanation: Explanation

    def __init__(self, error: tuple[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._error_before_mount = error  # reported while the panel was not there yet
        self._due: dict[str, Callable[[], None]] = {}  # tabs not yet showing the last result
        self._warnings: tuple[list[tuple[str, str]], tuple[str, str] | None] = ([], None)  # (items, error)
        self._warnings_label = warnings_label(0)
        self.order: list[str] = []  # the variants in the order every panel lists them
        self._generation = 0  # counts the results shown: contents made for an older one are dropped
        self._prepared: TabContents | None = None
        self.explanations = Explanations(self._explain)  # shared by Statistics and Breakdown
        # the panels, kept as composed
        self.progress = RunProgress(id="progress")
        self.tabbed = TabbedContent(id="tabs")
        self.histogram_plot = LatencyHistogram(id="histogram-plot")
        self.breakdown = OverheadBreakdown(self.explanations, id="breakdown-view")
        self.sweep_plot = SweepPlot(id="sweep-view")
        self.stats_table = StatsTable(self.explanations, id="stats-view")
        self.profile_table = ProfileTable(id="profile-table")
        self.warnings_view = WarningsPanel(id="warnings-view")

    def compose(self) -> ComposeResult:
        yield self.progress
        with self.tabbed:
            with TabPane("Histogram", id="histogram"):
                yield self.histogram_plot
            with TabPane("Breakdown", id="breakdown"):
                yield self.breakdown
            with TabPane("Sweep", id="sweep"):
                yield self.sweep_plot
            with TabPane("Statistics", id="stats"):
                yield self.stats_table
            with TabPane("Profile", id="profile"):
                yield self.profile_table
            with TabPane(warnings_label(0), id="warnings"):
                yield self.warnings_view

    def on_mount(self) -> None:
        self.watch(self.stats_table, "baseline", self._baseline_chosen, init=False)
        self.show(ResultView(None), error=self._error_before_mount)

    def show(
        self, view: ResultView, state: str = "done", fraction: float | None = None, error: tuple[str, str] | None = None
    ) -> None:
        """Every panel from one view (a failed run keeps showing the previous result).

        The progress line, the Warnings tab's label and the tab on screen are filled now; the other
        tabs when they are shown or read (:meth:`filled`). Filling them all at once stalled the event
        loop when a run ended, and a hidden tab filled in the background asked for a layout of the
        whole screen (Textual lays the screen out for any widget's new size, displayed or not).
        """
        stats, breakdown = self.stats_table, self.breakdown
        baseline = stats.choose_baseline(view.shown)
        shown = view.shown

        def ready() -> TabContents | None:
            """The tabs' contents made off the UI thread for this result, if they have come."""
            return self._prepared if self._prepared is not None and self._prepared.result is shown else None

        self._due = {
            "histogram": lambda: self.histogram_plot.set_series(
                view.series, view.medians, order=view.order, note=view.note, marks=view.marks
            ),
            "stats": lambda: stats.show(shown, c.stats if (c := ready()) else None),
            # the baseline when shown: `b` on another tab changes it without drawing the Breakdown
            "breakdown": lambda: breakdown.show(shown, stats.baseline, c.breakdown if (c := ready()) else None),
            "sweep": lambda: self.sweep_plot.show(
                view.sweep,
                view.order,
                view.crossovers,
                view.grid,
                legend=c.legend if (c := ready()) else None,
                below=c.below if c else None,
            ),
            "profile": lambda: self.profile_table.show(shown, c.profile if (c := ready()) else None),
        }
        self._set_warnings(list(view.warnings), error)
        if state != "running":
            c = ready()
            rows = c.progress if c is not None and c.progress_height == self.app.size.height else None
            self.progress.show_result(view.shown, state=state, fraction=fraction, header=view.header, rows=rows)
        self._generation += 1
        made = self._prepared is not None and self._prepared.result is shown
        if shown is not None and state != "running" and not made:
            # after the frame that shows the result: the worker's Python competes for the GIL
            self.call_after_refresh(self._prepare_tabs, shown, baseline, self.tab_widths(), self._generation)
        self.filled(self.active_tab)  # now: the tab on screen never shows one result under another's header

    def tab_widths(self) -> Widths:
        """The widths the tabs lay text out to: a hidden tab has no size, so each gets the width of the
        tab on screen (0 when none shows); the progress block's and the sweep legend's, as last laid out."""
        width = self.tabbed.query_one(ContentSwitcher).size.width
        estimates, legend = self.progress.estimates, self.sweep_plot.caption
        return Widths(
            stats=max(width - 2, 0),
            breakdown=max(width - 3, 0),
            progress=estimates.size.width or estimates.last_width,
            screen_height=self.app.size.height,
            # a sweep's first: its tab was never laid out, but its caption spans the tab less its padding
            legend=legend.size.width or legend.last_width or max(width - legend.styles.gutter.width, 0),
        )

    def view_maker(self) -> Callable[[RunResult], tuple[ResultView, TabContents | None]]:
        """What a result's view and tabs depend on, read here, on the UI thread; the function that makes
        them from a result in another thread: the run's, or the history's loading thread (they took
        ~0.2 s on the UI thread)."""
        # looked up when called, as the run's thread looks them up (a test records where they run)
        from tuiperf.tui.tab_contents import prepare as prepare_tabs
        from tuiperf.tui.view import view_of as make_view

        widths = self.tab_widths()
        baseline, measured = self.stats_table.kept_baseline

        def make(stored: RunResult) -> tuple[ResultView, TabContents | None]:
            view = make_view(stored)
            shown = view.shown
            if shown is None:
                return view, None
            return view, prepare_tabs(shown, baseline_for(shown, baseline, measured), widths, view)

        return make

    @work(thread=True, group="tab-contents", exclusive=True, exit_on_error=False, description="tab contents")
    def _prepare_tabs(self, result: RunResult, baseline: str | None, widths: Widths, generation: int) -> None:
        try:
            contents: TabContents | None = prepare(result, baseline, widths)
        except Exception:  # noqa: BLE001 - each tab then makes its own, and says if it cannot
            contents = None
        self.post_message(self.TabsPrepared(generation, contents))

    def on_results_panel_tabs_prepared(self, message: TabsPrepared) -> None:
        """One message per result: its tabs' contents, for the tabs filled from now on."""
        message.stop()
        if message.generation == self._generation:  # (not another result shown since)
            self._prepared = message.contents

    @work(thread=True, group="explain", exit_on_error=False, description="explain")
    def _explain(self, result: RunResult, baseline: str) -> None:
        try:
            explanation = explain(result, baseline, self.explanations.resampled)
        except Exception as exc:  # noqa: BLE001 - the tabs show none and the app says why
            explanation = Explanation(result, baseline, {}, [], error=f"{type(exc).__name__}: {exc}")
        self.post_message(self.Explained(explanation))

    def on_results_panel_explained(self, message: Explained) -> None:
        """An explanation made: to the tabs, which show it if it is of their result and baseline."""
        message.stop()
        explanation = message.explanation
        if not self.explanations.add(explanation):
            return  # of a result no longer shown
        if explanation.error:
            self.post_message(TabFailed("stats", f"explaining against {explanation.baseline}: {explanation.error}"))
        self.stats_table.explained(explanation)
        self.breakdown.explained(explanation)

    def filled(self, tab: str) -> ResultsPanel:
        """This panel, with ``tab`` showing the last result (filled now if it was still due)."""
        fill = self._due.pop(tab, None)
        try:
            if fill is not None:
                fill()
        except Exception as exc:  # noqa: BLE001 - the app stays up and says which tab
            self.post_message(TabFailed(tab, f"{type(exc).__name__}: {exc}"))
        return self

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id:  # a tab clicked, not keyed (show_tab has filled it already)
            self.filled(event.pane.id)

    def _baseline_chosen(self) -> None:
        """The Breakdown follows the Statistics tab's baseline (a reactive) when it is shown: a hidden
        tab's new text lays the screen out."""
        breakdown = self.breakdown
        if "breakdown" not in self._due:  # (a result's own fill, still due, reads the baseline then)
            self._due["breakdown"] = lambda: breakdown.show(breakdown.result, self.stats.baseline)
        if self.active_tab == "breakdown":
            self.filled("breakdown")

    def show_plan(self, header: str, order: list[str]) -> None:
        self.progress.show_plan(header, order)

    def show_result(
        self,
        result: RunResult | None,
        state: str = "done",
        fraction: float | None = None,
        error: Any = None,
        view: ResultView | None = None,
        contents: TabContents | None = None,
    ) -> None:
        """``view`` and ``contents``: the result's view and its tabs' text, made already (in a thread)."""
        if view is None or (not view.order and self.order):  # a view made elsewhere had no order to keep
            view = view_of(result, self.order)
        self.order = view.order
        if contents is not None and contents.result is view.shown:
            self._prepared = contents
        self.show(view, state=state, fraction=fraction, error=error)

    # -- a run streaming --------------------------------------------------------------------------------
    def begin_run(self, state: RunState, sweep: bool = False, to_sweep: bool = False) -> None:
        """No stale figures while a run measures: its progress, a histogram waiting for samples, and for a
        sweep (``sweep``) a plot saying when it comes, shown at once with ``to_sweep``: its plot is where
        a sweep ends, so that the end fills it in place (a tab switch at the end was the slowest frame a
        run's end drew)."""
        with state.lock:
            self.order = list(state.variants)
        self.stats_table.begin(self.order)
        self.show(ResultView(None, order=self.order), state="running")
        if sweep:
            order, waiting = self.order, SWEEP_WAITING
            self._due["sweep"] = lambda: self.sweep_plot.show(None, order, waiting=waiting)
        self.show_streamed_samples({}, "(waiting for samples)")
        self.progress.show_progress(state, self.order)
        if sweep and to_sweep:
            self.show_tab("sweep")

    def show_progress(self, state: RunState, samples: dict[str, list[float]] | None = None) -> None:
        """The run's progress; with ``samples``, the streamed histogram too."""
        with state.lock:
            if state.variants and state.variants != self.order:
                self.order = list(state.variants)
            sweep_value = state.sweep_value
        self.progress.show_progress(state, self.order)
        if samples is not None:
            self.show_streamed_samples(
                samples, "(live)" if sweep_value is None else f"(live, sweep value {sweep_value})"
            )

    def show_streamed_samples(self, series: dict[str, Any], note: str) -> None:
        self._due.pop("histogram", None)  # superseded
        self.histogram_plot.set_series(series, order=self.order, note=note)

    def set_error(self, error: tuple[str, str] | None) -> None:
        self._set_warnings(self._warnings[0], error)
        if self.active_tab == "warnings":
            self.filled("warnings")

    def _set_warnings(self, items: list[tuple[str, str]], error: tuple[str, str] | None) -> None:
        """The Warnings tab: its label now, its list when it is shown."""
        self._warnings = (items, error)
        self._due["warnings"] = lambda: self.warnings_view.show(*self._warnings)
        label = warnings_label(warnings_count(items, error))
        if label == self._warnings_label:
            return
        tab = self.tabbed.get_tab("warnings")
        if len(label) == len(self._warnings_label):
            # the same width: redraw the tab alone (Static.update, not Tab's, which relabels the Tabs
            # and lays the whole screen out, at each run's start and end and at each sweep point)
            Static.update(tab, Content(label), layout=False)
        else:
            tab.label = label
        self._warnings_label = label

    @property
    def warnings_label(self) -> str:
        """The Warnings tab's label as shown."""
        return self._warnings_label

    @property
    def histogram(self) -> LatencyHistogram:
        return self.filled("histogram").histogram_plot

    @property
    def stats(self) -> StatsTable:
        return self.filled("stats").stats_table

    @property
    def active_tab(self) -> str:
        return str(self.tabbed.active)

    def show_tab(self, tab: str) -> bool:
        if tab not in TAB_IDS:
            tab = {label.lower(): tid for tid, label in RESULT_TABS}.get(tab.lower(), tab)
        if tab not in TAB_IDS:
            return False
        self.filled(tab).tabbed.active = tab
        return True

    def step_tab(self, step: int) -> None:
        current = self.active_tab
        index = TAB_IDS.index(current) if current in TAB_IDS else 0
        self.show_tab(TAB_IDS[(index + step) % len(TAB_IDS)])

    # -- the result commands (l, b, v) ------------------------------------------------------------------
    def toggle_log(self) -> None:
        histogram = self.histogram
        histogram.set_log(not histogram.effective_log)
        self.notify(f"Histogram time axis: {'log' if histogram.log_x else 'linear'} scale", timeout=2)

    def toggle_sweep_quantity(self) -> bool:
        """The sweep plots program memory instead of time, or back; False when it has no memory to plot."""
        quantity = self.filled("sweep").sweep_plot.toggle_quantity()
        if quantity is None:
            self.notify("No program memory in this sweep: nothing else to plot", timeout=3)
            return False
        words = {"memory": "program memory", "ratio": "ratio to the baseline", "compile": "compile time"}
        shown = words.get(quantity, "median time per call")
        self.notify(f"Sweep {'grid' if quantity == 'ratio' else 'plot'}: {shown}", timeout=2)
        return True

    def next_baseline(self) -> bool:
        """The next measured variant becomes the ratios' baseline, shown on Statistics; False when none."""
        stats = self.stats
        following = stats.next_baseline()
        if following is None:
            return False
        self.show_tab("stats")  # its baseline field says which (a toast laid the screen out twice more)
        stats.baseline = following  # then: the Breakdown, hidden now, follows when shown
        return True

    def choose_plotted(self) -> None:
        """Ask which variants the histogram draws."""
        from tuiperf.tui.screens.variants import VariantPickerScreen

        histogram = self.histogram
        names = [n for n in histogram.order if histogram.series.get(n)]
        if not names:
            self.notify("Nothing to draw yet: run first.", severity="warning")
            return

        def chosen(picked: list[str] | None) -> None:
            if picked is not None:
                histogram.choose(picked or None)
                self.show_tab("histogram")

        self.app.push_screen(VariantPickerScreen(names, histogram.drawn()), chosen)
