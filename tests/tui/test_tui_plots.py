"""Plots are drawn from plotext's cells directly: the strips must equal what the ANSI text would give."""

from __future__ import annotations

import itertools
import random

import pytest
from rich.text import Text
from textual.app import App
from textual.visual import Visual, visualize
from tui_helpers import sync, wait_until

from tuiperf.tui.widgets.braille_lines import _DOT, BRAILLE_LEGEND, trace
from tuiperf.tui.widgets.histogram import LatencyHistogram
from tuiperf.tui.widgets.plot_base import _PLOTEXT_LOCK
from tuiperf.tui.widgets.plotext_internals import lay_out


class OneHistogram(App):
    def compose(self):
        yield LatencyHistogram()


def strips_through_ansi(plot: LatencyHistogram) -> list:
    """The picture as textual-plotext renders it: plotext's escape codes, parsed by Rich."""
    _, width, height, theme = plot._key()
    with _PLOTEXT_LOCK:
        plot.set_up_figure(width, height, theme)
        plt = plot.plt
        canvas = lay_out(plt)
        plot.finish(canvas)  # the lines drawn into the cells
        picture = Text.from_ansi(canvas.ansi_text())
    rows = height - len(plot.header)  # the title and legend lines above the figure are not plotext's
    return Visual.to_strips(plot, visualize(plot, picture), width, rows, plot.visual_style)


@pytest.mark.parametrize("no_color", [False, True])
@pytest.mark.parametrize("log_x", [False, True])
@sync
async def test_cells_become_the_strips_the_ansi_text_gives(monkeypatch, no_color, log_x):
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    app = OneHistogram()
    async with app.run_test(size=(90, 26)) as pilot:
        plot = app.query_one(LatencyHistogram)
        series = {f"v{i}": [1_000.0 * (i + 1) + (j % 97) * 7.0 for j in range(2_000)] for i in range(3)}
        plot.set_series(series, medians={name: values[1000] for name, values in series.items()})
        plot.set_log(log_x)
        await wait_until(pilot, lambda: plot.settled, what="the histogram's picture")
        expected = strips_through_ansi(plot)
        assert "Latency per call" in plot._built[1][0].text  # a real picture, not two blank ones
        built = plot._built[1][len(plot.header) :]
        assert [strip.text for strip in built] == [strip.text for strip in expected]
        assert built == expected  # the same text in the same colours and styles, cell for cell


# --- the histogram's lines, drawn into braille cells by braille_lines.trace -------------------------


def lit_dots(cells: dict) -> set[tuple[int, int]]:
    """The (x, y) dots, counted from the bottom left, that braille cells light."""
    return {
        (2 * col + sub_x, 4 * row + sub_y)
        for (col, row), bits in cells.items()
        for sub_y in range(4)
        for sub_x in range(2)
        if bits & _DOT[sub_y][sub_x]
    }


def test_a_flat_line_lights_the_bottom_dots_of_each_cell():
    assert trace([(0, 0), (3, 0)], width=4, height=2) == {(0, 0): 0x40 | 0x80, (1, 0): 0x40 | 0x80}
    assert chr(0x2800 + (0x40 | 0x80)) == "⣀"


def test_a_vertical_line_lights_one_dot_column_through_the_cells_it_crosses():
    cells = trace([(1, 1), (1, 6)], width=2, height=3)
    assert cells == {(0, 0): 0x20 | 0x10 | 0x08, (0, 1): 0x80 | 0x20 | 0x10}
    assert lit_dots(cells) == {(1, y) for y in range(1, 7)}


def test_whole_cell_markers_light_one_cell_per_dot():
    assert trace([(0, 0), (2, 2)], width=3, height=3, braille=False) == {(0, 0): 1, (1, 1): 1, (2, 2): 1}


def test_dots_outside_the_canvas_are_left_out():
    assert trace([(0, 0), (9, 0)], width=2, height=1) == {(0, 0): 0xC0, (1, 0): 0xC0}


def test_a_polyline_is_one_connected_line_through_all_its_points():
    """Every point is lit and no gap opens between them (8-neighbour steps), whatever the slopes."""
    rng = random.Random(1)
    for _ in range(500):
        xs = sorted(rng.sample(range(60), rng.randint(2, 8)))
        points = [(x, rng.randint(0, 39)) for x in xs]
        dots = lit_dots(trace(points, width=30, height=10))
        assert set(points) <= dots
        reached, todo = {points[0]}, [points[0]]
        while todo:
            x, y = todo.pop()
            for step in itertools.product((-1, 0, 1), repeat=2):
                near = (x + step[0], y + step[1])
                if near in dots and near not in reached:
                    reached.add(near)
                    todo.append(near)
        assert reached == dots, points


@sync
async def test_the_histogram_peaks_over_its_median_and_labels_it_without_colour(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = OneHistogram()
    async with app.run_test(size=(90, 26)) as pilot:
        plot = app.query_one(LatencyHistogram)
        peaked = [1_000.0] * 900 + [float(v) for v in range(500, 2_500, 20)]  # 90 % of samples at 1 µs
        plot.set_series({"one": peaked}, medians={"one": 1_000.0})
        await wait_until(pilot, lambda: plot.settled, what="the histogram's picture")
        rows = [strip.text for strip in plot._built[1]]
        legend = next(row for row in rows if "one 1.00 µs" in row)
        assert f"{BRAILLE_LEGEND}{BRAILLE_LEGEND} one 1.00 µs" in legend
        top = next(row for row in rows[1:] if any("\u2800" < ch <= "\u28ff" for ch in row) and row is not legend)
        peak = next(i for i, ch in enumerate(top) if "\u2800" < ch <= "\u28ff")
        median_line = next(row.index("┬") for row in rows if "┬" in row)  # where the median's line meets the top
        assert abs(peak - median_line) <= 1, (peak, median_line, top)


@sync
async def test_live_samples_without_medians_are_labelled_with_their_own_median(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = OneHistogram()
    async with app.run_test(size=(90, 26)) as pilot:
        plot = app.query_one(LatencyHistogram)
        plot.set_series({"live": [3_000.0, 1_000.0, 2_000.0, 9_000.0, 2_500.0] * 40})  # median 2.50 µs
        await wait_until(pilot, lambda: plot.settled, what="the histogram's picture")
        assert any("live 2.50 µs" in strip.text for strip in plot._built[1])
