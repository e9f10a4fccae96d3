"""The results side: the run's progress line and the six result tabs."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import TabbedContent, TabPane

from tuiperf.tui.commands import RESULT_TABS
from tuiperf.tui.live import LiveState
from tuiperf.tui.view import ResultView
from tuiperf.tui.widgets.breakdown import OverheadBreakdown
from tuiperf.tui.widgets.histogram import LatencyHistogram
from tuiperf.tui.widgets.profile_table import ProfileTable
from tuiperf.tui.widgets.run_progress import RunProgress
from tuiperf.tui.widgets.stats_table import StatsTable
from tuiperf.tui.widgets.sweep_plot import SweepPlot
from tuiperf.tui.widgets.warnings_panel import WarningsPanel

TAB_IDS = [tab for tab, _ in RESULT_TABS]


class ResultsPanel(Vertical):
    def __init__(self, error: tuple[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._error_before_mount = error  # reported while the panel was not there yet

    def compose(self) -> ComposeResult:
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

    def on_mount(self) -> None:
        self.show(ResultView(None), error=self._error_before_mount)

    def show(
        self, view: ResultView, state: str = "done", fraction: float | None = None, error: tuple[str, str] | None = None
    ) -> None:
        """Every panel from one view (a failed run keeps showing the previous result)."""
        self.query_one(LatencyHistogram).set_series(
            view.series, view.medians, order=view.order, note=view.note, marks=view.marks
        )
        self.query_one(StatsTable).show(view.shown)
        self.query_one(OverheadBreakdown).show(view.shown, self.query_one(StatsTable).baseline)
        self.query_one(SweepPlot).show(view.sweep, view.order)
        self.query_one(ProfileTable).show(view.shown)
        self.query_one(WarningsPanel).show(view.warnings, error)
        if state != "running":
            self.query_one(RunProgress).show_result(view.shown, state=state, fraction=fraction, header=view.header)
        self.update_tab_labels()

    def on_stats_table_baseline_changed(self, message: StatsTable.BaselineChanged) -> None:
        breakdown = self.query_one(OverheadBreakdown)
        breakdown.show(breakdown.result, message.baseline)

    def show_live(self, live: LiveState, order: list[str]) -> None:
        self.query_one(RunProgress).show_live(live, order)

    def show_live_samples(self, series: dict[str, Any], order: list[str], note: str) -> None:
        self.query_one(LatencyHistogram).set_series(series, order=order, note=note)

    def set_error(self, error: tuple[str, str] | None) -> None:
        self.query_one(WarningsPanel).set_error(error)
        self.update_tab_labels()

    def update_tab_labels(self) -> None:
        count = self.query_one(WarningsPanel).count
        self.query_one("#tabs", TabbedContent).get_tab("warnings").label = (
            f"Warnings ({count})" if count else "Warnings"
        )

    @property
    def histogram(self) -> LatencyHistogram:
        return self.query_one("#histogram-plot", LatencyHistogram)

    @property
    def stats(self) -> StatsTable:
        return self.query_one("#stats-view", StatsTable)

    @property
    def active_tab(self) -> str:
        return str(self.query_one("#tabs", TabbedContent).active)

    def show_tab(self, tab: str) -> bool:
        if tab not in TAB_IDS:
            tab = {label.lower(): tid for tid, label in RESULT_TABS}.get(tab.lower(), tab)
        if tab not in TAB_IDS:
            return False
        self.query_one("#tabs", TabbedContent).active = tab
        return True

    def step_tab(self, step: int) -> None:
        current = self.active_tab
        index = TAB_IDS.index(current) if current in TAB_IDS else 0
        self.show_tab(TAB_IDS[(index + step) % len(TAB_IDS)])
