"""A stored run opened with h: the header says which run it is, and every key acts on the shown result
(not on the list's selection); errors of commands are notifications, not a run failure in Warnings."""

from __future__ import annotations

import factories
import pytest
from tui_helpers import FakeRunner, ready, record_notifications, run_to_end, sync, wait_until
from tui_helpers import open_stored as helpers_open_stored

from tuiperf.results.export import markdown
from tuiperf.results.history import History
from tuiperf.tui.app import TuiperfApp

OTHER = "other-scn"  # a scenario the list does not select: keys must act on it when its run is shown


def stored_other(path):
    """A run of ``OTHER`` in the history at ``path`` (variants named like tiny-sin's); its id."""
    result = factories.result(
        {"jit": factories.steady(1000.0), "aot": factories.steady(2000.0)}, scenario=OTHER, params={"width": 64}
    )
    result.started_at = "2026-03-03T09:15:00+00:00"
    with History(path) as history:
        return history.add(result)


def make(saved, scenario_dirs, tmp_path, **kwargs):
    path = tmp_path / "history.sqlite"
    run_id = stored_other(path)
    app = TuiperfApp(
        FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path / "shots", history_path=path, **kwargs
    )
    return app, run_id


async def open_stored(pilot, run_id):
    """The stored run of the other scenario, opened from the history screen."""

    def shown(main):
        return main.result is not None and main.result.scenario.id == OTHER

    return await helpers_open_stored(pilot, run_id, shown=shown)


@sync
async def test_a_stored_run_is_labelled_with_its_id_and_date(saved, scenario_dirs, tmp_path):
    app, run_id = make(saved, scenario_dirs, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        main = await open_stored(pilot, run_id)
        status, when = (str(main.query_one(f"#progress-{part}").content) for part in ("status", "eta"))
        assert (status, when) == (f"▤ stored run {run_id}", "2026-03-03 09:15 UTC")
        assert "other-scn · cpu:0 · sync dispatch · width=64" in str(main.query_one("#run-header").content)


@sync
async def test_h_lists_the_shown_runs_scenario_not_the_selection(saved, scenario_dirs, tmp_path):
    app, run_id = make(saved, scenario_dirs, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        await open_stored(pilot, run_id)
        assert main.setup.scenario.id == "tiny-sin"  # the list still selects another scenario
        await pilot.press("escape", "escape", "h")
        assert app.screen.scenario == OTHER


@sync
async def test_t_traces_a_variant_of_the_shown_scenario_with_its_values(saved, scenario_dirs, tmp_path, monkeypatch):
    import tuiperf.tui.screens.main_commands as main_commands

    traced = []
    monkeypatch.setattr(main_commands, "start_trace", lambda _, request, names, *a: traced.append((request, names)))
    app, run_id = make(saved, scenario_dirs, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_stored(pilot, run_id)
        await pilot.press("escape", "t")
        [(request, variants)] = traced
        assert (request.scenario, request.params, variants) == (OTHER, {"width": 64}, ["jit", "aot"])


@sync
async def test_b_compares_runs_of_different_scenarios_after_asking_with_no_cli_flag(saved, scenario_dirs, tmp_path):
    app, run_id = make(saved, scenario_dirs, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        await run_to_end(pilot)  # a tiny-sin run, stored
        await wait_until(pilot, lambda: main.history.last_stored is not None, what="the run stored")
        tiny_id = main.history.last_stored
        await open_stored(pilot, run_id)  # shows other-scn
        await pilot.press("escape", "h")
        screen = app.screen
        screen.query_one("#history-filter").value = "tiny-sin"
        await wait_until(pilot, lambda: [r.id for r in screen.runs] == [tiny_id], what="tiny-sin's run listed")
        screen.query_one("#history-table").focus()
        await pilot.press("b")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", what="the question")
        assert "--force" not in str(app.screen.question) and "different scenarios" in str(app.screen.question)
        await pilot.press("y")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ComparisonScreen", what="the comparison")
        assert app.last_error is None


@sync
async def test_x_exports_the_shown_stored_run(saved, scenario_dirs, tmp_path):
    app, run_id = make(saved, scenario_dirs, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_stored(pilot, run_id)
        await pilot.press("escape", "x")
        target = tmp_path / "stored.md"
        app.screen.query_one("#export-path").value = str(target)
        await pilot.press("enter")
        await wait_until(pilot, target.exists, what="the export")
        assert f"`{OTHER}`" in target.read_text() or OTHER in target.read_text()


@sync
async def test_c_copies_the_shown_results_markdown_with_osc_52_and_says_how_much(saved, scenario_dirs, tmp_path):
    app, run_id = make(saved, scenario_dirs, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        await open_stored(pilot, run_id)
        told = record_notifications(app)
        await pilot.press("escape", "c")
        expected = markdown(main.result)
        assert app.clipboard == expected
        [note] = [n for n in told if n.startswith("Copied")]
        assert f"{len(expected):,} characters" in note and "OSC 52" in note and "set-clipboard on" in note


@sync
async def test_c_with_nothing_shown_says_so(saved, scenario_dirs, tmp_path):
    app, _ = make(saved, scenario_dirs, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        told = record_notifications(app)
        await pilot.press("escape", "c")
        assert app.clipboard == "" and any("Nothing to copy" in n for n in told)


@pytest.mark.parametrize("command", ["revert_builtin", "compare_nothing_in_common"])
@sync
async def test_a_command_that_fails_is_a_notification_not_a_failed_run_in_warnings(
    saved, scenario_dirs, tmp_path, command
):
    app, _ = make(saved, scenario_dirs, tmp_path)
    with History(app.history_path) as history:  # a tiny-sin run with no variant in common with the fixture's
        unrelated = history.add(factories.result({"zzz": factories.steady(5.0)}, scenario="tiny-sin"))
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        await run_to_end(pilot)
        label = main.results_panel.warnings_label
        told = record_notifications(app)
        if command == "revert_builtin":
            await pilot.press("escape")
            main.action_revert_builtin()  # the palette's "Revert to built-in"
            expected = "Nothing to revert"
        else:
            await pilot.press("escape", "h")
            screen = app.screen
            await wait_until(pilot, lambda: any(r.id == unrelated for r in screen.runs), what="the listing")
            table = screen.query_one("#history-table")
            table.move_cursor(row=[r.id for r in screen.runs].index(unrelated))
            await pilot.press("b")
            expected = "Cannot compare"
        await wait_until(pilot, lambda: any(n.startswith(expected) for n in told), what=expected)
        assert app.last_error is None and main.results_panel.warnings_label == label
        main.action_show_tab("warnings")
        await pilot.pause()
        assert "last run failed" not in str(main.query_one("#warnings-body").content)


@sync
async def test_enter_in_the_history_filter_goes_to_the_list(saved, scenario_dirs, tmp_path):
    app, run_id = make(saved, scenario_dirs, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("escape", "h", "slash", "ctrl+u")
        screen = app.screen
        await wait_until(pilot, lambda: any(r.id == run_id for r in screen.runs), what="every scenario's runs")
        await pilot.press("enter")
        assert app.focused is screen.query_one("#history-table")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.main.result is not None, what="the run opened")


@sync
async def test_a_stored_runs_view_and_statistics_are_made_in_the_loading_thread(
    saved, scenario_dirs, tmp_path, monkeypatch
):
    """GIVEN a run picked in the history WHEN it opens (on Statistics) THEN its view and its tabs' text
    were made in the thread that loaded it: on the UI thread they took ~0.2 s from enter to screen
    (`ui_responsiveness.py --only lag`, 'a stored run opened')."""
    import threading

    from tuiperf.tui import tab_contents, view
    from tuiperf.tui.widgets import results_panel, stats_table

    on_ui: list[str] = []

    def watched(module, name, original):  # type: ignore[no-untyped-def]
        def record(*args, **kwargs):  # type: ignore[no-untyped-def]
            if threading.current_thread() is threading.main_thread():
                on_ui.append(name)
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, record)

    watched(view, "view_of", view.view_of)  # the loading thread imports it from tuiperf.tui.view
    watched(results_panel, "view_of", view.view_of)
    made = stats_table.stats_content
    watched(stats_table, "stats_content", made)
    watched(tab_contents, "stats_content", made)
    app, run_id = make(saved, scenario_dirs, tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        await ready(pilot)
        on_ui.clear()
        main = await open_stored(pilot, run_id)
        assert main.results_panel.active_tab == "stats"
        assert main.results_panel.stats.query_one("#stats-table").keys == ["jit", "aot"]
        assert on_ui == []
