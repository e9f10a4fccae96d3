"""The three fixes to Textual's layout bookkeeping (tuiperf/tui/textual_fixes.py): each saves a full arrangement
of the screen, counted here by wrapping Textual's private ``Compositor._arrange_root`` (a count, not a
time); and no other module of the project reaches Textual's private modules."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Static, TabbedContent, TabPane
from tui_helpers import sync

from tuiperf.tui import textual_fixes

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def arrangements(monkeypatch: pytest.MonkeyPatch, fixed: bool) -> Iterator[list[None]]:
    """Count the screen's full arrangements, with the fixes applied or with Textual's own methods."""
    assert textual_fixes.apply()
    if not fixed:  # the methods the fixes wrap, as Textual ships them
        monkeypatch.setattr(Compositor, "reflow", Compositor.reflow.__wrapped__)
        monkeypatch.setattr(Compositor, "update_widgets", Compositor.update_widgets.__wrapped__)
        monkeypatch.setattr(Widget, "_size_updated", Widget._size_updated.__wrapped__)
    counted: list[None] = []
    arrange = Compositor._arrange_root

    def counting(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        counted.append(None)
        return arrange(self, *args, **kwargs)

    monkeypatch.setattr(Compositor, "_arrange_root", counting)
    yield counted


class Tabs(App[None]):
    def compose(self) -> ComposeResult:
        with TabbedContent():
            for i in range(3):
                with TabPane(f"Tab {i}", id=f"t{i}"):
                    yield Static(f"tab {i}\n" * 5)


class Form(App[None]):
    """A Cancel button at the end of a form taller than the screen, as the setup panel's at 160x48."""

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            for i in range(40):
                yield Static(f"row {i}")
            yield Button("Cancel", id="cancel", disabled=True)


class Caption(App[None]):
    """A plot over a caption that grows (a sweep's, when its crossover sentences come)."""

    CSS = "#plot { height: 1fr; } #caption { height: auto; }"

    def compose(self) -> ComposeResult:
        yield Static("plot", id="plot")
        yield Static("one line", id="caption")


async def caption_grown(app: Caption, counted: list[None]) -> int:
    """Full arrangements when the caption grows by two lines (the plot above it shrinks)."""
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        plot, caption = app.query_one("#plot", Static), app.query_one("#caption", Static)
        counted.clear()
        caption.update("one line\ntwo\nthree")
        await pilot.pause()
        await pilot.pause()
        assert (plot.size.height, caption.size.height) == (21, 3)  # laid out anew all the same
        assert plot.virtual_size.height == 21
        return len(counted)


async def switches(app: Tabs, counted: list[None]) -> list[int]:
    """Full arrangements per tab switch, each tab shown once before (so none is new)."""
    async with app.run_test(size=(80, 24)) as pilot:
        tabs = app.query_one(TabbedContent)
        for tab in ("t1", "t2", "t0"):
            tabs.active = tab
            await pilot.pause()
        per_switch = []
        for tab in ("t1", "t2", "t0"):
            counted.clear()
            tabs.active = tab
            await pilot.pause()
            await pilot.pause()
            per_switch.append(len(counted))
    return per_switch


async def cancel_toggled(app: Form, counted: list[None]) -> int:
    """Full arrangements when the out-of-sight Cancel button is enabled and disabled again."""
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        button = app.query_one("#cancel", Button)
        assert button.region.y >= app.size.height  # out of sight: below the view
        counted.clear()
        for disabled in (False, True):
            button.disabled = disabled
            await pilot.pause()
            await pilot.pause()
        return len(counted)


def test_the_fixes_apply_to_this_textual():
    assert textual_fixes.apply()
    assert textual_fixes.apply()  # once per process: a second call wraps nothing again
    assert Compositor.reflow.__wrapped__.__module__ == "textual._compositor"
    assert Compositor.update_widgets.__wrapped__.__module__ == "textual._compositor"
    assert Widget._size_updated.__wrapped__.__module__ == "textual.widget"


@sync
async def test_a_tab_switch_arranges_the_screen_once(monkeypatch):
    """GIVEN tabs each shown once WHEN one is shown again THEN the screen is arranged once (Textual
    arranged it twice: the layout did, then the paint again, the map still marked stale)."""
    with arrangements(monkeypatch, fixed=True) as counted:
        assert await switches(Tabs(), counted) == [1, 1, 1]


@sync
async def test_repainting_a_widget_out_of_sight_arranges_nothing(monkeypatch):
    """GIVEN a button scrolled out of sight WHEN it is enabled and disabled (the Cancel button at a run's
    start and end) THEN the screen is not arranged (Textual arranged it at each paint that followed)."""
    with arrangements(monkeypatch, fixed=True) as counted:
        assert await cancel_toggled(Form(), counted) == 0


@sync
async def test_a_text_that_grows_arranges_the_screen_once(monkeypatch):
    """GIVEN a caption under a plot WHEN it grows THEN the screen is arranged once (Textual arranged it
    again for each resized widget's new virtual size: twice for every text block that grew)."""
    with arrangements(monkeypatch, fixed=True) as counted:
        assert await caption_grown(Caption(), counted) == 1


@sync
async def test_without_the_fixes_this_textual_arranges_more(monkeypatch):
    """The cases above with Textual's own methods: what the fixes are for is still in this Textual. When
    an upgrade makes this fail, Textual fixed it too and textual_fixes.py can go."""
    with arrangements(monkeypatch, fixed=False) as counted:
        assert await switches(Tabs(), counted) == [2, 2, 2]
        assert await cancel_toggled(Form(), counted) >= 1
        assert await caption_grown(Caption(), counted) == 2


def test_only_textual_fixes_imports_textuals_private_modules():
    allowed = ROOT / "tuiperf" / "tui" / "textual_fixes.py"
    found = []
    for path in sorted((ROOT / "tuiperf").rglob("*.py")):
        if path == allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            found += [
                f"{path.relative_to(ROOT)}:{node.lineno} {name}" for name in names if name.startswith("textual._")
            ]
    assert found == []
