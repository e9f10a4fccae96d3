"""Focus must be visible without colour: with NO_COLOR every shade is a grey, and focus and selection
differed by one grey shade, so a new user typed into what looked like a field and ran commands."""

from __future__ import annotations

from typing import Any

from textual.geometry import Region
from textual.widget import Widget
from tui_helpers import FakeRunner, ready, sync

from tuiperf.tui.app import TuiperfApp


def shapes(widget: Widget) -> list[tuple[str, bool, bool, bool]]:
    """What the widget and everything in it draw, without colour: each segment's text and whether it is
    reversed, bold or underlined (what a terminal without colour still shows)."""
    out = []
    for node in [widget, *widget.walk_children(Widget)]:
        if not node.display or not node.size.area:
            continue
        for strip in node.render_lines(Region(0, 0, node.size.width, node.size.height)):
            for segment in strip:
                style = segment.style
                attrs = (bool(style and style.reverse), bool(style and style.bold), bool(style and style.underline))
                out.append((segment.text, *attrs))
    return out


async def focus_shows(pilot: Any, widget: Widget) -> bool:
    """Whether the widget draws differently focused and not (colour aside)."""
    screen = widget.screen
    screen.set_focus(None)
    await pilot.pause()
    blurred = shapes(widget)
    widget.focus()
    await pilot.pause()
    assert screen.focused is widget
    return shapes(widget) != blurred


@sync
async def test_every_focusable_widget_shows_focus_without_colour(saved, tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.no_color
        main = await ready(pilot)
        main.show_result(saved["result"])
        await pilot.pause()
        checked, invisible = [], []
        for tab in ("stats", "breakdown", "profile"):  # focusable widgets inside the result tabs too
            main.action_show_tab(tab)
            await pilot.pause()
            for widget in main.focus_chain:
                name = f"{type(widget).__name__}#{widget.id}"
                if name in checked or not widget.region.area:
                    continue
                checked.append(name)
                if not await focus_shows(pilot, widget):
                    invisible.append(name)
        assert len(checked) >= 10
        assert invisible == []


def test_snapshot_focus_without_colour(snap_compare, saved, tmp_path, monkeypatch):
    """80x24 without colour: the focused Run button is drawn reversed, the highlighted scenario bold."""
    monkeypatch.setenv("NO_COLOR", "1")

    async def run_before(pilot) -> None:
        main = await ready(pilot)
        main.query_one("#run-button").focus()
        await pilot.pause(0.2)
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()

    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
