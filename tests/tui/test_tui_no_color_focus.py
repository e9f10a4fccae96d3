"""Focus must be visible without colour: with NO_COLOR every shade is a grey, and focus and selection
differed by one grey shade, so a new user typed into what looked like a field and ran commands."""

from __future__ import annotations

from typing import Any

from drawn import cells_in
from textual.geometry import Region
from textual.widget import Widget
from tui_helpers import FakeRunner, ready, sync, wait_until

from tuiperf.tui.app import TuiperfApp
from tuiperf.tui.screens.error import ErrorScreen


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


async def drawn_focus_marks(pilot: Any, screen: Any, steps: int = 60) -> tuple[list[str], list[str]]:
    """Tab through ``screen`` as a user does; for each widget focused, whether the screen as drawn (its
    children over it, a dialog's border beside it) differs within the widget's region from the same
    screen with nothing focused. The widgets walked, and those whose focus does not show."""
    walked: list[str] = []
    invisible: list[str] = []
    for _ in range(steps):
        await pilot.press("tab")
        await pilot.pause()
        widget = screen.focused
        assert widget is not None
        name = f"{type(widget).__name__}#{widget.id}"
        if name in walked:
            if name == walked[0]:
                break  # round the chain once
            continue
        walked.append(name)
        region = widget.region
        focused = cells_in(pilot.app, region)
        screen.set_focus(None)
        await pilot.pause()
        blurred = cells_in(pilot.app, region)
        screen.set_focus(widget)  # the next Tab's press waits for it
        if focused == blurred:
            invisible.append(name)
    return walked, invisible


def _long_questions_app(saved: Any, tmp_path: Any) -> TuiperfApp:
    """The app at 80x24 whose scenarios' questions scroll in the description box."""
    import msgspec

    long = " ".join(["A question long enough to scroll in the description box at 80 by 24."] * 12)
    catalog = saved["catalog"]
    scenarios = [msgspec.structs.replace(s, question=long) for s in catalog.scenarios]
    runner = FakeRunner({**saved, "catalog": msgspec.structs.replace(catalog, scenarios=scenarios)})
    return TuiperfApp(runner, scenario_dirs=[], screenshots_dir=tmp_path)


@sync
async def test_tab_through_the_explorer_at_80x24_shows_focus_without_colour(saved, tmp_path, monkeypatch):
    """The screen as the terminal draws it: a scrolling description box marked focused by a bar that its
    text covered showed nothing, and after Tab out of the list a user typed `x` believing they were in a
    field."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = _long_questions_app(saved, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        main.setup.scenario_list.options.focus()
        await pilot.pause()
        walked, invisible = await drawn_focus_marks(pilot, main)
        assert "DescriptionBox#info-box" in walked and "Button#run-button" in walked
        assert invisible == []


@sync
async def test_tab_through_the_result_tabs_at_80x24_shows_focus_without_colour(saved, tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = _long_questions_app(saved, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        main.show_result(saved["result"])
        await pilot.press("f2")  # the Results side at 80 columns
        for tab in ("breakdown", "stats", "profile"):
            main.action_show_tab(tab)
            await pilot.pause()
            walked, invisible = await drawn_focus_marks(pilot, main)
            assert len(walked) >= 2, walked
            assert invisible == [], tab


@sync
async def test_tab_through_the_dialogs_at_80x24_shows_focus_without_colour(saved, tmp_path, monkeypatch):
    """Each key's dialog, and an error with a message long enough to scroll."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = _long_questions_app(saved, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        for key, least in (("w", 3), ("question_mark", 1), ("error", 2)):  # x's: a choice and a field, as above
            if key == "error":
                app.push_screen(ErrorScreen("Run failed", "\n".join(f"line {i} of the error" for i in range(40))))
            else:
                await pilot.press(key)
            await wait_until(pilot, lambda: app.screen is not main, what=f"the dialog of {key}")
            await pilot.pause()
            walked, invisible = await drawn_focus_marks(pilot, app.screen)
            assert len(walked) >= least and invisible == [], (key, walked, invisible)
            if key == "question_mark":  # the help box's left edge was a solid column of "█"
                box = app.screen.query_one("#help-box")
                assert "█" not in {row[0][0] for row in cells_in(app, box.region)}
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is main, what="back to the main screen")


@sync
async def test_a_button_that_cannot_be_pressed_is_told_apart_without_colour(saved, tmp_path, monkeypatch):
    """Run, Sweep and Cancel were all drawn bold in grey, Cancel disabled by a shade alone."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        run, cancel = app.query_one("#run-button"), app.query_one("#cancel-button")
        run.scroll_visible(animate=False)
        await pilot.pause()
        assert not run.disabled and cancel.disabled

        def marks(button: Any) -> set[tuple[bool, ...]]:
            return {cell[1:] for row in cells_in(app, button.region) for cell in row if cell[0].strip()}

        assert marks(run) == {(False, True, False, False)}  # bold
        assert marks(cancel) == {(False, False, False, True)}  # struck through


@sync
async def test_a_scrollbar_is_drawn_as_a_bar_without_colour(saved, tmp_path, monkeypatch):
    """The Statistics tab at 80 columns scrolls sideways; in grey its scrollbar's thumb had the
    background's shade, so all that showed was the partial-block glyph at its end: a stray "▉"
    mid-screen."""
    import io

    from rich.console import Console
    from rich.segment import Segment

    monkeypatch.setenv("NO_COLOR", "1")
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        main.show_result(saved["result"])
        await pilot.press("f2")
        main.action_show_tab("stats")
        await pilot.pause()
        grid = main.query_one("#stats-table")
        assert grid.max_scroll_x > 0  # wider than 80 columns: a horizontal scrollbar under it
        y = grid.region.bottom - 1
        console = Console(width=80, height=24, file=io.StringIO(), force_terminal=True, color_system="truecolor")
        update = app.screen._compositor.render_update(full=True)  # what App.export_screenshot draws
        line = list(Segment.split_lines(console.render(update)))[y]

        def grey(color: Any) -> float:  # what a terminal without colour shows of it (Rec. 709 luma)
            r, g, b = color.get_truecolor()
            return 0.2126 * r + 0.7152 * g + 0.0722 * b

        cells = [(ch, s.style) for s in line if not s.control for ch in s.text]
        # the shade each blank cell shows: its background, or its colour when reversed (the thumb's body)
        shades = [st.color if st.reverse else st.bgcolor for ch, st in cells[grid.region.x : grid.region.right] if st]
        page = app.screen.styles.background.rgb
        lightest = max(grey(shade) for shade in shades if shade is not None)
        assert lightest - (0.2126 * page[0] + 0.7152 * page[1] + 0.0722 * page[2]) > 60  # a bar, not a shade
