"""The result tabs' contents, made off the UI thread when a result arrives (as memray's ``batch_update``).

Showing a result used to build the Statistics rows, the Breakdown tables and the Profile rows on the
UI thread, each when its tab was first shown: 10-60 ms a tab under load, on top of Textual's own
layout. :func:`prepare` makes them all in a worker, as plain Rich text, for the result, the baseline
and the widths the tabs have now; the panel gets them in one message and each tab applies its part
when shown (a tab shown before they come, or at another width, makes its own as before).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from tuiperf.results.model import RunResult
from tuiperf.tui.view import ResultView
from tuiperf.tui.widgets.breakdown import detail_text
from tuiperf.tui.widgets.profile_table import ProfileContent, profile_content
from tuiperf.tui.widgets.run_progress import result_rows, rows_shown
from tuiperf.tui.widgets.stats_table import StatsContent, stats_content
from tuiperf.tui.widgets.sweep_plot import below_text, legend_rows, legend_text
from tuiperf.tui.widgets.text_block import Wrapped, wrap


@dataclass(frozen=True)
class Widths:
    """The widths each tab lays its text out to (read on the UI thread when the result came); 0: not
    laid out yet."""

    stats: int
    breakdown: int
    progress: int = 0  # the progress block's variant rows
    screen_height: int = 0  # how many variant rows it shows depends on it
    legend: int = 0  # the sweep plot's caption


@dataclass(frozen=True)
class TabContents:
    result: RunResult | None
    stats: StatsContent | None
    breakdown: tuple[RunResult | None, int, Text | Wrapped]  # (result, width, the detail's text)
    profile: ProfileContent
    progress: Wrapped | None = None  # the progress block's rows for the result
    progress_height: int = 0  # the screen's height they were made for
    legend: Wrapped | None = None  # the legend under its sweep's plot
    below: Wrapped | None = None  # the sentences under that legend


def prepare(
    result: RunResult | None, baseline: str | None, widths: Widths, view: ResultView | None = None
) -> TabContents:
    """Every tab's text for ``result`` (and, with its ``view``, the progress block's rows and its sweep's
    legend); pure (no Textual), so it runs in a thread."""
    stats = stats_content(result, baseline, widths.stats) if result is not None else None
    progress = legend = below = None
    if result is not None and widths.progress and widths.screen_height:
        shown = rows_shown(len(result.variants), widths.screen_height)
        progress = wrap(result_rows(result, shown), widths.progress)
    if view is not None and view.sweep is not None and not view.grid and widths.legend:
        legend = wrap(legend_text(legend_rows(view.sweep, view.order), widths.legend), widths.legend)
        below = wrap(below_text(view.crossovers), widths.legend) if view.crossovers else None
    return TabContents(
        result,
        stats,
        # its block is as wide as its tables (made to fit the tab's width): drawn as they are
        (result, widths.breakdown, wrap(detail_text(result, widths.breakdown))),
        profile_content(result),
        progress,
        widths.screen_height,
        legend,
        below,
    )
