"""Plots are drawn from plotext's cells directly: the strips must equal what the ANSI text would give."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App
from textual.visual import Visual, visualize
from tui_helpers import sync, wait_until

from tuiperf.tui.widgets.histogram import LatencyHistogram
from tuiperf.tui.widgets.plot_base import _PLOTEXT_LOCK


class OneHistogram(App):
    def compose(self):
        yield LatencyHistogram()


def strips_through_ansi(plot: LatencyHistogram) -> list:
    """The picture as textual-plotext renders it: plotext's escape codes, parsed by Rich."""
    _, width, height, theme = plot._key()
    with _PLOTEXT_LOCK:
        plt = plot.plt
        plt.clear_figure()
        plot.draw(width, height)
        plt.plotsize(width, height)
        plt._set_size(width, height)
        plt.theme(theme)
        picture = Text.from_ansi(plt.build())
    return Visual.to_strips(plot, visualize(plot, picture), width, height, plot.visual_style)


@pytest.mark.parametrize("no_color", [False, True])
@pytest.mark.parametrize("log_x", [False, True])
@sync
async def test_cells_become_the_strips_the_ansi_text_gives(monkeypatch, no_color, log_x):
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    app = OneHistogram()
    async with app.run_test(size=(90, 26)) as pilot:
        plot = app.query_one(LatencyHistogram)
        series = {f"v{i}": [1_000.0 * (i + 1) + (j % 97) * 7.0 for j in range(2_000)] for i in range(4)}
        plot.set_series(series, medians={name: values[1000] for name, values in series.items()})
        plot.set_log(log_x)
        await wait_until(pilot, lambda: plot.settled, what="the histogram's picture")
        built = plot._built[1]
        expected = strips_through_ansi(plot)
        assert [strip.text for strip in built] == [strip.text for strip in expected]
        assert "Latency per call" in built[0].text  # a real picture, not two blank ones
        assert built == expected  # the same text in the same colours and styles, cell for cell
