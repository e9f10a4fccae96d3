"""The explorer at 80x24, keyboard only, without colour: what a user over SSH gets."""

from __future__ import annotations

import re

import pytest
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
async def test_the_histogram_draws_as_many_strips_as_fit_says_so_and_v_chooses(saved, scenario_dirs, tmp_path):
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        main.action_show_tab("histogram")
        histogram = main.query_one(LatencyHistogram)
        names = [f"v{i}" for i in range(14)]
        histogram.set_series(
            {n: [1000.0 + 50 * i + j % 7 for j in range(50)] for i, n in enumerate(names)}, order=names
        )
        await wait_until(pilot, lambda: histogram.settled, what="the histogram's picture")
        rows = histogram.size.height - 3  # below the title, above the axis's two lines
        assert histogram.drawn() == names[:rows] and rows < len(names) <= MAX_DRAWN + 2
        picture = [strip.text for strip in histogram._built[1]]
        assert picture[0].startswith(f"showing {rows} of 14: v chooses"), picture[0]
        assert [line.split()[0] for line in picture[1 : 1 + rows]] == names[:rows]  # one labelled strip each
        await pilot.press("escape", "v")
        assert type(app.screen).__name__ == "VariantPickerScreen"
        picker = app.screen.query_one("#plotted")
        picker.deselect_all()
        picker.select("v9")
        picker.select("v3")
        await pilot.press("enter")
        assert histogram.drawn() == ["v3", "v9"]


@sync
async def test_the_histogram_keeps_its_title_and_legend_above_the_plot(saved, scenario_dirs, tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        main.action_show_tab("histogram")
        histogram = main.query_one(LatencyHistogram)
        series = {
            "jax.jit": [4000.0 + j % 50 for j in range(400)],
            "eqx.filter_jit": [6000.0 + j % 90 for j in range(400)],
        }
        histogram.set_series(series, order=list(series))
        await wait_until(pilot, lambda: histogram.settled, what="the histogram's picture")
        picture = [strip.text for strip in histogram._built[1]]
        assert picture[0].startswith("Latency per call, │ median")
        assert "⢕⢕ jax.jit 4.02 µs" in picture[1] and "xx eqx.filter_jit 6.04 µs" in picture[1]
        assert len(histogram.header) == 2 and not any("jax.jit" in row for row in picture[2:])


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


@sync
async def test_a_sweep_too_flat_for_a_plot_is_a_table_with_distinct_legend_marks(
    saved, scenario_dirs, tmp_path, monkeypatch
):
    from tuiperf.tui.widgets.sweep_plot import MIN_PLOT_ROWS, SweepLines

    monkeypatch.setenv("NO_COLOR", "1")
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 22)) as pilot:
        main = await ready(pilot)
        main.show_result(saved["sweep"])
        main.action_show_tab("sweep")
        lines = main.query_one(SweepLines)
        await wait_until(pilot, lambda: lines.settled and lines.size.height > 0, what="the sweep's picture")
        assert lines.size.height < MIN_PLOT_ROWS + 5  # what 80x22 leaves it: two rows of plot, too flat
        picture = [strip.text.rstrip() for strip in lines._built[1]]
        assert picture[1].split() == ["size", "8", "256", "4096"], picture
        marks = [row.split()[0] for row in picture[2:5]]
        assert len(set(marks)) == 3 and [row.split()[1] for row in picture[2:5]] == ["jit", "aot", "broken"]
        caption = str(main.query_one("#sweep-caption").render())
        assert all(f"{mark} {name}" in caption for mark, name in zip(marks, ["jit", "aot", "broken"], strict=True))


@pytest.mark.parametrize("no_color", [False, True])
@sync
async def test_a_log_scale_histogram_at_80x24_draws_its_lines_and_several_x_labels(
    no_color, scenario_dirs, tmp_path, monkeypatch, saved
):
    """Two variants ten times apart are shown on a log axis (automatically): plotext took the axis's
    limits in linear units as log10 ones, so the lines and every x label fell outside the plot."""
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        main.action_show_tab("histogram")
        histogram = main.query_one(LatencyHistogram)
        series = {
            "jit": [14_000.0 + j % 97 * 20 for j in range(2_000)],
            "eager": [145_000.0 + j % 89 * 300 for j in range(2_000)],
        }
        histogram.set_series(series, order=list(series), medians={n: sorted(v)[1_000] for n, v in series.items()})
        await wait_until(pilot, lambda: histogram.settled, what="the histogram's picture")
        assert histogram.effective_log
        picture = [strip.text.rstrip() for strip in histogram._built[1]]
        top = next(i for i, row in enumerate(picture) if "┌" in row)
        bottom = next(i for i, row in enumerate(picture) if "└" in row)
        left = picture[top].index("┌") + 1
        inside = "".join(row[left:-1] for row in picture[top + 1 : bottom])
        marks = {"x"} if no_color else {chr(c) for c in range(0x2801, 0x2900)}  # eager's marker / braille dots
        assert marks & set(inside), "\n".join(picture)  # the lines are drawn
        labels = picture[bottom + 1].split()
        assert len(labels) >= 2 and all(float(label) > 0 for label in labels), "\n".join(picture)
        assert float(labels[0]) < 50 < 100 <= float(labels[-1]), "\n".join(picture)  # µs: jit 14-16, eager 145-171


@pytest.mark.parametrize(("size", "rows"), [((80, 24), 9), ((80, 23), 8)])
@sync
async def test_a_sweep_is_plotted_at_80x24_and_with_eight_rows(size, rows, saved, scenario_dirs, tmp_path, monkeypatch):
    from tuiperf.tui.widgets.sweep_plot import SweepLines

    monkeypatch.setenv("NO_COLOR", "1")
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=size) as pilot:
        main = await ready(pilot)
        main.show_result(saved["sweep"])
        main.action_show_tab("sweep")
        lines = main.query_one(SweepLines)
        await wait_until(pilot, lambda: lines.settled and lines.size.height > 0, what="the sweep's picture")
        assert lines.size.height == rows
        picture = [strip.text.rstrip() for strip in lines._built[1]]
        assert "too few rows" not in picture[0] and picture[0].strip().startswith("Median time per call")
        assert picture[1].strip().startswith("┌") and picture[-3].strip().startswith("└"), picture
        assert picture[-2].split() == ["8", "256", "4096"], picture  # the x ticks under the plot


@sync
async def test_sweep_points_have_markers_and_the_legend_is_beside_the_plot(saved, scenario_dirs, tmp_path, monkeypatch):
    from tuiperf.tui.widgets.sweep_plot import SweepLines, legend_mark, point_marker

    monkeypatch.setenv("NO_COLOR", "1")
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        main.show_result(saved["sweep"])
        main.action_show_tab("sweep")
        lines = main.query_one(SweepLines)
        await wait_until(pilot, lambda: lines.settled and lines.size.height > 0, what="the sweep's picture")
        picture = [strip.text.rstrip() for strip in lines._built[1]]
        top = next(i for i, row in enumerate(picture) if "┌" in row)
        bottom = next(i for i, row in enumerate(picture) if "└" in row)
        left = picture[top].index("┌") + 1  # the y ticks left of the frame are no data
        inside = "\n".join(row[left:] for row in picture[top + 1 : bottom])
        assert "jit" not in inside and "slope" not in inside, inside  # no legend over the lines
        assert point_marker(0) in inside and point_marker(1) in inside, inside  # jit's and aot's points
        assert point_marker(0) != point_marker(1)
        caption = str(main.query_one("#sweep-caption").render())
        assert f"{legend_mark(0)} jit" in caption and f"{legend_mark(1)} aot" in caption  # the legend, beside


@sync
async def test_m_plots_a_sweeps_program_memory_and_back(saved, scenario_dirs, tmp_path, monkeypatch):
    import msgspec

    from tuiperf.tui.widgets.sweep_plot import SweepLines

    monkeypatch.setenv("NO_COLOR", "1")
    sweep = saved["sweep"]
    memory = {name: [1024 * value for value in sweep.sweep.values] for name in sweep.sweep.medians_ns}
    with_memory = msgspec.structs.replace(sweep, sweep=msgspec.structs.replace(sweep.sweep, memory_bytes=memory))
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 22)) as pilot:  # too flat for a plot: the values as a table
        main = await ready(pilot)
        main.show_result(sweep)
        main.set_focus(None)  # keys go to the screen, not a form field
        await pilot.press("m")  # this sweep has no program memory: nothing else to plot
        lines = main.query_one(SweepLines)
        assert lines.quantity == "time"
        main.show_result(with_memory)
        await pilot.press("m")
        await pilot.pause()
        assert lines.quantity == "memory"
        assert main.results_panel.active_tab == "sweep"
        await wait_until(pilot, lambda: lines.settled and lines.size.height > 0, what="the sweep's picture")
        picture = [strip.text.rstrip() for strip in lines._built[1]]
        assert picture[0].startswith("Program memory against size")
        assert picture[2].split()[2:] == ["8", "KiB", "256", "KiB", "4", "MiB"], picture
        await pilot.press("m")
        assert lines.quantity == "time"


@sync
async def test_m_plots_a_sweeps_compile_time_after_its_memory(saved, scenario_dirs, tmp_path, monkeypatch):
    import msgspec

    from tuiperf.tui.widgets.sweep_plot import SweepLines

    monkeypatch.setenv("NO_COLOR", "1")
    sweep = saved["sweep"]
    compiled = {name: [2.0 * value for value in sweep.sweep.values] for name in sweep.sweep.medians_ns}
    with_compile = msgspec.structs.replace(sweep, sweep=msgspec.structs.replace(sweep.sweep, compile_ms=compiled))
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 22)) as pilot:  # too flat for a plot: the values as a table
        main = await ready(pilot)
        main.show_result(with_compile)
        main.set_focus(None)
        await pilot.press("m")  # no program memory here: straight to compile time
        await pilot.pause()
        lines = main.query_one(SweepLines)
        assert lines.quantity == "compile"
        await wait_until(pilot, lambda: lines.settled and lines.size.height > 0, what="the sweep's picture")
        picture = [strip.text.rstrip() for strip in lines._built[1]]
        assert picture[0].startswith("Compile time (trace+lower+compile) against size")
        assert picture[2].split()[2:] == ["16.0", "ms", "512", "ms", "8.19", "s"], picture
        caption = main.query_one("#sweep-caption")  # the legend follows: compile times, not medians per call
        assert "compile time  16.0 ms → 8.19 s" in str(caption.render()), str(caption.render())
        # with its log-log slope, as the report's table and the per-call legend give one (it gave none)
        assert "16.0 ms → 8.19 s  slope 1.00" in str(caption.render()), str(caption.render())
        main.show_result(with_compile)  # shown again (a run's end) while compile time is plotted
        await pilot.pause()
        assert "compile time  16.0 ms → 8.19 s" in str(caption.render()), str(caption.render())
        await pilot.press("m")
        assert lines.quantity == "time"


@pytest.mark.parametrize("size", [(120, 40), (200, 60)])
@sync
async def test_the_sweep_caption_keeps_one_line_per_variant(size, saved, scenario_dirs, tmp_path, monkeypatch):
    """Each variant's legend line (marker, name, slope, span, memory) fits the caption: with long names the
    memory column wrapped onto a line of its own under every variant (static-leaves-sweep.png at 200x60);
    where it cannot fit it is left out (m plots it)."""
    import factories
    import msgspec

    monkeypatch.setenv("NO_COLOR", "1")
    names = ["eqx.partition-static-arg", "eqx.partition-closure", "flat-dict"]
    run = factories.sweep(
        {name: [1000.0 * (i + 1), 2000.0, 9000.0] for i, name in enumerate(names)}, values=(10, 100, 1000)
    )
    assert run.sweep is not None
    memory = {name: [384, 384, 404] for name in names}
    run = msgspec.structs.replace(run, sweep=msgspec.structs.replace(run.sweep, memory_bytes=memory))
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=size) as pilot:
        main = await ready(pilot)
        main.action_show_tab("sweep")
        await pilot.pause()
        main.show_result(run)
        caption = main.query_one("#sweep-caption")
        await wait_until(pilot, lambda: "slope" in str(caption.render()), what="the sweep's caption")
        legend = [line for line in str(caption.render()).splitlines() if line.strip()]
        assert [line.split()[1] for line in legend[: len(names)]] == names, legend
        assert all(len(line) <= caption.size.width for line in legend[: len(names)]), (caption.size.width, legend)
        assert ("memory 384 B → 404 B" in legend[0]) == (size == (200, 60)), legend


@sync
async def test_the_profile_tabs_executable_row_fits_80_columns(saved, tmp_path):
    """At 80x24 the Profile tab cut its bold row at "jax.jit call: JAX's C++ dispatch +"."""
    import copy

    import msgspec

    from tuiperf.results.model import ProfileRow

    result = copy.deepcopy(saved["result"])
    executable = ProfileRow(
        function="jax.jit call: JAX's C++ dispatch + the XLA executable",
        ncalls=1.0,
        cumtime_us=6.5,
        tottime_us=6.5,
        kind="executable",
    )
    v = result.variants[1]
    result.variants[1] = msgspec.structs.replace(
        v, profile=msgspec.structs.replace(v.profile, rows=[*v.profile.rows, executable])
    )
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        lines = await profile_tab_lines(pilot, result)
        whole = [line for line in lines if re.search(r"C\+\+ dispatch \+ (the )?XLA executable\s*$", line)]
        assert whole, "\n".join(lines)  # the row's name whole, not cut at the panel's edge


async def profile_tab_lines(pilot, result) -> list[str]:
    """``result`` shown on the Results screen's Profile tab; the screen's lines."""
    from drawn import screen_cells

    main = await ready(pilot)
    main.show_result(result)
    await pilot.press("f2")
    main.action_show_tab("profile")
    await pilot.pause(0.2)
    return ["".join(cell[0] for cell in row) for row in screen_cells(pilot.app)]


@sync
async def test_the_profile_tab_of_a_compile_run_shows_its_functions_at_80x24(saved, tmp_path):
    """A --measure compile run with operations tables: at 80x24 the Profile tab's note took 8 lines, the
    functions' table (the trace rows among them) got 1 blank line and the operations table ran under the
    footer. The note scrolls in at most a third of the tab; the functions keep rows of their own."""
    import copy

    import msgspec

    from tuiperf.results.model import Operations, OpRow, ProfileRow, TraceProfile

    result = copy.deepcopy(saved["result"])
    ops = Operations(
        rows=[OpRow(op=f"fusion.{k}", kind="elementwise", shapes="f32[8] → f32[8]", ns=300.0) for k in range(3)]
    )
    traced = TraceProfile(
        rows=[ProfileRow(function="_trace_for_jit (jax/…/pjit.py:466)", ncalls=4, cumtime_us=900.0, tottime_us=300.0)]
    )
    result.variants = [
        msgspec.structs.replace(
            v,
            profile=msgspec.structs.replace(v.profile, note="median 5.45 µs, profiled 6.89 µs per call"),
            program=msgspec.structs.replace(v.program, ops=ops),
            stages=msgspec.structs.replace(v.stages, trace_profile=traced),
        )
        for v in result.variants
    ]
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        lines = await profile_tab_lines(pilot, result)
        rows, ops_rows = app.screen.query_one("#profile-rows"), app.screen.query_one("#ops-rows")
        assert rows.region.height >= 4, "\n".join(lines)  # a header and three rows, not one blank line
        header = rows.region.y
        assert "cumulative µs" in lines[header] and lines[header + 1].strip(), "\n".join(lines)
        footer = app.screen.query_one("Footer").region.y
        assert ops_rows.region.bottom <= footer, (ops_rows.region, footer)  # not under the footer
        note = app.screen.query_one("#profile-note-box")
        assert note.max_scroll_y > 0  # the rest of the note is a scroll away, not cut


def test_a_compile_runs_rows_give_each_variants_compile_time_first():
    # A --measure compile run's rows at the top gave the medians per call alone.
    from tests import factories
    from tests.test_compile_time import fast_and_slow
    from tuiperf.tui.widgets.run_progress import result_rows

    result = fast_and_slow()
    lines = result_rows(result, 2).plain.splitlines()
    assert lines[0].startswith("fast  compile  90.0 ms  [88.2 ms – 91.8 ms]  · call  10.0 ns")
    assert lines[1].startswith("slow  compile  30.0 ms  [")
    plain = result_rows(factories.result({"fast": factories.steady(10.0)}), 1).plain
    assert "compile" not in plain and plain.startswith("fast  10.0 ns")
