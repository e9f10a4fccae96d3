"""Mouse and keyboard agree: `tuiperf serve` users drive the app with the mouse, and a click on a
scenario used to move focus into its first parameter field, so the next `r` or `w` was typed into
the field ("✗ 'w' is not an integer") instead of running or sweeping."""

from __future__ import annotations

from tui_helpers import FakeRunner, ready, sync, wait_until

from tuiperf.tui.app import TuiperfApp


@sync
async def test_a_click_on_a_scenario_selects_it_and_the_next_key_runs(saved, tmp_path):
    runner = FakeRunner(saved)
    app = TuiperfApp(runner, scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        options = main.setup.scenario_list.options
        assert await pilot.click(options, offset=(2, 0))  # the first scenario's id line
        await pilot.pause()
        assert app.focused is options  # selected, not opened: focus stays on the list
        assert main.setup.scenario is not None and main.setup.scenario.id == "tiny-sin"
        await pilot.press("r")
        await wait_until(pilot, lambda: runner.requests, timeout=5, what="a run started by r after the click")
        await main.runs.wait_for_end(10)
        assert main.setup.form.errors == {}  # nothing typed into a field


@sync
async def test_a_double_click_or_enter_opens_the_form(saved, tmp_path):
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        options = main.setup.scenario_list.options
        assert await pilot.double_click(options, offset=(2, 0))
        await pilot.pause()
        assert app.focused is not None and app.focused.id == "p1-size"
        options.focus()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is not None and app.focused.id == "p1-size"


@sync
async def test_single_key_commands_work_after_a_click_anywhere_but_a_field(saved, tmp_path):
    """A click on each part of the screen that is not a text field, then `x`: the export dialog opens."""
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        main.show_result(saved["result"])
        await pilot.pause()
        # the list itself is test_a_click_on_a_scenario_selects_it_and_the_next_key_runs's
        for target in ("#info", "#run-button", "#--content-tab-stats", "#stats-table"):
            app.query_one(target).scroll_visible(animate=False)
            await pilot.pause()
            assert await pilot.click(target), target
            await pilot.pause()
            await pilot.press("x")
            await wait_until(pilot, lambda: app.screen is not main, timeout=5, what=f"Export after a click on {target}")
            assert type(app.screen).__name__ == "ExportScreen", target
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is main, what="back to the main screen")
