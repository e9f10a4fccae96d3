"""A run's end draws its result in short frames: what is drawn, what waits until it is drawn (the
picture's build, storing the run) and what a sweep shows from its start. The frames' times themselves
are measured by benchmarks/ui_responsiveness.py; these tests check the order of things."""

from __future__ import annotations

import threading
from collections.abc import Callable

from tui_helpers import FakeRunner, ready, run_to_end, sync, wait_until

from tuiperf.results import history as history_module
from tuiperf.results.history import History
from tuiperf.tui import run_history
from tuiperf.tui.app import TuiperfApp
from tuiperf.tui.run_history import STORE_AFTER_S
from tuiperf.tui.view import view_of
from tuiperf.tui.widgets.histogram import LatencyHistogram
from tuiperf.tui.widgets.sweep_plot import SweepLines


def stored_ids(path) -> list[int]:
    with History(path, readonly=True) as history:  # (a poll: reads only, a missing file as empty)
        return [run.id for run in history.list()]


@sync
async def test_a_sweep_shows_its_plot_from_its_start_and_its_end_fills_it_in_place(saved, scenario_dirs, tmp_path):
    """GIVEN the histogram on screen WHEN a sweep starts THEN the Sweep tab shows, saying the plot comes
    once every point is measured, with a caption line per variant; WHEN it ends THEN the tab is still
    the one shown and the caption takes as many lines (no tab switch, no layout for it at the end:
    the tab switch was the slowest frame a sweep's end drew, 30-75 ms in ui_responsiveness.py)."""
    runner = FakeRunner(saved)
    gate = threading.Event()
    runner.gates = [gate]
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        main = await ready(pilot)
        panel = main.results_panel
        main.action_show_tab("histogram")
        assert main.start_run(sweep=("size", [4, 8]))
        await wait_until(pilot, lambda: panel.active_tab == "sweep", what="the Sweep tab shown at the start")
        lines, caption = app.query_one(SweepLines), panel.query_one("#sweep-caption")
        await wait_until(pilot, lambda: str(caption.content).count("measuring") > 0, what="the waiting caption")
        await app.plots_settled()
        drawn = [lines.render_line(y).text for y in range(lines.size.height)]
        assert lines.sweep is None and drawn[0].startswith("Sweeping: the plot comes once"), drawn
        variants = [v.name for v in saved["sweep"].shown.variants]
        waiting_lines = str(caption.content).splitlines()
        assert [line.split()[1] for line in waiting_lines] == variants  # after each line's legend mark
        gate.set()
        await main.runs.wait_for_end(30)
        await app.plots_settled()
        assert panel.active_tab == "sweep" and lines.sweep is main.result.sweep
        below = view_of(main.result).crossovers  # a title and a line each, under the legend's lines
        assert len(str(caption.content).splitlines()) == len(waiting_lines) + (1 + len(below) if below else 0)


@sync
async def test_a_live_re_run_of_a_sweep_keeps_the_tab_shown(saved, scenario_dirs, tmp_path):
    """Live mode's re-runs never move the view: a sweep started by live mode keeps the tab on screen."""
    runner = FakeRunner(saved)
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        main = await ready(pilot)
        main.action_show_tab("stats")
        assert main.start_run(sweep=("size", [4, 8]), by_live_mode=True)
        await main.runs.wait_for_end(30)
        await pilot.pause()
        assert main.results_panel.active_tab == "stats"


@sync
async def test_a_picture_on_screen_is_built_after_the_frame_that_shows_its_news(saved, scenario_dirs, tmp_path):
    """GIVEN the histogram on screen WHEN its data change THEN its picture is not being built yet (the
    build, pure Python, would share the GIL with that frame; it doubled a sweep's end) AND it comes."""
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        main = await ready(pilot)
        main.show_result(saved["result"])
        await app.plots_settled()
        histogram = app.query_one(LatencyHistogram)
        assert histogram.region.area and histogram.settled
        histogram.set_log(not histogram.effective_log)
        assert histogram._building is None and not histogram.settled  # the old picture, no build yet
        await app.plots_settled()
        assert histogram.settled


@sync
async def test_a_run_is_stored_once_its_result_is_drawn_not_on_the_ui_thread(
    saved, scenario_dirs, tmp_path, monkeypatch
):
    """GIVEN a run that ends WHEN it is stored THEN its result was on screen already, and the store ran
    in a thread (it encodes the document in C, holding the GIL: 10-15 ms for a sweep's, a stall in the
    frames that drew the result when both ran at once)."""
    path = tmp_path / "history.sqlite"
    recorded: list[tuple[bool, bool]] = []  # (the result shown, on the UI thread)
    record = history_module.record
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path, history_path=path)

    def recording(result, where):  # type: ignore[no-untyped-def]
        recorded.append((app.main.result is result, threading.current_thread() is threading.main_thread()))
        return record(result, where)

    monkeypatch.setattr(history_module, "record", recording)
    async with app.run_test(size=(160, 48)) as pilot:
        main = await ready(pilot)
        timers: list[tuple[float, Callable[[], object]]] = []  # the store's, held here: no race with a slow machine
        set_timer = main.set_timer

        def holding_the_stores(delay, fn, **kw):  # type: ignore[no-untyped-def]
            if getattr(fn, "__self__", None) is not main.history:
                return set_timer(delay, fn, **kw)
            timers.append((delay, fn))
            return set_timer(3600.0, lambda: None)

        monkeypatch.setattr(main, "set_timer", holding_the_stores)
        main = await run_to_end(pilot)
        assert recorded == [] and main.history.last_stored is None  # not with the result's own frames
        assert [delay for delay, _ in timers] == [STORE_AFTER_S]
        timers[0][1]()  # the timer comes
        await wait_until(pilot, lambda: main.history.last_stored is not None, what="the run stored")
        assert recorded == [(True, False)]
        assert stored_ids(path) == [main.history.last_stored]


@sync
async def test_a_run_still_waiting_to_be_stored_is_listed_by_h_and_kept_by_quitting(
    saved, scenario_dirs, tmp_path, monkeypatch
):
    """GIVEN a run just ended, not stored yet WHEN h is pressed THEN the history lists it; GIVEN another
    WHEN the app quits THEN it is stored too (nothing is lost by being quick)."""
    monkeypatch.setattr(run_history, "STORE_AFTER_S", 3600.0)  # the timer never comes in this test
    monkeypatch.setattr("tuiperf.tui.screens.main.STORE_AFTER_S", 3600.0)
    path = tmp_path / "history.sqlite"
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path, history_path=path)
    async with app.run_test(size=(160, 48)) as pilot:
        await ready(pilot)
        await run_to_end(pilot)
        assert stored_ids(path) == []
        await pilot.press("h")
        await wait_until(pilot, lambda: len(getattr(app.screen, "runs", [])) == 1, what="the run listed")
        await pilot.press("escape")
        await run_to_end(pilot)
        assert len(stored_ids(path)) == 1
    assert len(stored_ids(path)) == 2


@sync
async def test_the_histogram_waits_for_samples_while_a_run_measures(saved, scenario_dirs, tmp_path):
    """GIVEN a run measuring and no sample come yet (an interleaved sweep's come at its end) THEN the
    histogram says it waits for them, not "press r to run"."""
    runner = FakeRunner(saved)
    gate = threading.Event()
    replay = runner.run

    def measuring(*args, **kwargs):  # type: ignore[no-untyped-def]
        gate.wait(30)  # nothing comes until the test has looked
        return replay(*args, **kwargs)

    runner.run = measuring  # type: ignore[method-assign]
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        histogram = app.query_one(LatencyHistogram)
        await app.plots_settled()
        assert "press r to run" in histogram.render_line(0).text
        assert main.start_run()
        await wait_until(pilot, lambda: histogram.note, what="the run's news shown")
        await app.plots_settled()
        title = histogram.render_line(0).text
        gate.set()
        await main.runs.wait_for_end(30)
        assert "waiting for samples" in title and "press r" not in title


def test_a_sweeps_crossover_sentences_are_laid_out_with_its_legend_in_the_runs_thread():
    """GIVEN a sweep whose extra fixed cost crosses 10 % WHEN its tabs' text is prepared (the run's
    thread) THEN the sentences under the legend come wrapped to the legend's width, and the two joined
    are the lines that wrapping both at once gives (the UI thread wrapped the sentences at a sweep's end:
    a frame of their own, 12-15 ms in ui_responsiveness.py)."""
    import factories
    from rich.text import Text

    from tuiperf.tui.tab_contents import Widths, prepare
    from tuiperf.tui.widgets.sweep_plot import below_text
    from tuiperf.tui.widgets.text_block import joined, wrap

    run = factories.crossing_sweep()
    view = view_of(run)
    contents = prepare(run, None, Widths(stats=80, breakdown=80, legend=60), view)
    assert contents.legend is not None and contents.below is not None
    assert contents.below.width == 60 and "eqx.filter_jit's +23.0 µs over jax.jit" in contents.below.text.plain
    assert contents.below.text.plain == below_text(view.crossovers).plain
    both = joined(contents.legend, contents.below)
    at_once = wrap(Text("\n").join([contents.legend.text, contents.below.text]), 60)
    assert [line.text for line in both.lines] == [line.text for line in at_once.lines]
    assert len(both.lines) > len(contents.legend.lines) + 1 + len(view.crossovers)  # (the sentences wrapped)
    no_crossing = factories.sweep({"a": [1.0, 2.0, 3.0], "b": [2.0, 3.0, 4.0]}, values=("x", "y", "z"))
    assert prepare(no_crossing, None, Widths(80, 80, legend=60), view_of(no_crossing)).below is None


@sync
async def test_a_sweeps_plot_is_drawn_once_at_the_height_its_crossover_sentences_leave_it():
    """GIVEN a sweep's plot waiting for it WHEN the sweep with crossover sentences is shown THEN its
    picture is built once, at the height the plot has with the sentences under the legend (it was
    built at the waiting caption's height too, in a thread, while the frame that laid the sentences
    out was drawn)."""
    import factories
    from textual.app import App

    from tuiperf.tui.widgets.plot_base import CachedPlot
    from tuiperf.tui.widgets.sweep_plot import SweepPlot

    run = factories.crossing_sweep()
    view = view_of(run)
    assert view.crossovers

    class OnePlot(App[None]):
        def compose(self):  # type: ignore[no-untyped-def]
            yield SweepPlot()

    app = OnePlot()
    async with app.run_test(size=(100, 30)) as pilot:
        plot, lines = app.query_one(SweepPlot), app.query_one(SweepLines)
        plot.show(None, view.order, waiting="Sweeping: the plot comes once every point is measured.")
        await wait_until(pilot, lambda: lines.settled, what="the waiting picture")
        waiting_height = lines.size.height
        built: list[tuple[object, ...]] = []
        build = CachedPlot._build

        def counted(self, key, style):  # type: ignore[no-untyped-def]
            built.append(key)
            return build(self, key, style)

        CachedPlot._build = counted  # type: ignore[method-assign]
        try:
            plot.show(view.sweep, view.order, view.crossovers)
            await wait_until(pilot, lambda: plot.settled and lines.settled, what="the sweep drawn")
        finally:
            CachedPlot._build = build  # type: ignore[method-assign]
        assert lines.size.height < waiting_height  # the sentences took rows from it
        assert [key[1:3] for key in built] == [(lines.size.width, lines.size.height)]
        assert lines.sweep is run.sweep
