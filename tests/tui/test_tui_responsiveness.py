"""What keeps the UI thread quick with a big result (the timings themselves: benchmarks/ui_responsiveness.py)."""

from __future__ import annotations

import ast
import dataclasses
import threading
from pathlib import Path

from tui_helpers import FakeRunner, ready, run_to_end, sync, wait_until

import tuiperf.tui
from tuiperf.tui import tab_contents
from tuiperf.tui.app import TuiperfApp
from tuiperf.tui.widgets import breakdown, profile_table, stats_table

TUI = Path(tuiperf.tui.__file__).parent


def work_decorators() -> list[tuple[str, ast.Call]]:
    found = []
    for path in sorted(TUI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for decorator in node.decorator_list:
                    if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", "") == "work":
                        found.append((f"{path.relative_to(TUI)}:{node.name}", decorator))
    return found


def test_every_worker_is_described_so_textual_never_reprs_its_arguments():
    """GIVEN Textual's @work without a description WHEN it starts THEN it builds one from repr() of
    every argument, on the UI thread: a 10 x 100,000-sample result took ~2 s each time the Statistics
    tab started its verdicts worker (measured with cProfile: 12.6 s in repr over six starts)."""
    decorators = work_decorators()
    assert len(decorators) >= 5  # plots, verdicts, the two reconciliations, the history
    undescribed = [where for where, call in decorators if "description" not in {k.arg for k in call.keywords}]
    assert undescribed == []


def test_a_described_worker_does_not_repr_its_arguments(monkeypatch):
    """The decorator's own behaviour, checked: with a description no argument is repr()'d."""
    import asyncio

    from textual import work
    from textual.app import App

    class Loud:
        def __repr__(self) -> str:
            raise AssertionError("repr() of a worker's argument")

    class Quiet(App[None]):
        @work(thread=True, description="quiet")
        def quiet(self, value: Loud) -> None:
            pass

        @work(thread=True)
        def loud(self, value: Loud) -> None:
            pass

    async def body() -> tuple[str, str]:
        app = Quiet()
        async with app.run_test():
            quiet = app.quiet(Loud())
            loud = app.loud(Loud())  # Textual catches the failing repr and says "<worker>"
            await app.workers.wait_for_complete()
            return quiet.description, loud.description

    assert asyncio.run(body()) == ("quiet", "<worker>")


@sync
async def test_a_results_tab_contents_are_made_off_the_ui_thread(saved, scenario_dirs, tmp_path, monkeypatch):
    """GIVEN a result shown WHEN Statistics, Breakdown and Profile are then shown THEN their text (rows,
    aligned columns, verdicts, the stage tables) was made in a worker thread when the result came, and
    the UI thread only applies it (it built them at each tab's first show: 10-60 ms a tab under load)."""
    made: list[tuple[str, bool]] = []  # (what, on the UI thread)

    def recorded(module, name):  # type: ignore[no-untyped-def]
        original = getattr(module, name)

        def record(*args, **kwargs):  # type: ignore[no-untyped-def]
            made.append((name, threading.current_thread() is threading.main_thread()))
            return original(*args, **kwargs)

        for where in (module, tab_contents):
            monkeypatch.setattr(where, name, record)

    recorded(stats_table, "stats_content")
    recorded(breakdown, "detail_text")
    recorded(profile_table, "profile_content")
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        main = await ready(pilot)
        panel = main.results_panel
        result = saved["result"]
        main.show_result(result)
        await wait_until(pilot, lambda: len(made) == 3, what="the tabs' contents made")
        assert sorted(made) == [("detail_text", False), ("profile_content", False), ("stats_content", False)]
        for tab in ("stats", "breakdown", "profile"):
            main.action_show_tab(tab)
            await pilot.pause()
        assert [what for what, on_ui in made if on_ui] == []  # applied, not made again
        stats = panel.query_one("#stats-view")
        assert stats.query_one("#stats-table").keys == [v.name for v in result.variants]
        assert "per call" in str(panel.query_one("#breakdown-detail").content)
        assert panel.query_one("#profile-rows").row_count > 0


@sync
async def test_a_finished_runs_view_and_tabs_are_made_in_the_runs_thread(saved, scenario_dirs, tmp_path, monkeypatch):
    """GIVEN a run that ends (a run, then a sweep) WHEN its result is shown THEN its view (every text made
    inert, the series gathered), its tabs' text, the progress block's rows and a sweep's legend were made
    in the run's thread, before the result reached the UI: on the UI thread the view was half the
    run's-end handler's time (15 of 32 ms on dispatch-floor, cProfile with the thread's CPU clock), the
    tabs' text made in a worker after it competed for the GIL with drawing the result (a run's end
    stalled the event loop 26-60 ms, ui_responsiveness.py), and the rows and legend, wrapped on the
    UI thread, were most of a sweep's end handler (8-9 of its 14 ms)."""
    from tuiperf.tui import tab_contents, view
    from tuiperf.tui.widgets import run_progress, sweep_plot

    made: list[tuple[str, str]] = []  # (what, in which thread)

    def recorded(module, name):  # type: ignore[no-untyped-def]
        original = getattr(module, name)

        def record(*args, **kwargs):  # type: ignore[no-untyped-def]
            made.append((name, threading.current_thread().name))
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, record)

    recorded(view, "view_of")  # the run's thread and the view maker import them when called
    recorded(tab_contents, "prepare")
    for module, name in ((run_progress, "result_rows"), (sweep_plot, "legend_rows")):
        recorded(module, name)
        monkeypatch.setattr(tab_contents, name, getattr(module, name))
    runner = FakeRunner(saved)
    ran_in: list[str] = []
    run = runner.run

    def running(*args, **kwargs):  # type: ignore[no-untyped-def]
        ran_in.append(threading.current_thread().name)
        return run(*args, **kwargs)

    runner.run = running  # type: ignore[method-assign]
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        await ready(pilot)
        main = await run_to_end(pilot)
        await wait_until(pilot, lambda: main.result is not None, what="the result shown")
        await app.plots_settled()
        for tab in ("stats", "breakdown", "profile"):
            main.action_show_tab(tab)
            await pilot.pause()
        assert made == [("view_of", ran_in[0]), ("prepare", ran_in[0]), ("result_rows", ran_in[0])]
        assert main.results_panel.order == [v.name for v in saved["result"].variants]
        made.clear()
        assert main.start_run(sweep=("size", [4, 8]))
        await main.runs.wait_for_end(30)
        await app.plots_settled()
        assert [what for what, thread in made if thread == ran_in[1]] == [
            "view_of",
            "prepare",
            "result_rows",
            "legend_rows",
        ]
        assert [what for what, thread in made if thread != ran_in[1]] == []  # nothing made again


@sync
async def test_the_next_baselines_table_is_made_ahead(saved, scenario_dirs, tmp_path, monkeypatch):
    """GIVEN the Statistics tab shown WHEN `b` is pressed THEN the table against the next baseline was made
    ahead in a thread, and the UI thread only applies it (it made the rows on the key: `b` took 220 ms
    from key to screen with mlp-closure-vs-argument's result, `ui_responsiveness.py --only lag`)."""
    made_on_ui: list[str | None] = []
    original = stats_table.stats_content

    def record(result, baseline, width):  # type: ignore[no-untyped-def]
        if threading.current_thread() is threading.main_thread():
            made_on_ui.append(baseline)
        return original(result, baseline, width)

    monkeypatch.setattr(stats_table, "stats_content", record)
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        main = await ready(pilot)
        main.show_result(saved["result"])
        main.action_show_tab("stats")
        stats = main.results_panel.stats
        names = [v.name for v in saved["result"].measured]
        for expected in names[1:3]:
            ahead = lambda name=expected: stats._next is not None and stats._next.baseline == name  # noqa: E731
            await wait_until(pilot, ahead, what="the next baseline's table made ahead")
            made_on_ui.clear()
            await pilot.press("b")
            await pilot.pause()
            assert stats.baseline == expected and made_on_ui == []
            assert stats.query_one("#stats-table").keys == [v.name for v in saved["result"].variants]


@sync
async def test_the_hidden_breakdown_follows_the_baseline_once_when_shown(saved, scenario_dirs, tmp_path):
    """GIVEN `b` pressed twice on Statistics WHEN the Breakdown is then shown THEN it is drawn once, for the
    last baseline (it was drawn on each key, hidden, and each of its new texts laid the screen out)."""
    from tuiperf.tui.widgets.breakdown import OverheadBreakdown

    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        main = await ready(pilot)
        main.show_result(saved["result"])
        main.action_show_tab("breakdown")
        main.action_show_tab("stats")
        await pilot.pause()
        breakdown = main.results_panel.query_one(OverheadBreakdown)
        drawn: list[str | None] = []
        show = breakdown.show
        breakdown.show = lambda result, baseline=None, prepared=None: (
            drawn.append(baseline),
            show(result, baseline, prepared),
        )  # type: ignore[method-assign]
        await pilot.press("b", "b")
        await pilot.pause()
        assert drawn == []
        main.action_show_tab("breakdown")
        await pilot.pause()
        assert drawn == [main.results_panel.stats.baseline] and breakdown.baseline == drawn[0]


async def explained_on_statistics(pilot, result):  # type: ignore[no-untyped-def]
    """The main screen with ``result`` on the Statistics tab, its explanation made."""
    main = await ready(pilot)
    main.show_result(result)
    main.action_show_tab("stats")
    panel, stats = main.results_panel, main.results_panel.stats
    await wait_until(pilot, lambda: panel.explanations.made(result, stats.baseline), what="explained")
    await pilot.pause()
    return main, panel, stats


@sync
async def test_a_baselines_explanation_is_made_once_for_both_tabs_and_the_next_one_ahead(
    saved, scenario_dirs, tmp_path, monkeypatch
):
    """GIVEN Statistics shown WHEN its explanation is made THEN the Breakdown uses the same one, the next
    baseline's is made ahead, and `b` shows it with the table on the key (each tab reconciled every
    gap itself, and `b` emptied the explanation, then refilled it: two more layouts of the screen)."""
    from tuiperf.tui import explanations
    from tuiperf.tui.widgets import results_panel

    made: list[str] = []

    def record(result, baseline, cache=None):  # type: ignore[no-untyped-def]
        made.append(baseline)
        found = explanations.explain(result, baseline, cache)
        # as long as loop-compile's (700 characters), which both tabs cut at 400: "…, absent from u…"
        longer = [
            (name, f"{sentence} {'the evidence goes on, ' * 30}to its end.") for name, sentence in found.sentences
        ]
        return dataclasses.replace(found, sentences=longer)

    monkeypatch.setattr(results_panel, "explain", record)
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        main = await ready(pilot)
        result = saved["result"]
        main.show_result(result)
        main.action_show_tab("stats")
        panel, stats = main.results_panel, main.results_panel.stats
        first, following = stats.baseline, stats.next_baseline()
        assert (first, following) == ("jit", "aot")
        await wait_until(pilot, lambda: panel.explanations.made(result, following), what="the next one ahead")
        why = stats.query_one("#stats-why").content
        assert made == [first, following] and "aot" in str(why)
        main.action_show_tab("breakdown")
        await app.plots_settled()
        assert made == [first, following]  # the Breakdown's gaps and sentences came from the same
        assert "why, against jit" in str(panel.query_one("#breakdown-bars").content)
        assert "goes on, to its end." in str(panel.query_one("#breakdown-bars").content)
        # aot has no breakdown, broken failed: the title "the gap to jit, by stage" stood over nothing
        assert "the gap to jit, by stage" not in str(panel.query_one("#breakdown-bars").content)
        main.action_show_tab("stats")
        await pilot.press("b")
        assert stats.baseline == following
        assert str(stats.query_one("#stats-why").content) == "\n".join(
            f"• {sentence}" for _, sentence in panel.explanations.made(result, following).sentences
        )
        assert made == [first, following]


@sync
async def test_a_tab_shown_again_is_not_filled_again(saved, scenario_dirs, tmp_path):
    """GIVEN Statistics filled and explained WHEN another tab and then Statistics are shown THEN its table
    and explanation stay as they were (the Resize a shown tab gets refilled it, emptying the explanation:
    four layouts of the screen on each return to the tab)."""
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        result = saved["result"]
        main, _, stats = await explained_on_statistics(pilot, result)
        why = stats.query_one("#stats-why").content
        fills: list[None] = []
        fill = stats._fill
        stats._fill = lambda: (fills.append(None), fill())[1]  # type: ignore[method-assign]
        main.action_show_tab("histogram")
        await pilot.pause()
        main.action_show_tab("stats")
        await pilot.pause()
        await pilot.pause()
        assert fills == [] and stats.query_one("#stats-why").content is why


@sync
async def test_while_a_new_results_explanation_is_made_its_place_keeps_its_height(saved, scenario_dirs, tmp_path):
    """GIVEN Statistics explaining a result WHEN a stored copy is opened THEN the explanation's block keeps
    its lines, saying it is being made, until the new one comes (it was emptied, then refilled: two
    layouts of the screen and a jump of the table under it)."""
    import msgspec

    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        result = saved["result"]
        main, panel, stats = await explained_on_statistics(pilot, result)
        why = stats.query_one("#stats-why")
        height = why.extent
        assert height is not None and height > 1  # the sentence wraps at this width
        stored = msgspec.structs.replace(result)  # a new document, as the history's reader makes
        main._open_stored(stored, 1, main.results_panel.view_maker()(stored))
        assert str(why.content).startswith("explaining each difference from jit…") and why.extent == height
        await wait_until(pilot, lambda: panel.explanations.made(stored, stats.baseline), what="the new one")
        await pilot.pause()
        assert str(why.content).startswith("• aot is") and why.extent == height


@sync
async def test_a_hidden_breakdown_is_drawn_at_the_width_it_had(saved, scenario_dirs, tmp_path):
    """GIVEN the Breakdown drawn, then another tab shown WHEN a new result comes and the Breakdown is shown
    THEN its bars are drawn once, at the tab's width (a hidden tab has no size: they were drawn 10 cells
    wide, then again at the first layout, a layout of the screen more), and the gaps' lines keep their
    place while the new result's are reconciled."""
    import msgspec

    from tuiperf.tui.widgets.breakdown import OverheadBreakdown

    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        main.show_result(saved["result"])
        main.action_show_tab("breakdown")
        await app.plots_settled()
        breakdown = main.results_panel.query_one(OverheadBreakdown)
        bars = breakdown.query_one("#breakdown-bars")
        lines_before = bars.extent
        main.action_show_tab("histogram")
        await pilot.pause()
        drawn: list[tuple[str, int | None]] = []  # what the bars showed after each new text, and its lines
        show_text = bars.show_text

        def recording(text):  # type: ignore[no-untyped-def]
            show_text(text)
            drawn.append((str(bars.content), bars.extent))

        bars.show_text = recording  # type: ignore[method-assign]
        stored = msgspec.structs.replace(saved["result"])
        main.show_result(stored)
        main.action_show_tab("breakdown")
        await app.plots_settled()
        bar_lines = {line for text, _ in drawn for line in text.splitlines() if line.startswith("jit ")}
        assert len(bar_lines) == 1, drawn  # one width
        waiting = [extent for text, extent in drawn if "reconciling the stages…" in text]
        assert waiting and set(waiting) == {lines_before}
        assert "why, against jit" in drawn[-1][0] and drawn[-1][1] == lines_before


@sync
async def test_a_tab_shown_again_lays_the_screen_out_once(saved, scenario_dirs, tmp_path, monkeypatch):
    """GIVEN every tab filled and explained WHEN each is shown again THEN Textual lays the screen out once
    for it, as for any tab switch (Statistics took four to six: its refill on the Resize a shown tab
    gets emptied the explanation and its scrollbar came and went; each layout is ~40 ms at 160x48 here).
    Counted by wrapping Textual's private ``Screen._refresh_layout``: a count, not a time."""
    from textual.screen import Screen

    layouts: list[None] = []
    original = Screen._refresh_layout

    def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        layouts.append(None)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        main = await ready(pilot)
        main.show_result(saved["result"])
        tabs = ["breakdown", "sweep", "stats", "profile", "warnings", "histogram"]
        for tab in tabs:
            main.action_show_tab(tab)
            await app.plots_settled()
            await pilot.pause()
        why = main.results_panel.stats.query_one("#stats-why")
        await wait_until(pilot, lambda: str(why.content).startswith("•"), what="explained")
        await pilot.pause()
        counts = {}
        for tab in tabs:
            layouts.clear()
            main.action_show_tab(tab)
            await pilot.pause()
            await pilot.pause()
            counts[tab] = len(layouts)
        assert counts == dict.fromkeys(tabs, 1)


@sync
async def test_the_breakdown_shown_again_draws_its_bars_from_nothing_new(saved, scenario_dirs, tmp_path, monkeypatch):
    """GIVEN the Breakdown drawn and explained WHEN another tab and the Breakdown are shown again THEN its
    bars are not drawn again (they were, twice a show, each time wrapping their text to know its
    height: 13-19 ms of the UI thread after each switch to the tab, cProfile of a built-in's result)."""
    from tuiperf.tui.widgets.text_block import TextBlock

    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        main = await ready(pilot)
        main.show_result(saved["result"])
        main.action_show_tab("breakdown")
        await app.plots_settled()
        bars = main.results_panel.query_one("#breakdown-bars", TextBlock)
        await wait_until(pilot, lambda: "why, against" in str(bars.content), what="the gaps explained")
        wrapped: list[None] = []
        lines_of = TextBlock.lines_of

        def counted(self, text):  # type: ignore[no-untyped-def]
            if self is bars:
                wrapped.append(None)
            return lines_of(self, text)

        monkeypatch.setattr(TextBlock, "lines_of", counted)
        for tab in ("histogram", "breakdown", "stats", "breakdown"):
            main.action_show_tab(tab)
            await pilot.pause()
        await app.plots_settled()
        assert "why, against" in str(bars.content) and wrapped == []
