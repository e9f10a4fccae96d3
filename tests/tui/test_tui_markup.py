"""Text that looks like Rich markup, in a scenario, a result or typed into any field, is shown as
itself: nothing crashes, nothing goes blank, every key still answers."""

from __future__ import annotations

import copy

import msgspec
from tui_helpers import FakeRunner, ready, run_to_end, sync, wait_until

from tuiperf.contract.catalog import ParamSpec, ScenarioEntry, VariantEntry
from tuiperf.tui.app import TuiperfApp

MARKUP = "[/]"
LINK = "[link=file:///etc/passwd]x"


def marked_saved(saved):
    saved = copy.deepcopy(saved)
    catalog = saved["catalog"]
    catalog.scenarios.append(
        ScenarioEntry(
            id="marked",
            title=MARKUP,
            question=LINK,
            path="tests/tui/scenarios/marked.py",
            params=[
                ParamSpec(name="n", kind="int", default=8, help=MARKUP, allowed="integer 1..64", min=1, max=64),
                ParamSpec(
                    name="c", kind="choice", default=MARKUP, help=LINK, allowed="one of [/], b", choices=[MARKUP, "b"]
                ),
            ],
            variants=[
                VariantEntry(name=MARKUP, equivalent=True, doc=LINK),
                VariantEntry(name=LINK, equivalent=False, doc=""),
            ],
        )
    )
    saved["result"].variants = [
        msgspec.structs.replace(v, name=MARKUP) if v.name == "jit" else v for v in saved["result"].variants
    ]
    saved["result"].scenario.id = "marked"
    return saved


@sync
async def test_markup_in_a_scenario_a_result_and_every_text_field_is_text(saved, scenario_dirs, tmp_path):
    app = TuiperfApp(FakeRunner(marked_saved(saved)), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot, "marked")
        await run_to_end(pilot)
        assert main.result is not None and main.result.variant(MARKUP) is not None
        for tab in ("stats", "breakdown", "profile", "warnings", "histogram"):
            main.action_show_tab(tab)
            await pilot.pause()
        await pilot.press("b")  # the baseline named "[/]"
        await pilot.pause()

        field = main.setup.form.query_one("Input")
        for typed in (MARKUP, LINK):
            field.focus()
            field.value = typed
            await pilot.pause()
            await pilot.press("ctrl+r")  # a run with an invalid value: its message quotes what was typed
            await pilot.pause()
        field.value = "8"
        await pilot.press("escape")

        await pilot.press("w")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SweepScreen", what="the sweep dialog")
        app.screen.query_one("#sweep-values").value = f"{MARKUP}, {LINK}"
        await pilot.pause()
        await pilot.press("escape")

        await pilot.press("n")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "TemplateScreen", what="the new-scenario dialog")
        app.screen.query_one("#new-name").value = MARKUP
        await pilot.press("enter")
        await pilot.pause()
        app.screen.query_one("#new-name").value = LINK
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("escape")

        await pilot.press("question_mark")  # keys still answer
        await wait_until(pilot, lambda: type(app.screen).__name__ == "HelpScreen", what="the help")
        await pilot.press("escape")
        assert app.is_running and app.return_code is None
