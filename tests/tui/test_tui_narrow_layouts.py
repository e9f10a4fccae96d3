"""What a run shows fits the screen: every variant's row in the run summary (or a "… N more" line),
the time line whole at 80 columns, and Statistics' status and n, Breakdown's outputs and the
comparison's verdict on screen without scrolling sideways where a narrower layout exists."""

from __future__ import annotations

import copy
import threading

import factories
import msgspec
from tui_helpers import FakeRunner, ready, run_to_end, sync, wait_until

from tuiperf.tui.app import TuiperfApp

TEN = [f"variant-number-{i}" for i in range(10)]  # as many as mlp-closure-vs-argument has


def ten_variants(saved):
    replay = copy.deepcopy(saved)
    replay["result"] = factories.result(
        {name: factories.steady(1000.0 * (i + 1), n=50) for i, name in enumerate(TEN)}, scenario="tiny-sin"
    )
    return replay


def line_text(widget, y: int) -> str:
    return "".join(segment.text for segment in widget.render_line(y))


def inside(widget, box) -> bool:
    """Every line of ``widget`` is within ``box``'s content, so none is cut off unsaid."""
    return widget.region.bottom <= box.content_region.bottom and widget.region.y >= box.content_region.y


@sync
async def test_all_ten_rows_of_the_summary_show_at_200x60(saved, scenario_dirs, tmp_path):
    app = TuiperfApp(FakeRunner(ten_variants(saved)), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(200, 60)) as pilot:
        await ready(pilot)
        await run_to_end(pilot)
        estimates, box = app.query_one("#estimates"), app.query_one("RunProgress")
        await wait_until(pilot, lambda: TEN[-1] in str(estimates.content), what="the summary")
        await pilot.pause()
        assert [line.split()[0] for line in str(estimates.content).splitlines()] == TEN
        assert estimates.size.height == 10 and inside(estimates, box)


@sync
async def test_the_summary_says_how_many_more_at_80x24(saved, scenario_dirs, tmp_path):
    app = TuiperfApp(FakeRunner(ten_variants(saved)), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        await run_to_end(pilot)
        main.action_show_tab("histogram")  # the results half of a narrow screen
        estimates, box = app.query_one("#estimates"), app.query_one("RunProgress")
        await wait_until(pilot, lambda: "more variants" in str(estimates.content), what="the summary")
        await pilot.pause()
        lines = str(estimates.content).splitlines()
        shown = len(lines) - 1
        assert lines[-1].startswith(f"… {10 - shown} more variants")
        assert [line.split()[0] for line in lines[:-1]] == TEN[:shown]
        assert inside(estimates, box)


@sync
async def test_elapsed_and_time_left_read_whole_at_80_columns(saved, scenario_dirs, tmp_path):
    runner = FakeRunner(saved)
    gate = threading.Event()
    runner.gates.append(gate)
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        await pilot.press("r")
        eta = app.query_one("#progress-eta")
        try:
            await wait_until(pilot, lambda: "left" in str(eta.content), what="the time line")
            main.action_show_tab("histogram")  # the results half of a narrow screen
            await wait_until(pilot, lambda: eta.region.area > 0, what="the results half")
            await pilot.pause()
            shown = line_text(eta, 0).strip()
            assert shown == str(eta.content) and "…" not in shown, shown
            assert app.query_one("#progress-bar Bar").size.width == 10  # room left for the phase
            assert "…" not in line_text(app.query_one("#progress-status"), 0)
        finally:
            gate.set()
        await main.runs.wait_for_end(30)


@sync
async def test_statistics_shows_status_and_n_at_80_columns_and_everything_at_200(saved, scenario_dirs, tmp_path):
    app = TuiperfApp(FakeRunner(ten_variants(saved)), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        await run_to_end(pilot)
        main.action_show_tab("stats")
        table = app.query_one("#stats-table")
        await wait_until(pilot, lambda: table.region.area and table.row_count == 10, what="the statistics")
        await pilot.pause()
        header = line_text(table, 0).split()
        assert header[:6] == ["variant", "median", "×", "baseline", "status", "n"], header
        row = line_text(table, 2)
        assert row.split()[:6] == ["variant-number-1", "2.00", "µs", "2.000×", "ok", "50"], row
        assert table.scroll_x == 0
        await pilot.resize_terminal(200, 60)
        await wait_until(pilot, lambda: line_text(table, 0).split()[4:6] == ["95%", "CI"], what="the wide order")
        assert "IQR" in line_text(table, 0)


@sync
async def test_the_comparison_verdict_is_on_screen_at_80_columns(saved, scenario_dirs, tmp_path):
    from tuiperf.results.compare import compare_runs
    from tuiperf.tui.screens.comparison import ComparisonScreen

    old = factories.result({name: factories.steady(1000.0) for name in TEN}, scenario="tiny-sin")
    new = factories.result({name: factories.steady(1300.0) for name in TEN}, scenario="tiny-sin")
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.push_screen(ComparisonScreen(compare_runs(old, new), "run 1"))
        await wait_until(pilot, lambda: isinstance(app.screen, ComparisonScreen), what="the comparison")
        await pilot.pause()
        table = app.screen.query_one("#comparison-table")
        right, edges = 0, {}
        for column in table.ordered_columns:
            right += column.get_render_width(table)
            edges[str(column.key.value)] = right
        visible = table.scrollable_content_region.width
        assert edges["verdict"] <= visible and edges["new / old"] <= visible, (edges, visible)
        # two runs, each interval over one process only: no finding (tests/test_findings.py), and it fits
        assert str(table.get_cell(TEN[0], "verdict")) == "undecided (one process each)"


@sync
async def test_the_breakdown_tables_stack_their_rows_at_80_columns(saved, scenario_dirs, tmp_path):
    from rich.cells import cell_len

    replay = copy.deepcopy(saved)
    jit = replay["result"].variant("jit")
    stages = {  # "5.86 µs ±120 ns": wider than 80 columns
        key: msgspec.structs.replace(stage, ci95_ns=(stage.ns - 120.0, stage.ns + 120.0))
        for key, stage in jit.breakdown.stages.items()
    }
    wide = msgspec.structs.replace(jit, breakdown=msgspec.structs.replace(jit.breakdown, stages=stages))
    replay["result"].variants = [wide if v.name == "jit" else v for v in replay["result"].variants]
    app = TuiperfApp(FakeRunner(replay), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        await run_to_end(pilot)
        main.action_show_tab("breakdown")
        box, detail = app.query_one("OverheadBreakdown"), app.query_one("#breakdown-detail")
        await wait_until(pilot, lambda: "per call" in str(detail.content) and box.region.area, what="the tables")
        await pilot.pause()
        lines = str(detail.content).splitlines()
        assert max(cell_len(line) for line in lines) <= box.scrollable_content_region.width - 2  # its padding
        assert any("outputs" in line for line in lines) and box.max_scroll_x == 0
        await pilot.resize_terminal(200, 60)
        await wait_until(pilot, lambda: str(detail.content).splitlines()[2].startswith("variant"), what="a table")
        assert "outputs" in str(detail.content).splitlines()[2]


@sync
async def test_the_comparison_shows_every_column_whole_at_200_columns(saved, scenario_dirs, tmp_path):
    """At 200x60 the dialog kept its 100 columns and cut the `new` column ("4.47 µ") with room beside it."""
    from tuiperf.results.compare import compare_runs
    from tuiperf.tui.screens.comparison import ComparisonScreen

    names = [f"nnx-nnx.jit-with-a-long-name-{i} @ current" for i in range(3)]
    old = factories.result({name: factories.steady(4000.0) for name in names}, scenario="tiny-sin")
    new = factories.result({name: factories.steady(4470.0) for name in names}, scenario="tiny-sin")
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(200, 60)) as pilot:
        await ready(pilot)
        app.push_screen(ComparisonScreen(compare_runs(old, new), "run 1"))
        await wait_until(pilot, lambda: isinstance(app.screen, ComparisonScreen), what="the comparison")
        await pilot.pause()
        table = app.screen.query_one("#comparison-table")
        right = sum(column.get_render_width(table) for column in table.ordered_columns)
        assert right <= table.scrollable_content_region.width, (right, table.scrollable_content_region.width)
        assert "4.47 µs" in {str(table.get_cell(name, "new")) for name in names}
