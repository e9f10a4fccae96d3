"""The main screen's state is in reactives: a handler sets a value and the widgets follow.

- ``MainScreen.shown`` (:class:`~tuiperf.tui.shown.Shown`): setting it fills every result panel, once;
- ``MainScreen.run_phase``: the run options' buttons follow it (``data_bind``), cancelling included;
- ``StatsTable.baseline``: the select, the table and (when shown) the Breakdown follow it.
"""

from __future__ import annotations

import threading

import msgspec
from tui_helpers import FakeRunner, ready, sync, wait_until

from tuiperf.tui.app import TuiperfApp
from tuiperf.tui.shown import Shown
from tuiperf.tui.widgets.results_panel import TAB_IDS


@sync
async def test_setting_the_shown_result_fills_every_tab_once(saved, scenario_dirs, tmp_path):
    """GIVEN the panels WHEN ``shown`` is set THEN the panels are filled once (one watcher call), every
    tab shows that result when it is shown, and ``result`` reads it back; the same result shown again
    (a new Shown, say a failed run keeping it) redraws it."""
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        main = await ready(pilot)
        panel = main.results_panel
        calls = []
        original = panel.show_result
        panel.show_result = lambda *args, **kwargs: (calls.append(args[0]), original(*args, **kwargs))
        result = saved["result"]
        main.shown = Shown(result)
        assert calls == [result] and main.result is result
        await pilot.pause()
        for tab in TAB_IDS:
            panel.show_tab(tab)
            await pilot.pause()
        assert panel.stats_table.result is result
        assert panel.breakdown.result is result
        assert set(panel.histogram_plot.series) == {v.name for v in result.measured}
        assert "done" in str(panel.progress.blocks["progress-status"].content)
        main.shown = Shown(result, state="failed")
        assert calls == [result, result] and main.result is result
        assert "failed" in str(panel.progress.blocks["progress-status"].content).lower()


@sync
async def test_the_run_buttons_follow_the_run_phase_through_a_cancel(saved, scenario_dirs, tmp_path):
    """GIVEN a run measuring THEN the phase is "running" and Cancel is enabled; WHEN it is cancelled
    THEN the phase is "cancelling" and Cancel is disabled at once (the run has not ended yet); WHEN
    it ends THEN "idle", Cancel disabled and Run enabled."""
    runner = FakeRunner(saved)
    gate = threading.Event()
    runner.gates = [gate]
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        main = await ready(pilot)
        options = main.setup.options
        assert main.run_phase == "idle" and options.cancel_button.disabled
        assert main.start_run()
        assert main.run_phase == "running" == options.run_phase
        assert not options.cancel_button.disabled and not options.run_button.disabled
        main.action_cancel()
        assert main.run_phase == "cancelling" == options.run_phase
        assert options.cancel_button.disabled and main.running  # still measuring: the thread ends it
        gate.set()
        await main.runs.wait_for_end(30)
        await wait_until(pilot, lambda: main.run_phase == "idle", what="the run's end handled")
        assert options.cancel_button.disabled and not options.run_button.disabled


@sync
async def test_the_statistics_and_the_breakdown_follow_the_baseline(saved, scenario_dirs, tmp_path):
    """GIVEN a result on Statistics WHEN its ``baseline`` is set (as the select and ``b`` do) THEN the
    select and the table show it at once, and the hidden Breakdown is drawn against it once shown; a new
    result of the same variants keeps it."""
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        main = await ready(pilot)
        result = saved["result"]
        main.shown = Shown(result)
        main.action_show_tab("stats")
        await pilot.pause()
        panel = main.results_panel
        stats = panel.stats_table
        assert stats.baseline == "jit" and stats.select.value == "jit"
        stats.baseline = "aot"
        assert stats.select.value == "aot" and str(stats.grid.get_cell("aot", "× baseline")) == "1.000× (baseline)"
        assert panel.breakdown.baseline != "aot"  # hidden: drawn when shown
        main.action_show_tab("breakdown")
        await pilot.pause()
        assert panel.breakdown.baseline == "aot"
        main.shown = Shown(msgspec.structs.replace(result))  # the same variants: the user's baseline stays
        main.action_show_tab("stats")
        await pilot.pause()
        assert stats.baseline == "aot" and stats.select.value == "aot"
