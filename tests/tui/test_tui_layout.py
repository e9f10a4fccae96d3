"""The setup side uses a wide screen and keeps the parameters in view: the left panel grows with the
terminal's width (within bounds), and a long scenario description cannot push the form below the fold."""

from __future__ import annotations

import copy

import msgspec
import pytest
from tui_helpers import FakeRunner, ready, sync

from tuiperf.tui.app import TuiperfApp

LONG = "\n".join(f"Line {i} of a scenario description that goes on and on." for i in range(1, 31))


def long_description(saved):
    replay = copy.deepcopy(saved)
    catalog = replay["catalog"]
    scenarios = [msgspec.structs.replace(s, question=LONG) if s.id == "tiny-sin" else s for s in catalog.scenarios]
    replay["catalog"] = msgspec.structs.replace(catalog, scenarios=scenarios)
    return replay


@pytest.mark.parametrize(("width", "sidebar"), [(120, 50), (160, 50), (200, 60), (260, 72)])
@sync
async def test_the_left_panel_grows_with_the_width_within_bounds(saved, scenario_dirs, tmp_path, width, sidebar):
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(width, 60)) as pilot:
        main = await ready(pilot)
        assert main.query_one("#sidebar").outer_size.width == sidebar


@pytest.mark.parametrize("size", [(200, 60), (80, 24)])
@sync
async def test_a_30_line_description_leaves_the_parameters_in_view(saved, scenario_dirs, tmp_path, size):
    app = TuiperfApp(FakeRunner(long_description(saved)), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=size) as pilot:
        main = await ready(pilot)
        main.split.show("setup")
        await pilot.pause()
        setup = main.query_one("#setup")
        first = main.setup.form.query("Input").first()
        assert main.query_one("#sidebar").outer_size.width == size[0] if size[0] < 110 else True
        box = main.query_one("#info-box")
        assert "Line 30 of" in str(main.query_one("#info").content) and box.max_scroll_y > 0  # the rest scrolls
        assert box.allow_focus()  # a tab stop, to scroll it by keys
        assert setup.scroll_y == 0 and first.region.bottom <= setup.content_region.bottom, (first.region, setup.region)


@sync
async def test_a_short_description_is_no_tab_stop(saved, scenario_dirs, tmp_path):
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=scenario_dirs, screenshots_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot)
        assert not main.query_one("#info-box").allow_focus()
