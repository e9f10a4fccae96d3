"""Pilot tests of the app: GIVEN an app on tiny scenarios, WHEN the user acts, THEN state and messages."""

from __future__ import annotations

import contextlib
import copy
import json
import subprocess
import sys
import textwrap
import threading

import factories
import msgspec
import pytest
from tui_helpers import HAS_CAIRO, FakeRunner, ready, record_notifications, run_to_end, sync, wait_until

from tuiperf.common.errors import WorkerCrashed
from tuiperf.results.model import DeviceInfo
from tuiperf.tui.app import TuiperfApp
from tuiperf.tui.formatting import format_ns

# Modules only the panels, the dialogs or a scenario need: the first frame must not wait for them.
NOT_BEFORE_THE_FIRST_FRAME = (
    "tuiperf.api.params",
    "tuiperf.api.scenario",
    "tuiperf.catalog.folders",
    "tuiperf.results.history",
    "sqlite3",
    "tuiperf.tui.widgets.param_form",
    "tuiperf.tui.widgets.run_options",
    "tuiperf.tui.widgets.results_panel",
    "tuiperf.tui.screens.sweep",
    "tuiperf.tui.screens.help",
    "plotext",
)


def test_the_explorers_start_path_imports_no_numpy():
    """What `tuiperf` imports before its first frame, the process runner included: no numpy (it added a
    tenth of a second to the first frame through the process contract's output digests)."""
    code = "import sys, tuiperf.processes.runner, tuiperf.tui.app, tuiperf.cli; print('numpy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


def test_ui_never_imports_jax_and_the_first_frame_waits_for_no_panel_module():
    code = textwrap.dedent("""
        import json, sys
        from pathlib import Path
        from tuiperf.tui.app import TuiperfApp
        at_first_frame = []
        class FirstFrame(TuiperfApp):
            CSS_PATH = [str(Path(sys.modules["tuiperf.tui.app"].__file__).with_name(n)) for n in TuiperfApp.CSS_PATH]
            def on_ready(self):  # Textual posts Ready once it has drawn the first frame
                at_first_frame.extend(sys.modules)
                self.exit()
        class Stub:
            def cached_catalog(self, dirs=None): return None
            def catalog(self, dirs=None):
                from tuiperf.contract.catalog import Catalog
                return Catalog()
            def devices(self):
                from tuiperf.results.model import DeviceInfo
                return [DeviceInfo("cpu:0", "cpu", "cpu", 0)]
            def run(self, *a, **k): raise RuntimeError
            def close(self): pass
        FirstFrame(Stub()).run(headless=True, size=(80, 24))
        print(json.dumps({"first_frame": at_first_frame, "at_exit": list(sys.modules)}))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    modules = json.loads(out.stdout.strip().splitlines()[-1])
    assert modules["first_frame"], "no frame was drawn"
    assert [m for m in NOT_BEFORE_THE_FIRST_FRAME if m in modules["first_frame"]] == []
    assert [m for m in ("jax", "jaxlib", "equinox", "flax", "numpy") if m in modules["at_exit"]] == []


@sync
async def test_scenario_list_shows_scenarios_broken_files_and_filters(make_app):
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        main = await ready(pilot, scenario=None)
        ids = {s.id for s in main.catalog.scenarios}
        assert "tiny-sin" in ids and "dispatch-floor" in ids  # user folder and built-in
        options = app.query_one("#scenario-options")
        keys = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert "broken:bad-file" in keys
        options.highlighted = keys.index("broken:bad-file")  # selecting the broken file shows its error
        await pilot.pause()
        assert main.setup.scenario is None
        assert "broken on purpose" in str(app.query_one("#info").render())
        app.query_one("#scenario-filter").value = "tiny sine"  # the filter narrows the list
        await pilot.pause()
        assert options.option_count == 1 and options.get_option_at_index(0).id == "ok:tiny-sin"


@sync
async def test_selecting_a_scenario_builds_its_form(make_app):
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        main = await ready(pilot)
        form = main.setup.form
        assert list(form.specs) == ["size", "scale", "dtype", "double"]
        assert form.raw_values() == {"size": "8", "scale": "1.0", "dtype": "float32", "double": False}
        assert type(form._field("dtype")).__name__ == "Select"
        assert type(form._field("double")).__name__ == "Toggle"
        assert main.setup.options.variants == ["jit", "aot", "broken"]
        assert "Tiny sine" in str(app.query_one("#info").render())


@sync
async def test_invalid_parameter_blocks_the_run_with_its_message(make_app):
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        main = await ready(pilot)
        form = main.setup.form
        field = form._field("size")
        field.focus()
        field.value = ""
        await pilot.press("0")
        assert "size" in form.errors and "below the minimum 1" in form.errors["size"]
        assert field.has_class("-invalid")
        notifications = record_notifications(app)
        await pilot.press("escape", "r")  # leave the field, then run
        await pilot.pause()
        assert main.runs.run_id == 0 and not main.running
        assert any("below the minimum 1" in n for n in notifications)
        assert "below the minimum" in main.blocked_reason
        form.set_value("size", "1.6e1")  # fixing the value unblocks it
        assert form.valid and form.values()["size"] == 16


@sync
async def test_run_fills_table_plots_and_marks_failed_variant(make_app):
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await ready(pilot)
        main = await run_to_end(pilot)
        result = main.result
        assert result is not None and not result.partial and main.runs.run_id == 1
        by_name = {v.name: v for v in result.variants}
        assert by_name["jit"].ok and by_name["aot"].ok and not by_name["broken"].ok
        table = main.results_panel.filled("stats").query_one("#stats-table")

        def cell(row: str, column: str) -> str:
            return str(table.get_cell(row, column))

        assert table.row_count == 3 and cell("broken", "status") == "FAILED" and cell("broken", "median") == "—"
        assert cell("jit", "median") == format_ns(by_name["jit"].sampling.stats.median_ns)
        app.query_one("StatsTable").baseline = "aot"  # not the first variant: the ratio keeps its CI
        await pilot.pause()
        assert " – " in cell("jit", "95% CI of ratio") and cell("aot", "× baseline") == "1.000× (baseline)"
        hist = app.query_one("LatencyHistogram")
        assert set(hist.series) == {"jit", "aot"} and len(hist.series["jit"]) >= 100
        warnings = main.results_panel.filled("warnings").query_one("WarningsPanel")
        assert any("broken" in text and sev == "error" for sev, text in warnings.items)
        assert "Warnings (" in main.results_panel.warnings_label
        header = str(app.query_one("#run-header").render())
        assert "tiny-sin" in header and "dispatch" in header and "size=8" in header
        for key in "123456":  # every result tab renders without error
            await pilot.press(key)
            await pilot.pause()
        await pilot.press("l")
        assert app.query_one("LatencyHistogram").effective_log


@sync
async def test_cancel_keeps_the_partial_result(make_app):
    app = make_app(samples=1_000_000, budget_s=600)
    async with app.run_test(size=(140, 45)) as pilot:
        main = await ready(pilot)
        main.setup.options.query_one("#variants").deselect("broken")
        await pilot.press("r")
        await wait_until(
            pilot, lambda: main.runs.state is not None and sum(main.runs.state.counts.values()) > 50, what="samples"
        )
        await pilot.press("escape")
        await main.runs.wait_for_end(30)
        await pilot.pause()
        assert main.result is not None and main.result.partial is True
        assert any(v.sampling.samples_ns for v in main.result.variants)
        results = main.results_panel
        assert any("partial" in text.lower() for _, text in results.filled("warnings").query_one("WarningsPanel").items)
        assert "PARTIAL" in str(results.filled("stats").query_one("#stats-note").render())


@sync
async def test_sweep_runs_each_value_and_plots_slopes(make_app):
    app = make_app(samples=30)
    async with app.run_test(size=(140, 45)) as pilot:
        main = await ready(pilot)
        main.setup.options.query_one("#variants").deselect("broken")
        await pilot.press("escape", "w")
        await wait_until(
            pilot,
            lambda: type(app.screen).__name__ == "SweepScreen" and app.screen.query("#sweep-values"),
            what="sweep dialog",
        )
        app.screen.query_one("#sweep-values").value = "4, 1024"
        await pilot.pause()
        await pilot.press("enter")
        await run_to_end(pilot, key=None)
        sweep = main.result.sweep
        assert sweep.parameter == "size" and sweep.values == [4, 1024]
        assert set(sweep.medians_ns) == {"jit", "aot"}
        assert app.query_one("#tabs").active == "sweep" and app.query_one("SweepLines").sweep is sweep


@sync
async def test_sweep_dialog_rejects_invalid_values(make_app):
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        main = await ready(pilot)
        main.action_sweep()
        await wait_until(
            pilot,
            lambda: type(app.screen).__name__ == "SweepScreen" and app.screen.query("#sweep-values"),
            what="sweep dialog",
        )
        app.screen.query_one("#sweep-values").value = "4, 99999"
        await pilot.pause()
        await pilot.press("enter")
        assert type(app.screen).__name__ == "SweepScreen"
        assert "above the maximum" in str(app.screen.query_one("#sweep-error").render())
        await pilot.press("escape")
        assert main.runs.run_id == 0


@sync
async def test_run_error_is_shown_and_previous_result_kept(saved, scenario_dirs, tmp_path):
    runner = FakeRunner(saved)
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await ready(pilot)
        main = await run_to_end(pilot)
        first = main.result
        runner.fail = WorkerCrashed("the measuring process died (signal 6)")
        main.action_run()
        await run_to_end(pilot, key=None)
        assert type(app.screen).__name__ == "ErrorScreen"
        assert app.screen.error_title == "Measuring process crashed"
        assert app.last_error == ("Measuring process crashed", "the measuring process died (signal 6)")
        await pilot.press("escape")
        assert main.result is first  # previous results kept
        assert main.results_panel.filled("stats").query_one("#stats-table").row_count == len(first.variants)
        assert "failed" in str(app.query_one("#progress-status").render())


@sync
async def test_a_superseded_runs_late_answer_is_dropped(saved, scenario_dirs, tmp_path):
    """Run A is still measuring when run B starts (live mode does this); A ends last. Its result must
    not replace B's (the run_id check in the handlers)."""
    runner = FakeRunner(saved)
    gate_a, gate_b = threading.Event(), threading.Event()
    runner.gates = [gate_a, gate_b]
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        main = await ready(pilot)
        main.start_run(sweep=("size", [4, 8]))  # A: answers with the sweep fixture
        await wait_until(pilot, lambda: len(runner.requests) == 1, what="run A started")
        main.start_run()  # B: answers with the plain result
        gate_b.set()
        await main.runs.wait_for_end(30)
        await pilot.pause()
        assert main.result is not None and main.result.sweep is None
        gate_a.set()  # A's late RunDone arrives now
        await pilot.pause(0.5)
        assert main.result.sweep is None and main.runs.run_id == 2


@sync
async def test_screenshot_key_saves_svg_and_png(make_app, tmp_path):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        notifications = record_notifications(app)
        await pilot.press("escape", "s")
        await pilot.pause()
        shot = app.last_screenshot
        assert shot is not None and shot.exists() and shot.suffix == ".svg"
        assert shot.parent == tmp_path / "shots" and shot.name.startswith("tiny-sin-")
        assert "<svg" in shot.read_text()[:500]
        # said once the PNG is written too: both names and the folder
        told = lambda: [n for n in notifications if shot.name in n and "".join(n.splitlines()[1:]) == str(shot.parent)]  # noqa: E731
        await wait_until(pilot, told, what="the Saved toast")
        assert (shot.with_suffix(".png").name in told()[0]) == HAS_CAIRO
        if HAS_CAIRO:
            await wait_until(pilot, lambda: shot.with_suffix(".png").exists(), what="PNG beside the SVG")
        else:
            await pilot.pause(0.5)
            assert not shot.with_suffix(".png").exists()


@sync
async def test_live_mode_reruns_without_taking_the_keyboard(saved, scenario_dirs, tmp_path):
    """At 80x24 with live on, typing 3 then 2 into `size` makes 32, whatever the re-run does."""
    runner = FakeRunner(saved)
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        app.query_one("#live").value = True
        field = main.setup.form._field("size")
        field.focus()
        field.value = ""
        await pilot.press("3")
        await main.runs.wait_for_end(10)  # a live run after "3"
        await pilot.press("2")
        await pilot.pause()
        assert field.value == "32" and app.focused is field and main.view == "setup"
        await wait_until(pilot, lambda: runner.requests[-1].params["size"] == 32, what="the live run after 2")
        await main.runs.wait_for_end(10)
        assert app.focused is field
        field.value = "-3"  # an invalid value does not start a run
        await pilot.pause(1.0)
        assert runner.requests[-1].params["size"] == 32


@sync
async def test_a_live_re_run_shows_on_the_results_tab_while_setup_shows(saved, scenario_dirs, tmp_path):
    """At 80x24 the Setup half shows alone: a live re-run after a change says so on the Results tab,
    then that a new result is there, until the results are shown."""
    runner = FakeRunner(saved)
    gate = threading.Event()
    runner.gates = [gate]
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        results_tab = app.query_one("#view-results")
        app.query_one("#live").value = True
        field = main.setup.form._field("size")
        field.focus()
        field.value = "32"
        await wait_until(pilot, lambda: main.running, what="the live re-run")
        assert main.view == "setup" and not app.query_one("#results").display
        await wait_until(pilot, lambda: results_tab.label.plain == "Results · live re-run…", what="the re-run's sign")
        gate.set()
        await main.runs.wait_for_end(10)
        await wait_until(pilot, lambda: results_tab.label.plain == "Results · new result", what="the new result's sign")
        assert main.view == "setup" and app.focused is field  # the sign moves neither the view nor the focus
        main.split.show("results")
        await pilot.pause()
        assert results_tab.label.plain == "Results"


@sync
async def test_r_and_q_during_a_run_ask_first(saved, scenario_dirs, tmp_path):
    runner = FakeRunner(saved)
    gate = threading.Event()
    runner.gates = [gate]
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        await pilot.press("escape", "r")
        await wait_until(pilot, lambda: main.running, what="running")
        await pilot.press("r")
        assert type(app.screen).__name__ == "ConfirmScreen"
        await pilot.press("n")  # keep measuring
        assert main.running and main.runs.run_id == 1
        await pilot.press("q")
        assert type(app.screen).__name__ == "ConfirmScreen"
        await pilot.press("n")
        assert app.is_running
        gate.set()
        await main.runs.wait_for_end(10)


@sync
async def test_narrow_screen_collapses_panels_into_tabs(fake_runner, scenario_dirs, tmp_path):
    app = TuiperfApp(fake_runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        assert main.has_class("-narrow") and app.query_one("#view-tabs").display
        assert app.query_one("#sidebar").region.width == 80 and app.query_one("#results").region.width == 0
        await pilot.press("escape")
        await run_to_end(pilot)
        assert app.query_one("#results").region.width == 80 and app.query_one("#sidebar").region.width == 0
        await pilot.press("f2")
        await pilot.pause()
        assert app.query_one("#sidebar").region.width == 80


@sync
async def test_the_view_switch_comes_with_the_panels_and_ignores_a_stale_activation(
    fake_runner, scenario_dirs, tmp_path
):
    """The narrow screen's Setup/Results tabs are mounted with the results half they switch to (not
    in the first frame); an activation that is no longer the active tab (the new tabs' first, queued
    before a run showed Results) does not switch the view back."""
    from textual.widgets import Tabs

    app = TuiperfApp(fake_runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.main
        assert not main.panels_ready and not app.query("#view-tabs")
        main = await ready(pilot)
        view_tabs = app.query_one("#view-tabs", Tabs)
        assert view_tabs.active == "view-setup" and main.view == "setup"
        await pilot.press("escape")
        await run_to_end(pilot)
        assert main.view == "results" and view_tabs.active == "view-results"
        view_tabs.post_message(Tabs.TabActivated(view_tabs, view_tabs.query_one("#view-setup")))
        await pilot.pause()
        assert main.view == "results" and app.query_one("#results").region.width == 80
        await pilot.press("f2")  # the user's switch still works
        await wait_until(pilot, lambda: main.view == "setup", what="the setup half")
        assert view_tabs.active == "view-setup" and app.query_one("#sidebar").region.width == 80


@sync
async def test_every_command_is_bound_listed_in_help_and_in_the_palette(fake_runner, scenario_dirs, tmp_path):
    from tuiperf.tui.commands import COMMANDS, help_rows

    app = TuiperfApp(fake_runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        bound = {b.action for b in main.BINDINGS}
        titles = {c.title for c in app.get_system_commands(main)}
        help_text = " ".join(keys + " " + what for keys, what in help_rows())
        for command in COMMANDS:
            assert (command.action in bound) == bool(command.keys) and command.title in titles  # "": palette only
            if not command.action.startswith("show_tab"):  # the tab keys share one row, "1-6"
                assert (command.shown_keys if command.keys else command.title) in help_text
                assert command.help in help_text
            method = command.action.split("(")[0]
            assert callable(getattr(main, f"action_{method}")), command.action
        assert "Screenshot" not in titles  # Textual's own, which writes to ~/Downloads, is not offered
        await pilot.press("escape", "question_mark")
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("end")
        box = app.screen.query_one("#help-box")
        assert box.scroll_y == box.max_scroll_y  # the help scrolls to its end
        await pilot.press("escape")


@sync
async def test_mouse_runs_and_switches_tabs(fake_runner, scenario_dirs, tmp_path):
    app = TuiperfApp(fake_runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        main = await ready(pilot)
        assert await pilot.click("#run-button")
        await main.runs.wait_for_end(10)
        assert await pilot.click("#--content-tab-stats")
        await pilot.pause()
        assert app.query_one("#tabs").active == "stats"


def test_no_color_uses_distinct_markers(monkeypatch):
    from tuiperf.tui.widgets.plot_base import variant_marker

    monkeypatch.setenv("NO_COLOR", "1")
    assert len({variant_marker(i) for i in range(4)}) == 4
    monkeypatch.delenv("NO_COLOR")
    assert variant_marker(0) == variant_marker(1) == "braille"


@sync
async def test_a_malformed_result_is_reported_not_fatal(fake_runner, scenario_dirs, tmp_path):
    app = TuiperfApp(fake_runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        main.show_result({"variants": [{"ok": True}]})  # not a RunResult at all
        await pilot.pause()
        assert app.last_error[0] == "Cannot display this result" and app.is_running


@sync
async def test_resizing_to_80x24_keeps_focus_on_a_visible_widget(fake_runner, scenario_dirs, tmp_path):
    app = TuiperfApp(fake_runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(200, 60)) as pilot:
        main = await ready(pilot)
        await run_to_end(pilot)
        await pilot.resize_terminal(80, 24)
        await wait_until(
            pilot,
            lambda: (
                main.has_class("-narrow")
                and app.focused is not None
                and app.query_one("#results") in app.focused.ancestors
            ),
            what="focus in results",
        )
        await pilot.press("4")  # a single-key binding works: nothing hidden swallowed it
        assert app.query_one("#tabs").active == "stats"


class CachedFirst(FakeRunner):
    """A list from the catalog cache at once; the loader's answer only when the test allows it."""

    def __init__(self, saved) -> None:
        super().__init__(saved)
        self.release = threading.Event()

    def cached_catalog(self, scenario_dirs=None):
        return super().catalog(scenario_dirs)

    def catalog(self, scenario_dirs=None):
        self.release.wait(30)
        return super().catalog(scenario_dirs)


def test_before_the_panels_only_commands_that_need_none_of_them_are_enabled():
    from types import SimpleNamespace

    from tuiperf.tui.screens.main import MainScreen

    shell = SimpleNamespace(runner=None, scenario_dirs=[], history_path=None, report_error=print, tell_error=print)
    screen = MainScreen(shell)  # type: ignore[arg-type]  # the parts of the app a screen uses before mounting
    assert [screen.check_action(a, ()) for a in ("run", "sweep", "show_tab", "quit", "help")] == [
        None,  # shown, disabled (for the few frames until the panels are mounted)
        None,
        None,
        True,
        True,
    ]
    screen.panels_ready = True
    assert screen.check_action("run", ()) is True


@sync
async def test_a_scenario_chosen_from_the_cached_list_before_the_panels_gets_its_launch_values(
    saved, scenario_dirs, tmp_path
):
    from tui_helpers import fast_app

    runner = CachedFirst(saved)
    app = fast_app(runner, scenario_dirs, tmp_path / "shots", scenario="tiny-sin", params={"size": 12})
    async with app.run_test() as pilot:
        main = app.main
        await wait_until(pilot, lambda: main.panels_ready and main.setup.form.specs, what="panels and form")
        assert main.catalog is not None and runner.release.is_set() is False  # only the cached list so far
        assert main.setup.scenario.id == "tiny-sin"
        assert main.setup.form.raw_values()["size"] == "12"
        runner.release.set()  # the loader's answer brings the devices
        await wait_until(pilot, lambda: main.devices, what="devices")
        assert main.setup.options.device == saved["devices"][0].id


@sync
async def test_the_breakdown_names_the_stage_that_explains_a_gap_reconciled_off_the_ui_thread(
    saved, scenario_dirs, tmp_path
):
    from rich.console import Console

    from tuiperf.results import document

    base_paths = {"call": 10_000.0, "jit": 8_000.0, "flat_jit": 7_000.0, "flat_leaves": 6_500.0}
    base_paths |= {"noop_jit": 3_000.0, "noop_execute": 2_500.0}
    slow_paths = {**base_paths, "call": 13_000.0, "jit": 11_000.0}  # 3 µs more jit dispatch
    variants = [
        factories.variant("base", samples=[10_000.0] * 31, breakdown=factories.breakdown(base_paths)),
        factories.variant("slow", samples=[13_500.0] * 31, breakdown=factories.breakdown(slow_paths)),
    ]
    result = document.run_result(factories.header(), variants, duration_s=1.0)
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        main = await ready(pilot, scenario=None)
        main.show_result(result)
        main.action_show_tab("breakdown")
        await app.plots_settled()
        console = Console(width=140, record=True, no_color=True, file=open("/dev/null", "w"))  # noqa: SIM115
        console.print(app.query_one("#breakdown-bars").content)
        text = console.export_text()
    assert "the gap to base, by stage" in text
    assert (
        "slow +3.50 µs: jit dispatch +3.00 µs, 86 % of it; the other stages within noise; unexplained +500 ns" in text
    )
    assert "why, against base" in text and "slow's jit dispatch (+3.00 µs) explains 86 % of the gap" in " ".join(
        text.split()
    )


@sync
async def test_only_the_launched_app_freezes_what_start_up_built(saved, scenario_dirs, tmp_path):
    import gc

    thresholds = gc.get_threshold()
    try:
        for freeze, grows in ((False, False), (True, True)):
            gc.unfreeze()
            app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path, freeze_gc=freeze)
            async with app.run_test() as pilot:
                await ready(pilot, scenario=None)
                assert (gc.get_freeze_count() > 0) is grows
                # full collections only by the app once frozen (at idle moments), Python's default otherwise
                assert gc.get_threshold() == (*thresholds[:2], 2**30 if freeze else thresholds[2])
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_quitting_within_the_first_frames_leaves_no_error(saved, scenario_dirs, tmp_path):
    runner = CachedFirst(saved)  # the list at once, so the panels are mounted while the app closes

    async def leave_at_once(pilot) -> None:
        while not pilot.app.main.catalog:  # the list is shown: _build_panels is on its way
            await pilot.pause(0)
        runner.release.set()  # the loader's thread may end (a closing app waits for it)
        pilot.app.exit()

    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    app.run(headless=True, size=(80, 24), auto_pilot=leave_at_once)
    assert app.return_code == 0


@sync
async def test_a_result_fills_the_tab_on_screen_at_once_and_the_others_when_shown(fake_runner, scenario_dirs, tmp_path):
    """Filling all six tabs in the run's handler stalled the event loop when a run ended; a hidden tab
    filled in the background laid the whole screen out (Textual does that for any new size)."""
    from tuiperf.tui.view import view_of

    app = TuiperfApp(fake_runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        main = await ready(pilot)
        main = await run_to_end(pilot)
        results, table, n = main.results_panel, app.query_one("#stats-table"), len(main.result.variants)
        await pilot.pause(0.3)
        assert table.row_count == 0  # not shown since the run: not filled
        await pilot.press("4")
        assert table.row_count == n  # showing it filled it first
        results.show(view_of(None))
        assert table.row_count == 0  # on screen: filled at once
        await pilot.press("1")
        results.show(view_of(main.result))
        await pilot.pause(0.3)
        assert table.row_count == 0  # hidden: still the last result it showed
        await pilot.click("#--content-tab-stats")  # a tab clicked is filled as it is shown
        assert table.row_count == n


@sync
async def test_a_tab_that_cannot_show_a_result_is_reported_and_the_app_stays_up(
    fake_runner, scenario_dirs, tmp_path, monkeypatch
):
    from tuiperf.tui.widgets.profile_table import ProfileTable

    app = TuiperfApp(fake_runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        main = await ready(pilot)

        def broken(self, result, prepared=None):
            raise ValueError("no profile here")

        monkeypatch.setattr(ProfileTable, "show", broken)
        main = await run_to_end(pilot)
        await pilot.press("5")
        await wait_until(pilot, lambda: app.last_error is not None, what="the error reported")
        assert app.last_error == ("Cannot display this result", "the profile tab: ValueError: no profile here")
        stats = main.results_panel.filled("stats").query_one("#stats-table")
        assert app.is_running and stats.row_count == len(main.result.variants)


@sync
async def test_a_catalog_reload_that_changes_nothing_rebuilds_nothing(saved, scenario_dirs, tmp_path):
    # the fresh catalog arrives while a run may be streaming: rebuilding the same list and device
    # picker relaid the whole screen out (60 ms at 160x48)
    from textual.widgets import Select

    from tuiperf.tui.widgets.scenario_list import ScenarioList

    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test() as pilot:
        main = await ready(pilot)
        scenario_list, device = main.setup.query_one(ScenarioList), main.setup.options.query_one("#device", Select)
        rebuilds, device_sets = [], []
        scenario_list._rebuild = lambda **kw: rebuilds.append(kw)  # type: ignore[method-assign]
        device.set_options = lambda options: device_sets.append(list(options))  # type: ignore[method-assign]
        same = copy.deepcopy(main.catalog)
        main.setup.set_catalog(same, copy.deepcopy(main.devices))
        assert rebuilds == [] and device_sets == []
        changed = msgspec.structs.replace(same, broken=[])
        main.setup.set_catalog(changed, [*main.devices, DeviceInfo("gpu:0", "gpu", "gpu", 0)])
        assert len(rebuilds) == 1 and [value for _, value in device_sets[0]] == ["cpu:0", "gpu:0"]


@contextlib.contextmanager
def layouts_of_the_screen(app):
    """Every layout of the app's screen while the block runs (Textual's public signal for them)."""
    layouts: list[int] = []
    signal = app.screen.screen_layout_refresh_signal
    signal.subscribe(app, lambda screen: layouts.append(1), immediate=True)
    try:
        yield layouts
    finally:
        signal.unsubscribe(app)


@sync
async def test_a_result_shaped_like_the_last_one_is_shown_without_laying_the_screen_out(saved, tmp_path):
    """One layout of the screen costs 30-110 ms on the 2-core machine: a run that ends, or a result
    like the one shown (more warnings included), updates its lines in place."""
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(130, 40)) as pilot:
        main = await ready(pilot)
        main.show_result(saved["result"])
        await app.plots_settled()
        await pilot.pause()
        faster = copy.deepcopy(saved["result"])
        first = faster.variants[0]
        stats = msgspec.structs.replace(first.sampling.stats, median_ns=1234.0)
        faster.variants[0] = msgspec.structs.replace(
            first, sampling=msgspec.structs.replace(first.sampling, stats=stats)
        )
        faster.warnings = [*faster.warnings, *(f"extra warning {i}" for i in range(8))]
        with layouts_of_the_screen(app) as layouts:
            main.show_result(faster)
            await app.plots_settled()
            await pilot.pause()
        assert layouts == []
        assert "1.23 µs" in str(app.query_one("#estimates").content)  # the new figures are on screen all the same
        assert main.results_panel.warnings_label.strip() == "Warnings (13)"


@sync
async def test_warnings_that_change_on_a_hidden_tab_get_their_height_when_it_is_shown(saved, tmp_path):
    from textual.widgets import Static

    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(130, 40)) as pilot:
        main = await ready(pilot)
        main.show_result(saved["result"])
        main.action_show_tab("warnings")
        await pilot.pause()
        body = app.query_one("#warnings-body", Static)
        before = body.size.height
        main.action_show_tab("histogram")
        await pilot.pause()
        more = copy.deepcopy(saved["result"])  # the same shape (nothing else resized), more warnings
        more.warnings = [*more.warnings, *(f"extra warning {i}" for i in range(8))]
        main.show_result(more)  # while their tab is hidden
        main.action_show_tab("warnings")
        await pilot.pause()
        needed = body.get_content_height(body.parent.size, app.size, body.size.width)
        assert needed > before and body.size.height == needed


@sync
async def test_the_first_run_starts_in_the_lines_its_plan_laid_out(saved, scenario_dirs, tmp_path):
    """Before any result the progress block shows the run the form describes, a waiting row per
    variant: the first run's start then redraws lines and lays nothing out (growing the block from
    one line laid the screen out, 40-80 ms at 160 x 48)."""
    runner = FakeRunner(saved)
    gate = threading.Event()
    runner.gates.append(gate)
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(130, 40)) as pilot:
        main = await ready(pilot)
        estimates, header = app.query_one("#estimates"), app.query_one("#run-header")
        await wait_until(pilot, lambda: "waiting" in str(estimates.content), what="the plan")
        variants = main.setup.options.variants
        assert [line.split()[0] for line in str(estimates.content).splitlines()] == variants == ["jit", "aot", "broken"]
        assert all(line.split()[-1] == "waiting" for line in str(estimates.content).splitlines())
        assert str(header.content).startswith("tiny-sin · ") and "size=8" in str(header.content)
        plans: list[tuple[str, list[str]]] = []
        show_plan = main.results_panel.show_plan
        main.results_panel.show_plan = lambda header, order: (plans.append((header, order)), show_plan(header, order))
        size = next(field for field in main.setup.form.query("Input") if (field.id or "").endswith("-size"))
        for typed in ("", "1", "16"):  # keys typed: an empty field is not a valid value yet
            size.value = typed
        await wait_until(pilot, lambda: "size=16" in str(header.content), what="the plan for the new size")
        assert [len(order) for _, order in plans] == [3]  # once, after the typing: no row vanished
        planned = str(header.content)
        variants_list = app.query_one("#variants")
        variants_list.deselect_all()  # nothing to run: the plan goes, no stale rows
        await wait_until(pilot, lambda: not str(estimates.content), what="the plan cleared")
        variants_list.select_all()
        await wait_until(pilot, lambda: str(estimates.content).count("waiting") == 3, what="the plan back")
        await wait_until(pilot, lambda: estimates.size.height == 3, what="the plan laid out")
        await pilot.pause()  # a layout the plan's return left pending happens here, not in the block (under load)
        with layouts_of_the_screen(app) as layouts:
            assert main.start_run()
            await wait_until(pilot, lambda: str(estimates.content).count("done") == 2, what="the live rows")
            await pilot.pause()
        assert layouts == []
        assert str(header.content) == planned
        gate.set()
        await main.runs.wait_for_end(30)


@sync
async def test_a_form_being_rebuilt_is_not_read(saved, scenario_dirs, tmp_path):
    """Between removing a scenario's fields and mounting the next one's, reading the form raised
    NoMatches (the plan's timer met it): the form says it is being built, nothing runs or crashes."""
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(130, 40)) as pilot:
        main = await ready(pilot)
        form = main.setup.form
        async with form._rebuilding:  # as while ParamForm.set_params swaps the fields
            assert main.setup.problems() == ["the form for tiny-sin is still being built"]
            main._show_plan()
            assert not main.start_run() and "being built" in (main.blocked_reason or "")
        await pilot.pause()
        assert app.is_running and "waiting" in str(app.query_one("#estimates").content)  # the plan stayed


def test_a_full_collection_waits_for_the_user_to_be_away():
    """A full collection walked every object a result's tables and plots made (130-400 ms of the UI
    thread): Python ran one every 100 middle-aged collections, in the middle of the keys that made
    them; they were the slowest keys in `benchmarks/ui_responsiveness.py` (0.35-0.5 s)."""
    from tuiperf.tui.app import full_collection_due

    assert not full_collection_due(idle_s=0.2, middle_collections=150)  # keys are being pressed
    assert full_collection_due(idle_s=2.5, middle_collections=150)
    assert not full_collection_due(idle_s=60.0, middle_collections=40)  # too little aged since the last
    assert not full_collection_due(idle_s=9.0, middle_collections=150, busy=True)  # a run streaming
    assert full_collection_due(idle_s=0.0, middle_collections=1000)  # never away: collected anyway


@pytest.fixture
def collected(monkeypatch) -> list[int]:
    """The full collections the app asks for (none run), with enough aged for one to be due."""
    from tuiperf.tui import app as app_module

    asked: list[int] = []
    monkeypatch.setattr(app_module.gc, "collect", lambda generation=2: asked.append(generation) or 0)
    monkeypatch.setattr(app_module.gc, "get_count", lambda: (0, 0, 150))
    return asked


@sync
async def test_a_key_or_a_click_counts_as_the_user_being_there(saved, scenario_dirs, tmp_path, collected):
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test() as pilot:
        main = await ready(pilot, scenario=None)
        await wait_until(pilot, lambda: main.feed.have_devices, what="devices")  # start-up over: not busy
        app._last_input -= 10  # away for ten seconds
        app._collect_when_idle()
        assert collected == [2]
        await pilot.press("right")
        app._collect_when_idle()
        assert collected == [2]  # a key: not away
        app._last_input -= 10
        await pilot.click("#results")
        app._collect_when_idle()
        assert collected == [2]  # a click: not away


@sync
async def test_a_full_collection_waits_for_a_result_just_shown_to_be_drawn(saved, scenario_dirs, tmp_path, collected):
    """GIVEN the user away WHEN a run ends (its result shown, its plots still being drawn) THEN no full
    collection comes until the screen has been still a while: one came at the next second's check, in
    the middle of a sweep's end (a 156 ms stall, `benchmarks/ui_responsiveness.py --only lag`)."""
    from tuiperf.tui import app as app_module

    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test() as pilot:
        main = await ready(pilot, scenario=None)
        await wait_until(pilot, lambda: main.feed.have_devices, what="devices")
        app._last_input -= 10  # away for ten seconds
        main.show_result(saved["result"])  # (as a run's end shows it)
        app._collect_when_idle()
        assert collected == []
        main.shown_at -= app_module.IDLE_FOR_FULL_COLLECTION_S  # the screen still since
        app._collect_when_idle()
        assert collected == [2]


@sync
async def test_the_header_says_devices_are_being_listed_until_they_are(saved, tmp_path):
    """The header said "0 devices" for the first ~3 s, while the loader process imported JAX."""
    import threading

    listed = threading.Event()

    class SlowDevices(FakeRunner):
        def cached_catalog(self, scenario_dirs=None):
            return self.catalog(scenario_dirs)

        def devices(self):
            listed.wait(30)
            return super().devices()

    app = TuiperfApp(SlowDevices(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        main = app.main
        await wait_until(pilot, lambda: main.catalog is not None, what="the cached list")
        assert main.sub_title.endswith(" · listing devices…") and "0 devices" not in main.sub_title
        listed.set()
        await wait_until(pilot, lambda: main.feed.have_devices, what="the devices")
        assert main.sub_title.endswith(f" · {len(saved['devices'])} device" + "s" * (len(saved["devices"]) != 1))


@sync
async def test_the_header_says_devices_were_not_listed_when_the_loader_fails(saved, tmp_path):
    from tuiperf.common.errors import TuiperfError

    class NoDevices(FakeRunner):
        def cached_catalog(self, scenario_dirs=None):
            return self.catalog(scenario_dirs)

        def devices(self):
            raise TuiperfError("the loader process ended")

    app = TuiperfApp(NoDevices(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        main = app.main
        await wait_until(pilot, lambda: main.sub_title.endswith(" · devices not listed"), what="the header")
        assert app.last_error is not None
