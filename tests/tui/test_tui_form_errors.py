"""A parameter's error line follows the field at 80x24: shown while the value is wrong, gone once it is right."""

from __future__ import annotations

import asyncio
import time

from tui_helpers import ready, sync


async def laid_out(widget, region, timeout: float = 5.0) -> bool:
    """Whether the screen lays ``widget`` out at ``region`` by itself (``pilot.pause`` would force a
    layout that a terminal never gets: the stale error line was seen only there)."""
    deadline = time.monotonic() + timeout
    while widget.region != region and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    return widget.region == region


@sync
async def test_clearing_a_number_and_typing_a_valid_one_clears_the_error_on_screen(make_app, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot, "conv-transpose-3d")  # a long description: the form is scrolled to
        form = main.setup.form
        field, below = form._field("batch"), form._field("c_in")
        for _ in range(4):  # the list, its filter, the description when it scrolls, the field
            if app.focused is not field:
                await pilot.press("tab")
        assert app.focused is field
        await pilot.pause()
        before = below.region
        await pilot.press("end", "backspace")
        assert form.errors["batch"].startswith("'' is not an integer")
        assert await laid_out(below, before.translate((0, 1))), "the error line did not push the next field down"
        await pilot.press("3")
        assert form.valid and field.value == "3"
        assert await laid_out(below, before), "the error line stayed on screen after a valid value"
