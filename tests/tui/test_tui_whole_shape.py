"""The app shows a result's whole shape: the Statistics tab starts each run blank, the comparison
dialog puts the older run first whichever of the two is on screen."""

from __future__ import annotations

import factories
import msgspec
from textual.app import App
from textual.widgets import Select
from tui_helpers import sync

from tuiperf.results.compare import compare_runs
from tuiperf.tui.explanations import Explanations
from tuiperf.tui.widgets.stats_table import StatsTable
from tuiperf.tui.widgets.text_grid import TextGrid


class OneTable(App):
    def compose(self):
        yield StatsTable(Explanations(lambda result, baseline: None))  # (this test reads no explanation)


@sync
async def test_a_run_of_other_variants_starts_with_no_baseline_and_no_empty_header():
    app = OneTable()
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(StatsTable)
        first = factories.result({"old-a": factories.steady(1000.0), "old-b": factories.steady(2000.0)})
        table.show(first)
        table.baseline = "old-b"
        await pilot.pause()
        table.begin(["new-x", "new-y"])  # another scenario's run starts
        table.show(None)  # the tab shows the running state
        await pilot.pause()
        assert table.baseline is None and app.query_one("#baseline", Select).is_blank()
        assert not app.query_one(TextGrid).display
        table.show(factories.result({"new-x": factories.steady(10.0), "new-y": factories.steady(20.0)}))
        await pilot.pause()
        assert table.baseline == "new-x" and app.query_one(TextGrid).display
        table.begin(["new-x", "new-y"])  # the same variants again: the user's baseline stays
        assert app.query_one("#baseline", Select).value == "new-x"


def test_the_comparison_reads_newer_over_older_whichever_is_shown():
    from tuiperf.tui.run_history import RunHistory

    older = msgspec.structs.replace(
        factories.result({"jit": factories.steady(1000.0)}), started_at="2026-11-01T10:00:00+00:00"
    )
    newer = msgspec.structs.replace(
        factories.result({"jit": factories.steady(1500.0)}), started_at="2026-11-02T10:00:00+00:00"
    )
    pushed = []

    class Screen:
        class app:  # stands in for the screen's app
            push_screen = staticmethod(lambda screen, *rest: pushed.append(screen))

    history = RunHistory(Screen(), None, lambda *args: pushed.append(args))
    history._compare(7, newer, older)  # the older run is on screen, the newer one stored
    [dialog] = pushed
    assert (dialog.old_label, dialog.new_label) == ("the shown result (2026-11-01 10:00)", "run 7 (2026-11-02 10:00)")
    [row] = dialog.comparison.rows
    assert row.ratio == compare_runs(older, newer).rows[0].ratio > 1.4
