"""The explorer at 80x24, keyboard only, without colour: what a user over SSH gets."""

from __future__ import annotations

import re

from tui_helpers import FakeRunner, ready, run_to_end, sync, wait_until

from tuiperf.tui.app import TuiperfApp
from tuiperf.tui.widgets.histogram import MAX_DRAWN, LatencyHistogram


def line_text(widget, y: int) -> str:
    return "".join(segment.text for segment in widget.render_line(y))


@sync
async def test_selected_variants_show_by_shape_without_colour(make_app, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        variants = main.setup.options.query_one("#variants")
        variants.deselect("aot")
        await pilot.pause()
        assert line_text(variants, 0).startswith("[x] jit") and line_text(variants, 1).startswith("[ ] aot")
        variants.focus()
        await pilot.pause()
        assert variants.highlighted == 0  # space works at once, no Down needed
        await pilot.press("space")
        assert "jit" not in variants.selected


@sync
async def test_the_filter_enter_takes_the_best_match(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot, scenario=None)
        for typed, wanted in (
            ("static", "static-leaves-partition"),
            ("mlp", "mlp-closure-vs-argument"),
            ("filter", "filter-jit-overhead"),
        ):
            await pilot.press("escape", "slash", *typed, "enter")
            await wait_until(pilot, lambda wanted=wanted: main.setup.form.owner == wanted, what=f"the form of {wanted}")
            assert main.setup.scenario is not None and main.setup.scenario.id == wanted, typed
            app.query_one("#scenario-filter").value = ""


@sync
async def test_the_histogram_draws_at_most_six_and_v_chooses(saved, scenario_dirs, tmp_path):
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        histogram = main.query_one(LatencyHistogram)
        names = [f"v{i}" for i in range(10)]
        histogram.set_series({n: [1000.0 + i] * 50 for i, n in enumerate(names)}, order=names)
        assert histogram.drawn() == names[:MAX_DRAWN]
        await pilot.press("escape", "v")
        assert type(app.screen).__name__ == "VariantPickerScreen"
        picker = app.screen.query_one("#plotted")
        picker.deselect_all()
        picker.select("v9")
        picker.select("v3")
        await pilot.press("enter")
        assert histogram.drawn() == ["v3", "v9"]


@sync
async def test_statistics_show_whole_p_values_at_80_columns(saved, scenario_dirs, tmp_path):
    from tuiperf.common.units import format_p

    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        main = await run_to_end(pilot)
        await pilot.press("4")
        await pilot.pause()
        table = app.query_one("#stats-table")
        row = main.result.comparisons[0]
        assert table.get_row("aot")[4] == format_p(row.p_value) == "< 1e-6"
        header = table.render_line(0).text
        assert re.match(r" variant +median +× baseline +95% CI of ratio +p ", header)  # what matters first, on screen
        shown = [table.render_line(y).text for y in range(1, table.size.height)]
        assert any(line.lstrip().startswith("aot") and "< 1e-6" in line for line in shown)


def _snapshot(saved, tab: str | None, help_screen: bool = False):
    async def run_before(pilot) -> None:
        app = pilot.app
        main = await ready(pilot)
        main.show_result(saved["result"])
        if tab:
            main.action_show_tab(tab)
        app.query_one("#tabs Tabs").focus()
        if help_screen:
            await pilot.press("question_mark")
        await pilot.pause(0.2)
        await pilot.wait_for_scheduled_animations()
        await app.plots_settled()
        await pilot.pause()

    return run_before


def _app(saved, tmp_path):
    return TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)


def test_snapshot_statistics_80x24(snap_compare, saved, tmp_path):
    assert snap_compare(_app(saved, tmp_path), terminal_size=(80, 24), run_before=_snapshot(saved, "stats"))


def test_snapshot_profile_80x24(snap_compare, saved, tmp_path):
    assert snap_compare(_app(saved, tmp_path), terminal_size=(80, 24), run_before=_snapshot(saved, "profile"))


def test_snapshot_breakdown_80x24(snap_compare, saved, tmp_path):
    assert snap_compare(_app(saved, tmp_path), terminal_size=(80, 24), run_before=_snapshot(saved, "breakdown"))


def test_snapshot_help_80x24(snap_compare, saved, tmp_path):
    assert snap_compare(_app(saved, tmp_path), terminal_size=(80, 24), run_before=_snapshot(saved, None, True))
