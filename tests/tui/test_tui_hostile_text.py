"""Text from a result, a history row or a run's events reaches the terminal inert: a stored run whose
every text holds OSC 52 (clipboard), OSC 0 (title), CSI and bidi controls, opened with h then enter and
shown on every tab, in the header, the progress rows and every dialog it opens, draws no raw control
character; nor do the progress rows of a run whose variants are named so."""

from __future__ import annotations

import copy

import factories
import msgspec
from drawn import held, on_screen
from test_hostile_outputs import rich_result
from tui_helpers import FakeRunner, open_stored, ready, sync, wait_until

from tuiperf.results import document
from tuiperf.results.history import History
from tuiperf.results.model import Failure
from tuiperf.tui.app import TuiperfApp
from tuiperf.tui.commands import RESULT_TABS


def hostile_history(path):
    """A history holding a hostile run and a hostile sweep of it; their ids."""
    run = factories.hostile(rich_result())
    run.started_at = "2026-03-03T09:15\x1b]0;owned\x07:00+00:00"
    points = [factories.hostile(rich_result()) for _ in range(2)]
    for n, point in enumerate(points):
        point.params = {"size\x1b]0;p\x07": n + 1}
    sweep = document.sweep_result("size\x1b]0;p\x07", [1, 2], points, points[0], duration_s=2.0)
    sweep.started_at = run.started_at
    with History(path) as history:
        return history.add(run), history.add(sweep)


def rows_inert(app) -> None:
    assert on_screen(app) == {}  # the history rows


async def every_tab_drawn_inert(pilot) -> None:
    app, main = pilot.app, pilot.app.main
    for tab, _ in RESULT_TABS:
        main.action_show_tab(tab)
        await pilot.pause()
        await app.plots_settled()
        assert on_screen(app) == {}, tab
    assert held(main) == {}


@sync
async def test_a_hostile_stored_run_draws_no_control_character_on_any_tab_or_dialog(saved, scenario_dirs, tmp_path):
    path = tmp_path / "history.sqlite"
    run_id, sweep_id = hostile_history(path)
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path / "s", history_path=path)
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(pilot)
        main = await open_stored(pilot, sweep_id, on_rows=rows_inert)
        await every_tab_drawn_inert(pilot)
        main = await open_stored(pilot, run_id, on_rows=rows_inert)
        await every_tab_drawn_inert(pilot)

        await pilot.press("v")  # the variants the histogram draws
        await wait_until(pilot, lambda: app.screen is not main, what="the variant picker")
        assert on_screen(app) == {} and held(app.screen) == {}
        await pilot.press("escape")

        await pilot.press("h")  # compare the shown run with the stored sweep (another scenario? no: the same)
        screen = app.screen
        screen.query_one("#history-filter").value = ""
        await wait_until(pilot, lambda: any(r.id == run_id for r in screen.runs), what="the runs")
        screen.query_one("#history-table").focus()
        screen.query_one("#history-table").move_cursor(row=[r.id for r in screen.runs].index(run_id))
        await pilot.press("p")  # the medians over runs
        await wait_until(pilot, lambda: type(app.screen).__name__ == "TrendScreen", what="the trend plot")
        await pilot.pause()
        assert on_screen(app) == {} and held(app.screen) == {}
        await pilot.press("escape")
        await pilot.press("b")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ComparisonScreen", what="the comparison")
        assert on_screen(app) == {} and held(app.screen) == {}
        await pilot.press("escape")

        await pilot.press("x")  # the export dialog proposes a file named after the scenario
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ExportScreen", what="the export dialog")
        assert on_screen(app) == {} and held(app.screen) == {}
        await pilot.press("escape")


@sync
async def test_the_progress_rows_of_a_run_draw_its_variant_names_inert(saved, scenario_dirs, tmp_path):
    import threading

    saved = copy.deepcopy(saved)
    saved["result"].variants = [
        msgspec.structs.replace(
            variant, name=variant.name + "\x1b]52;c;Y3VybA==\x07\x9b2J", failure=Failure(error="boom\x1b]0;owned\x07")
        )
        for variant in saved["result"].variants
    ]
    runner = FakeRunner(saved)
    gate = threading.Event()
    runner.gates.append(gate)
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path / "s")
    async with app.run_test(size=(160, 50)) as pilot:
        main = await ready(pilot)
        await pilot.press("r")
        await wait_until(pilot, lambda: main.runs.state is not None and main.runs.state.finished_variants, what="rows")
        await pilot.pause(0.3)  # the progress redraw timer's tick
        assert on_screen(app) == {} and held(main) == {}
        gate.set()
        await main.runs.wait_for_end(30)
        await pilot.pause()
        assert on_screen(app) == {} and held(main) == {}
