"""The Sweep tab of a grid (two --sweep): a heat map per variant of its ratio to the baseline at each
cell, or its time per call (m); every number printed, the shading extra; the header names the grid.
The sweep dialog (w) starts a grid with a second parameter, checked as two --sweep are."""

from __future__ import annotations

from pathlib import Path

import factories
import pytest
from textual.app import App
from tui_helpers import ready, run_to_end, sync, wait_until

from tuiperf.tui import app as tui_app
from tuiperf.tui.view import view_of
from tuiperf.tui.widgets.sweep_grid import SweepGrid, shade
from tuiperf.tui.widgets.sweep_plot import SweepLines, SweepPlot

APP_CSS = str(Path(tui_app.__file__).with_name("app.tcss"))
MEDIANS = {
    "jax.jit": [11000.0, 11100.0, 11200.0, 11300.0, 11400.0, 11500.0],
    "eqx.filter_jit": [78000.0, 60000.0, 40000.0, 20000.0, 11400.0, 9000.0],
}


def grid(medians=MEDIANS):
    return factories.grid(medians, rows=("n_args", (1, 4, 16)), columns=("size", (1, 64)), scenario="dispatch-floor")


class OnePlot(App):
    def compose(self):
        yield SweepPlot()


def maps_text(app) -> str:
    return str(app.query_one("#sweep-grid-maps").render())


@sync
async def test_a_grid_shows_each_variants_ratio_per_cell_then_its_time(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    run = grid()
    view = view_of(run)
    assert view.header.endswith("sync dispatch · grid over n_args × size (6 cells) · at n_args=16, size=64")
    app = OnePlot()
    async with app.run_test(size=(80, 24)) as pilot:
        plot = app.query_one(SweepPlot)
        plot.show(view.sweep, view.order, view.crossovers, view.grid)
        await pilot.pause()
        assert app.query_one(SweepGrid).display and not app.query_one(SweepLines).display
        lines = maps_text(app).splitlines()
        assert lines[0] == "eqx.filter_jit ÷ jax.jit (95 % CI) · grid over n_args × size (6 cells)"
        assert lines[1].split() == ["n_args", "\\", "size", "1", "64"]
        assert lines[2].split()[:2] == ["n_args=1", "7.09×"] and lines[4].split()[3] == "0.783×"
        assert not any("jax.jit: time per call" in line for line in lines)  # the baseline's ratios are all 1
        assert plot.toggle_quantity() == "time"
        await pilot.pause()
        lines = maps_text(app).splitlines()
        assert lines[0] == "jax.jit: time per call (the baseline) · grid over n_args × size (6 cells)"
        assert lines[2].split() == ["n_args=1", "11.0", "µs", "11.1", "µs"]
        assert "eqx.filter_jit: time per call · grid over n_args × size (6 cells)" in lines
        assert all(len(line) <= 78 for line in lines if not line.startswith("Does the"))  # that one wraps
        plot.show(view_of(factories.sweep({"a": [1.0, 2.0, 3.0]})).sweep, ["a"])  # a 1-D sweep: the plot again
        await pilot.pause()
        assert not app.query_one(SweepGrid).display and app.query_one(SweepLines).display


def test_shading_marks_only_ratios_told_apart_from_one(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    [table] = [t for t in view_of(grid()).grid if not t.is_baseline]
    slower, faster = table.cells[0][0], table.cells[2][1]
    assert shade(slower).bgcolor.triplet.red > shade(slower).bgcolor.triplet.green
    assert shade(faster).bgcolor.triplet.green > shade(faster).bgcolor.triplet.red
    same = view_of(grid({"jax.jit": MEDIANS["jax.jit"], "eqx.filter_jit": MEDIANS["jax.jit"]})).grid[1].cells[0][0]
    assert same.ratio is not None and shade(same).bgcolor is None  # its 95 % CI holds 1x
    monkeypatch.setenv("NO_COLOR", "1")
    assert shade(slower).bgcolor is None


# -- a grid started from the app's sweep dialog (w): a second parameter and its values ------------------


class Dialog(App):
    """The sweep dialog alone over tiny_sin's parameters; ``answers`` collects what it returns."""

    CSS_PATH = APP_CSS  # the app's layout: what fits at 80x24 is checked

    def __init__(self):
        super().__init__()
        self.answers = []

    def on_mount(self):
        from tuiperf.api.params import Float, Int
        from tuiperf.tui.screens.sweep import SweepScreen

        specs = {"size": Int(8, min=1, max=4096).named("size"), "scale": Float(1.0, min=0.0, max=10.0).named("scale")}
        self.push_screen(SweepScreen(specs), self.answers.append)


def fits(widget) -> bool:
    """Shown whole on an 80x24 screen."""
    region = widget.region
    return region.area > 0 and region.right <= 80 and region.bottom <= 24


async def open_dialog(pilot):
    await wait_until(pilot, lambda: pilot.app.screen.query("#sweep-values-2"), what="the sweep dialog")
    return pilot.app.screen


@sync
async def test_the_sweep_dialog_returns_a_grid_with_a_second_parameter_and_a_sweep_without():
    app = Dialog()
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot)
        dialog.query_one("#sweep-values").value = "4, 1024"
        dialog.query_one("#sweep-param-2").value = "scale"
        await pilot.pause()
        assert dialog.query_one("#sweep-values-2").value  # a suggestion, as for the first parameter
        dialog.query_one("#sweep-values-2").value = "0.5; 2"
        await pilot.pause()
        assert all(fits(w) for w in dialog.query("#sweep-box Input, #sweep-box Select, #sweep-box Button"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.answers, what="the dialog's answer")
        assert app.answers == [[("size", [4, 1024]), ("scale", [0.5, 2.0])]]

    app = Dialog()
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot)
        dialog.query_one("#sweep-values").value = "4, 1024"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.answers, what="the dialog's answer")
        assert app.answers == [[("size", [4, 1024])]]  # the second left empty: a sweep, as before


@pytest.mark.parametrize(
    ("second", "values", "message"),
    [
        ("scale", "1, 99", "✗ scale: 99.0 is above the maximum 10.0"),
        ("scale", ", ".join(str(i / 10) for i in range(30)), "✗ a grid over size × scale has 1200 cells (40 × 30)"),
        (None, "1, 2", "✗ choose the parameter the second values are for ('and over')"),
    ],
    # the same parameter twice cannot be chosen: "and over" does not offer the first (test_tui_sweep_dialog.py)
    ids=["bad value", "too many cells", "values without a parameter"],
)
@sync
async def test_an_invalid_second_sweep_keeps_the_dialog_open_with_its_message_and_what_was_typed(
    second, values, message
):
    app = Dialog()
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot)
        first = ", ".join(str(i) for i in range(1, 41))
        dialog.query_one("#sweep-values").value = first
        if second:
            dialog.query_one("#sweep-param-2").value = second
            await pilot.pause()
        dialog.query_one("#sweep-values-2").value = values
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog and not app.answers
        assert str(dialog.query_one("#sweep-error").render()).startswith(message)
        assert fits(dialog.query_one("#sweep-error")) and fits(dialog.query_one("#sweep-go"))  # at 80x24 still
        assert dialog.query_one("#sweep-values").value == first and dialog.query_one("#sweep-values-2").value == values


@sync
async def test_a_grid_started_from_the_sweep_dialog_runs_every_cell_and_ends_with_the_heat_map(make_app, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(samples=30)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await ready(pilot)
        main.setup.options.query_one("#variants").deselect("broken")
        await pilot.press("escape", "w")
        dialog = await open_dialog(pilot)
        dialog.query_one("#sweep-values").value = "4, 64"
        dialog.query_one("#sweep-param-2").value = "scale"
        await pilot.pause()  # choosing a parameter suggests its values: typed after
        dialog.query_one("#sweep-values-2").value = "1, 2"
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: main.runs.run_id == 1, what="the grid run")
        assert "grid over size × scale (4 cells)" in str(app.query_one("#run-header").content)
        await run_to_end(pilot, key=None)
        sweep = main.result.sweep
        assert sweep.parameters == ["size", "scale"] and len(main.result.points) == sweep.cell_count == 4
        assert app.query_one("#tabs").active == "sweep" and app.query_one(SweepGrid).display
        assert maps_text(app).splitlines()[0] == "aot ÷ jit (95 % CI) · grid over size × scale (4 cells)"
