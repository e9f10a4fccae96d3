"""A few snapshots of key screens, rendered from a saved result (no live timing in them)."""

from __future__ import annotations

import random

import pytest
from tui_helpers import FakeRunner, ready

from tuiperf.tui.app import TuiperfApp


def _app(saved, tmp_path):
    return TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)


def _show(saved, key: str, tab: str):
    async def run_before(pilot) -> None:
        app = pilot.app
        main = await ready(pilot)
        main.show_result(saved[key])
        main.action_show_tab(tab)
        app.query_one("#tabs Tabs").focus()
        await pilot.pause(0.2)
        await pilot.wait_for_scheduled_animations()
        await app.plots_settled()
        await pilot.pause()

    return run_before


def test_snapshot_histogram_wide(snap_compare, saved, tmp_path):
    assert snap_compare(_app(saved, tmp_path), terminal_size=(130, 40), run_before=_show(saved, "result", "histogram"))


def test_snapshot_statistics_wide(snap_compare, saved, tmp_path):
    assert snap_compare(_app(saved, tmp_path), terminal_size=(130, 40), run_before=_show(saved, "result", "stats"))


def test_snapshot_sweep_narrow(snap_compare, saved, tmp_path):
    assert snap_compare(_app(saved, tmp_path), terminal_size=(80, 24), run_before=_show(saved, "sweep", "sweep"))


NAMES = ["jax.jit", "eqx.filter_jit", "nnx.jit", "linen-jax.jit", "nnx.jit(graph=False)", "eqx-jax.jit", "aot"]


def synthetic_series(count: int) -> tuple[dict[str, list[float]], dict[str, float]]:
    """``count`` variants 1.6x apart, the third one bimodal: the same numbers every time (seeded)."""
    rng = random.Random(29)
    series = {}
    for i, name in enumerate(NAMES[:count]):
        centre = 4_000 * 1.6**i
        values = [rng.lognormvariate(0, 0.08) * centre for _ in range(800)]
        if i == 2:
            values += [rng.lognormvariate(0, 0.05) * centre * 1.8 for _ in range(300)]
        series[name] = values
    return series, {name: sorted(values)[len(values) // 2] for name, values in series.items()}


def _histogram_of(saved, count: int):
    from tuiperf.tui.widgets.histogram import LatencyHistogram

    async def run_before(pilot) -> None:
        app = pilot.app
        main = await ready(pilot)
        main.show_result(saved["result"])
        main.action_show_tab("histogram")
        series, medians = synthetic_series(count)
        main.query_one(LatencyHistogram).set_series(series, medians, list(series))
        app.query_one("#tabs Tabs").focus()
        await pilot.pause(0.2)
        await pilot.wait_for_scheduled_animations()
        await app.plots_settled()
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("count", [2, 4, 7])
def test_snapshot_histogram_80x24_no_color(snap_compare, saved, tmp_path, monkeypatch, count):
    """Two variants overlaid with the legend above the plot; four and seven as one strip each."""
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(_app(saved, tmp_path), terminal_size=(80, 24), run_before=_histogram_of(saved, count))


def test_snapshot_sweep_80x24_no_color(snap_compare, saved, tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(_app(saved, tmp_path), terminal_size=(80, 24), run_before=_show(saved, "sweep", "sweep"))


def test_snapshot_stored_run_header_80x24_no_color(snap_compare, saved, tmp_path, monkeypatch):
    """A run opened from the history says which run it is and when it was measured."""
    monkeypatch.setenv("NO_COLOR", "1")

    async def run_before(pilot) -> None:
        app = pilot.app
        main = await ready(pilot)
        main._open_stored(saved["result"], 8)
        app.query_one("#tabs Tabs").focus()
        await pilot.pause(0.2)
        await app.plots_settled()
        await pilot.pause()

    assert snap_compare(_app(saved, tmp_path), terminal_size=(80, 24), run_before=run_before)


def test_snapshot_two_environments_statistics_80x24_no_color(snap_compare, saved, tmp_path, monkeypatch):
    """A run over two Python environments (tests/fixtures/results/two-environments.json): Statistics
    opens on the environments and each variant against the reference environment."""
    from pathlib import Path

    from tuiperf.results.resultfile import load

    monkeypatch.setenv("NO_COLOR", "1")
    two = load(Path(__file__).parent.parent / "fixtures" / "results" / "two-environments.json")

    async def run_before(pilot) -> None:
        app = pilot.app
        main = await ready(pilot)
        main.show_result(two)
        main.action_show_tab("stats")
        app.query_one("#tabs Tabs").focus()
        await pilot.pause(0.2)
        await app.plots_settled()
        await pilot.pause()

    assert snap_compare(_app(saved, tmp_path), terminal_size=(80, 24), run_before=run_before)


def _show_grid(grid):
    async def run_before(pilot) -> None:
        app = pilot.app
        main = await ready(pilot)
        main.show_result(grid)
        main.action_show_tab("sweep")
        app.query_one("#tabs Tabs").focus()
        await pilot.pause(0.2)
        await app.plots_settled()
        await pilot.pause()

    return run_before


def _grid():
    """A stored grid (two --sweep): one variant slower than the baseline at small cells, faster at the last."""
    import factories

    medians = {
        "jax.jit": [11000.0, 11100.0, 11200.0, 11300.0, 11400.0, 11500.0],
        "eqx.filter_jit": [78000.0, 60000.0, 40000.0, 20000.0, 11400.0, 9000.0],
    }
    return factories.grid(medians, rows=("n_args", (1, 4, 16)), columns=("size", (1, 64)), scenario="dispatch-floor")


def test_snapshot_grid_heat_map_80x24(snap_compare, saved, tmp_path):
    assert snap_compare(_app(saved, tmp_path), terminal_size=(80, 24), run_before=_show_grid(_grid()))


def test_snapshot_grid_heat_map_80x24_no_color(snap_compare, saved, tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(_app(saved, tmp_path), terminal_size=(80, 24), run_before=_show_grid(_grid()))
