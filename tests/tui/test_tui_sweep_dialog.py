"""The sweep dialog keeps what the user typed and never offers one parameter as both axes."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Select
from textual.widgets.select import InvalidSelectValueError
from tui_helpers import FakeRunner, ready, sync, wait_until

from tuiperf.tui.app import TuiperfApp


@sync
async def test_choosing_a_parameter_keeps_typed_values_and_the_second_axis_is_never_the_first(saved, tmp_path):
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        await pilot.press("w")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SweepScreen", what="the sweep dialog")
        dialog = app.screen
        first, second = dialog.query_one("#sweep-param", Select), dialog.query_one("#sweep-param-2", Select)
        values, values_2 = dialog.query_one("#sweep-values", Input), dialog.query_one("#sweep-values-2", Input)
        assert first.value == "size"
        with pytest.raises(InvalidSelectValueError):
            second.value = "size"  # the first parameter is not offered as the second
        values.value = "3, 5, 7"
        values_2.value = "0.5, 2"
        await pilot.pause()
        second.value = "scale"  # "and over" chosen after its values were typed
        await pilot.pause()
        assert (values.value, values_2.value) == ("3, 5, 7", "0.5, 2")
        first.value = "scale"  # the first axis becomes the second's: the second is cleared, not doubled
        await pilot.pause()
        assert second.is_blank() and values.value == "3, 5, 7"
        with pytest.raises(InvalidSelectValueError):
            second.value = "scale"
        second.value = "size"
        await pilot.pause()
        await pilot.press("escape")
        assert app.screen is main
