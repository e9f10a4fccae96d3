"""Runs kept in the history from the app: browse, open as measured, compare with now, export."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import factories
from tui_helpers import FakeRunner, ready, record_notifications, run_to_end, sync, wait_until

from tuiperf.results.history import History
from tuiperf.tui.app import TuiperfApp
from tuiperf.tui.output_folders import path_lines


def stored_runs(path):
    with History(path, readonly=True) as history:  # (a poll: reads only, a missing file as empty)
        return history.list()


@sync
async def test_a_run_is_stored_opened_and_compared_with_the_next(saved, scenario_dirs, tmp_path):
    path = tmp_path / "history.sqlite"
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path, history_path=path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        first = (await run_to_end(pilot)).result
        await wait_until(pilot, lambda: len(stored_runs(path)) == 1, what="the run stored")
        [row] = stored_runs(path)
        assert row.scenario == "tiny-sin" and row.medians["jit"] == first.variant("jit").sampling.stats.median_ns
        main.show_result(None)
        await pilot.press("escape", "h")
        assert type(app.screen).__name__ == "HistoryScreen"
        await wait_until(pilot, lambda: app.screen.runs, what="the listing")
        await pilot.press("enter")
        await wait_until(pilot, lambda: main.result is not None, what="the stored run shown")
        assert main.result.variant("jit").sampling.samples_ns == first.variant("jit").sampling.samples_ns
        await run_to_end(pilot)
        await pilot.press("escape", "h")
        await wait_until(pilot, lambda: getattr(app.screen, "runs", None), what="the listing")
        await pilot.press("b")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ComparisonScreen", what="the comparison")
        table = app.screen.query_one("#comparison-table")
        assert str(table.get_cell("jit", "new / old")) == "1.000×" and str(table.get_cell("jit", "verdict")) == "same"
        await pilot.press("escape", "escape", "h")
        await wait_until(pilot, lambda: len(getattr(app.screen, "runs", [])) == 2, what="two stored runs")
        await pilot.press("p")
        assert type(app.screen).__name__ == "TrendScreen"
        assert app.screen.sweep.values == [f"#{r.id} jax {r.jax_version}" for r in reversed(stored_runs(path))]


@sync
async def test_x_exports_the_shown_result_as_markdown_without_overwriting(saved, scenario_dirs, tmp_path):
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await run_to_end(pilot)
        target = tmp_path / "report.md"
        told = record_notifications(app)
        for answer in ("", "n", "y"):  # the second and third time, the file exists: the app asks
            await pilot.press("escape", "x")
            assert type(app.screen).__name__ == "ExportScreen"
            app.screen.query_one("#export-path").value = str(target)
            await pilot.press("enter")
            await pilot.pause()
            if answer:
                assert type(app.screen).__name__ == "ConfirmScreen" and "exists already" in app.screen.question
                target.write_text("mine")
                await pilot.press(answer)
                await pilot.pause()
                assert (target.read_text() == "mine") == (answer == "n")
        assert "| `jit` |" in target.read_text() and app.last_error is None
        assert told == [f"Exported: Wrote\n{path_lines(target, 56)}"] * 2  # a toast 60 columns at 100


@sync
async def test_t_traces_the_first_chosen_variant_in_a_subprocess(saved, scenario_dirs, tmp_path):
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path / "shots")
    async with app.run_test(size=(100, 30)) as pilot:
        main = await ready(pilot)
        main.setup.options.query_one("#variants").deselect("jit")
        notifications = record_notifications(app)
        await pilot.press("escape", "t")

        def written():
            return [n.removeprefix("Trace written: ") for n in notifications if n.startswith("Trace written: ")]

        ended = lambda: written() or any("failed" in n for n in notifications)  # noqa: E731
        await wait_until(pilot, ended, timeout=120, what="the trace")
        assert written(), notifications
        path = "".join(written()[0].split("\nopen it at")[0].splitlines())  # broken after a "/" to fit the toast
        assert "/traces/" in path and path.endswith(".gz") and (tmp_path / "traces").is_dir()
        assert any(p.stat().st_size > 0 for p in (tmp_path / "traces").rglob("*.gz"))


@sync
async def test_a_run_the_history_cannot_store_is_said_with_why_and_kept(saved, scenario_dirs, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    path = blocker / "history.sqlite"  # its folder cannot be made: OSError, not a tuiperf error
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path, history_path=path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await run_to_end(pilot)

        def told():
            return [n.message for n in app._notifications if n.title == "This run was not stored"]

        await wait_until(pilot, told, what="the notice")
        assert "File exists" in told()[0] and "a copy is kept in" in told()[0]
        assert list((tmp_path / "data" / "tuiperf" / "unsaved").glob("*.json"))


def history_holding(tmp_path, *results) -> tuple[Path, list[int]]:
    """A history with these results stored, oldest first; their run ids."""
    path = tmp_path / "history.sqlite"
    with History(path) as history:
        return path, [history.add(result) for result in results]


async def history_listed(pilot, listed: Callable[[list], object] = bool):
    """The history screen (`h`) once its runs satisfy ``listed``."""
    await ready(pilot)
    await pilot.press("escape", "h")
    screen = pilot.app.screen
    await wait_until(pilot, lambda: listed(getattr(screen, "runs", [])), what="the listing")
    return screen


@sync
async def test_the_history_lists_runs_whose_texts_are_markup(saved, scenario_dirs, tmp_path):
    marked = factories.result({"[/]": factories.steady(1000.0)}, scenario="tiny-sin", params={"c": "[/]"})
    marked.started_at = "[link=file:///etc/passwd]x\x1b]0;t\x07"
    path, _ = history_holding(tmp_path, marked)
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path, history_path=path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await history_listed(pilot)
        await pilot.pause()
        table = screen.query_one("DataTable")
        assert str(table.get_row_at(0)[4]) == "c=[/]" and app.is_running


@sync
async def test_the_history_lists_a_sweep_as_one_with_each_points_medians(saved, scenario_dirs, tmp_path):
    """GIVEN a stored sweep WHEN `h` lists it THEN its row says what it swept over how many points, and
    each point's medians (the row said only its fixed parameters, and no median: a sweep has none of
    its own, only its points')."""
    sweep = factories.sweep(
        {"a": [1000.0, 2000.0], "b": [3000.0, 4000.0]}, parameter="width", values=(32, 512), scenario="tiny-sin"
    )
    path, _ = history_holding(tmp_path, sweep)
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path, history_path=path)
    async with app.run_test(size=(200, 40)) as pilot:
        screen = await history_listed(pilot)
        row = [str(cell) for cell in screen.query_one("DataTable").get_row_at(0)]
        assert row[3] == "width=32: a 1.00 µs, b 3.00 µs; width=512: a 2.00 µs, b 4.00 µs"
        assert row[4].startswith("sweep over width (2 points)")
        notes = record_notifications(app)
        await pilot.press("p")  # a sweep has no one median per variant to follow over runs
        await pilot.pause()
        assert type(app.screen).__name__ == "HistoryScreen"
        assert any("is a sweep over width (2 points): enter opens its plot" in note for note in notes), notes


@sync
async def test_the_selected_run_stays_selected_when_the_list_is_read_again(saved, scenario_dirs, tmp_path):
    """GIVEN the cursor on the second of three runs WHEN the list is read again (the filter typed, its
    read coming after a move) THEN the cursor is on the same run, not back on the first: `p` or
    enter act on the run the user chose (a reload landing after a move sent them to the newest)."""
    runs = [factories.result({"a": factories.steady(1000.0 * n)}, scenario="tiny-sin") for n in (1, 2, 3)]
    path, ids = history_holding(tmp_path, *runs)
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path, history_path=path)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await history_listed(pilot, lambda listed: len(listed) == 3)
        assert [run.id for run in screen.runs] == ids[::-1]  # newest first
        table = screen.query_one("DataTable")
        table.move_cursor(row=1)
        chosen = screen.runs[1].id
        screen.show(list(reversed(screen.runs)))  # a read that orders them otherwise
        await pilot.pause()
        assert screen.runs[table.cursor_row].id == chosen
        screen.show([run for run in screen.runs if run.id != chosen])  # gone from the list: the first row
        await pilot.pause()
        assert table.cursor_row == 0


@sync
async def test_the_filter_narrows_the_list_as_part_of_an_id_is_typed(saved, scenario_dirs, tmp_path):
    """GIVEN `h` WHEN part of an id is typed THEN the list narrows to its runs; WHEN a read for an
    earlier filter lands after THEN it is dropped (the list would show runs the filter does not name)."""
    path, _ = history_holding(
        tmp_path,
        *(factories.result({"a": factories.steady(1000.0)}, scenario=s) for s in ("dispatch-floor", "tiny-sin")),
    )
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path, history_path=path)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await history_listed(pilot, lambda listed: [r.scenario for r in listed] == ["tiny-sin"])
        earlier = screen.runs
        screen.query_one("#history-filter").value = ""
        await pilot.press("slash", *"disp")
        await wait_until(pilot, lambda: [r.scenario for r in screen.runs] == ["dispatch-floor"], what="narrowed")
        screen.show(earlier, read_for="tiny-sin")  # the first read, landing late
        await pilot.pause()
        assert [r.scenario for r in screen.runs] == ["dispatch-floor"]


@sync
async def test_c_plots_the_selected_runs_scenario_by_commit_with_the_step_marked(saved, scenario_dirs, tmp_path):
    """`history --by-commit` in the app: the runs of a scenario laid out per git commit, the commit where a
    variant stepped beyond the intervals marked on its label."""
    from tests.test_by_commit import series

    path = tmp_path / "history.sqlite"
    with History(path) as history:
        for _, result in series():
            history.add(result)
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path, history_path=path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("escape", "h")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "HistoryScreen", what="the history")
        app.screen.query_one("#history-filter").value = "s"  # (it opens on the selected scenario, tiny-sin)
        await wait_until(pilot, lambda: len(app.screen.runs) == 5, what="the listing")
        app.screen.query_one("DataTable").focus()
        await pilot.press("c")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "TrendScreen", what="the plot by commit")
        sweep = app.screen.sweep
        assert sweep.values == ["aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc ▲", "dddddddddd", "eeeeeeeeee"]
        assert sweep.medians_ns["a"][2] == 1200.0 and sweep.medians_ns["b"] == [500.0] * 5


@sync
async def test_a_compile_run_lists_its_compile_times_and_plots_them_over_runs_apart(saved, scenario_dirs, tmp_path):
    """GIVEN a run that measured calls and one measured with --measure compile WHEN `h` lists them THEN
    the compile run's compile times are in a column of their own (the call run's cell empty); `p` on it
    plots compile times over runs (the series of what it measured), `m` the medians per call, where the
    compile run's compile times are no point."""
    from tests.test_history_compile import pair

    calls, compile_run = pair(scenario="tiny-sin")
    path, (call_id, compile_id) = history_holding(tmp_path, calls, compile_run)
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path, history_path=path)
    async with app.run_test(size=(200, 40)) as pilot:
        screen = await history_listed(pilot, lambda listed: len(listed) == 2)
        table = screen.query_one("DataTable")
        assert [str(c.label) for c in table.columns.values()][3:5] == ["medians", "compile time"]
        rows = {run.id: [str(cell) for cell in table.get_row_at(i)] for i, run in enumerate(screen.runs)}
        assert rows[compile_id][4] == "scan 30.0 ms [29.4 ms–30.6 ms], unrolled 60.0 ms [58.8 ms–61.2 ms]"
        assert rows[call_id][4] == "" and rows[call_id][3] == "scan 1.00 µs, unrolled 1.20 µs"
        detail = screen.query_one("#history-detail")  # (the column is off screen in a narrow terminal)
        assert detail.display and str(detail.content).endswith("unrolled 60.0 ms [58.8 ms–61.2 ms]")
        await pilot.press("p")  # on the newest: the compile run
        await wait_until(pilot, lambda: type(app.screen).__name__ == "TrendScreen", what="the trend")
        plot = app.screen.query_one("SweepPlot")
        assert plot.lines.quantity == "compile"
        assert plot.lines.series() == {"scan": [None, 30e6], "unrolled": [None, 60e6]}
        await pilot.pause()
        caption = app.screen.query_one("#sweep-caption")  # the legend says compile times, not medians per call
        assert "unrolled  compile time  60.0 ms → 60.0 ms" in str(caption.render()), str(caption.render())
        await pilot.press("m")
        assert (
            plot.lines.quantity == "time"
            and plot.lines.series()["scan"][1] == compile_run.variant("scan").sampling.stats.median_ns
        )
        assert "medians per call over 2 stored runs" in str(app.screen.query_one(".box-title").content)
        await pilot.pause()
        assert "unrolled  slope —  1.20 µs → 1.19 µs" in str(caption.render())
