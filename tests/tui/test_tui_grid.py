"""The Sweep tab of a grid (two --sweep): a heat map per variant of its ratio to the baseline at each
cell, or its time per call (m); every number printed, the shading extra; the header names the grid."""

from __future__ import annotations

import factories
from textual.app import App
from tui_helpers import sync

from tuiperf.tui.view import view_of
from tuiperf.tui.widgets.sweep_grid import SweepGrid, shade
from tuiperf.tui.widgets.sweep_plot import SweepLines, SweepPlot

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
