"""Sweep plot: median time per call against the swept parameter, log-log, with fitted slopes (a
grid: a heat map per variant instead, :mod:`tuiperf.tui.widgets.sweep_grid`).

A slope near 0 means the cost does not grow with the parameter; near 1, it grows linearly. Where the
plot would get fewer than MIN_PLOT_ROWS rows of its own (two y ticks on rows apart and a line between
them: an 80x24 terminal leaves it four), the medians are shown as a table instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical

from tuiperf.common.units import format_bytes
from tuiperf.results.compile_time import slope_text
from tuiperf.results.grid import GridTable
from tuiperf.results.model import Sweep
from tuiperf.tui.formatting import format_ns, log_ticks
from tuiperf.tui.text_table import columns
from tuiperf.tui.widgets.braille_lines import BRAILLE_LEGEND
from tuiperf.tui.widgets.histogram import _unit
from tuiperf.tui.widgets.plot_base import AFTER_FRAME_S, CachedPlot, no_color, variant_hex, variant_rgb
from tuiperf.tui.widgets.sweep_grid import SweepGrid
from tuiperf.tui.widgets.text_block import TextBlock, Wrapped, joined

# What the sweep plots (key m cycles): median time per call, program memory, compile time (--measure compile).
QUANTITIES = ("time", "memory", "compile")
MIN_PLOT_ROWS = 3  # rows of the plot itself; the title and the axes take five more
FRAME_ROWS = 5
CROSSOVER_MARKED = 0.10  # the share whose crossover the plot marks with a vertical line


POINT_MARKERS = ("●", "x", "o", "+", "*", "#", "@", "%")  # a variant's sweep points, over its braille line


def point_marker(index: int) -> str:
    """The marker on a variant's sweep points: a shape of its own, so that variants differ without colour."""
    return POINT_MARKERS[index % len(POINT_MARKERS)]


def legend_mark(index: int) -> str:
    """What names a variant's line in the legend (the caption under the plot): a line and its point marker."""
    return BRAILLE_LEGEND + point_marker(index)


def legend_rows(sweep: Sweep, order: list[str], quantity: str = "time") -> list[list[Text]]:
    """A row per variant under the plot: its line and marker, slope, first and last medians, memory; where
    compile time is plotted, its first and last compile times instead (marked as such: not a call's)."""
    if quantity == "compile":  # each variant by its index in the plot's order, as its line is drawn
        from tuiperf.results.compile_time import compile_slopes

        names = order or list(sweep.compile_ms)
        slopes = compile_slopes(sweep)  # as the report's table gives them (none over runs or a grid)
        return [
            [
                legend_label(names.index(name), name),
                Text("compile time"),
                Text(_span([m * 1e6 if m else None for m in ms])),
                *([Text("slope " + slope_text(slopes[name], "—"))] if name in slopes else []),
            ]
            for name, ms in sweep.compile_ms.items()
            if name in names
        ]
    rows = []
    for i, name in enumerate(order or list(sweep.medians_ns)):
        slope = sweep.slopes.get(name)
        ms = sweep.medians_ns.get(name, [])
        first = next((m for m in ms if m), None)
        last = next((m for m in reversed(ms) if m), None)
        slope_words = "slope " + slope_text(slope, "—")  # a flat variant read "slope -0.00"
        span = f"{format_ns(first)} → {format_ns(last)}" if first else "no result"
        sizes = [b for b in sweep.memory_bytes.get(name, []) if b is not None]
        memory = f"memory {format_bytes(sizes[0])} → {format_bytes(sizes[-1])}" if sizes else ""
        rows.append([legend_label(i, name), Text(slope_words), Text(span), Text(memory)])
    return rows


def _span(values: list[float | None]) -> str:
    first = next((m for m in values if m), None)
    last = next((m for m in reversed(values) if m), None)
    return f"{format_ns(first)} → {format_ns(last)}" if first and last else "no result"


def legend_text(rows: list[list[Text]], width: int) -> Text:
    """The legend's rows aligned, one line each: where the memory column would wrap under a line, it is
    left out (m plots memory); no Textual, so a thread makes it."""
    lines = columns(rows, "l" * len(rows[0]) if rows else "")
    if width and any(line.cell_len > width for line in lines):
        lines = columns([row[:3] for row in rows], "lll")
    return Text("\n").join(lines)


def below_text(crossovers: list[str]) -> Text:
    """Under the legend: "does it matter at my size?" (a vertical line on the plot marks each 10 %
    crossover); no Textual, so a thread makes it."""
    title = "Does the extra fixed cost matter at your size? (a vertical line in the variant's colour: 10 %)"
    return Text("\n").join([Text(title, style="bold"), *(Text(f"· {line}") for line in crossovers)])


def legend_label(index: int, name: str) -> Text:
    """A variant's name in the caption, after its line and point marker in its colour."""
    label = Text(legend_mark(index) + " ", style="" if no_color() else variant_hex(index))
    label.append(name, style="bold")
    return label


class SweepLines(CachedPlot):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sweep: Sweep | None = None
        self.order: list[str] = []
        self.quantity = "time"
        self.waiting = ""

    def set_sweep(self, sweep: Sweep | None, order: list[str], waiting: str = "", hold: bool = False) -> None:
        """``waiting``: what the plot says while there is no sweep (a sweep being measured); ``hold``:
        drawn once released (:meth:`CachedPlot.release`)."""
        self.sweep = sweep
        self.order = order
        self.waiting = waiting
        self.invalidate(hold)

    def set_quantity(self, quantity: str) -> None:
        self.quantity = quantity
        self.invalidate()

    def series(self) -> dict[str, list[float | None]]:
        """Each variant's values at each point: medians (ns), or program memory (bytes)."""
        if self.sweep is None:
            return {}
        if self.quantity == "memory":
            return {k: [None if b is None else float(b) for b in v] for k, v in self.sweep.memory_bytes.items()}
        if self.quantity == "compile":  # in ns, as the times are
            return {k: [None if m is None else m * 1e6 for m in v] for k, v in self.sweep.compile_ms.items()}
        return dict(self.sweep.medians_ns)

    def what(self) -> str:
        return WHAT[self.quantity]

    def following(self) -> str:
        """The next quantity this sweep has to plot (m), or the one shown where it has no other."""
        sweep = self.sweep
        has = {"time": True, "memory": bool(sweep and sweep.memory_bytes), "compile": bool(sweep and sweep.compile_ms)}
        start = QUANTITIES.index(self.quantity)
        for step in range(1, len(QUANTITIES)):
            candidate = QUANTITIES[(start + step) % len(QUANTITIES)]
            if has[candidate]:
                return candidate
        return self.quantity

    def formatted(self, value: float) -> str:
        return format_bytes(value) if self.quantity == "memory" else format_ns(value)

    def text_picture(self, width: int, height: int) -> list[Text] | None:
        """The medians as a table, a row per variant and a column per value, when a plot would be too flat;
        while a sweep is measured, what it waits for (an empty frame said nothing, and its title did not
        fit at 80x24)."""
        sweep = self.sweep
        if not sweep and self.waiting:
            return [Text(line, style="dim") for line in self.waiting.splitlines()]
        if not sweep or height >= MIN_PLOT_ROWS + FRAME_ROWS:
            return None
        series = self.series()
        names = [n for n in (self.order or list(series)) if n in series]
        header = [Text(sweep.parameter, style="bold"), *(Text(str(v), style="bold") for v in sweep.values)]
        rows = [header]
        for name in names:
            index = (self.order or list(series)).index(name)
            label = Text(legend_mark(index) + " ", style="" if no_color() else variant_hex(index))
            label.append(name)
            rows.append([label, *(Text(self.formatted(m) if m else "—") for m in series[name])])
        title = Text(f"{self.what()} against {sweep.parameter} (too few rows for a plot)", style="bold")
        return [title, *columns(rows, "l" + "r" * len(sweep.values))]

    def draw(self, width: int, height: int) -> None:
        plt = self.plt
        sweep = self.sweep
        if not sweep:
            plt.title("Sweep — press w to sweep one parameter over a list of values")
            return
        values = sweep.values
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in values)
        medians = self.series()
        if not medians:
            plt.title("This sweep has no program memory (its variants' programs were not sized): press m for time")
            return
        top = max((m for ms in medians.values() for m in ms if m), default=1.0)
        unit, div = _byte_unit(top) if self.quantity == "memory" else _unit(top)
        xs = [float(v) for v in values] if numeric else [float(i) for i in range(1, len(values) + 1)]
        for name in self.order or list(medians):
            ms = medians.get(name)
            if not ms:
                continue
            index = (self.order or list(medians)).index(name)
            pts = [(x, m / div) for x, m in zip(xs, ms) if m]
            if not pts:
                continue
            # No legend inside the plot (it covered the lines): the caption under it names each
            # variant by its line and point marker, with its slope.
            x, y = [p[0] for p in pts], [p[1] for p in pts]
            plt.plot(x, y, color=variant_rgb(index), marker="braille")
            plt.scatter(x, y, color=variant_rgb(index), marker=point_marker(index))
        if numeric and self.quantity == "time":
            for c in sweep.crossovers:  # where an extra fixed cost falls under 10 % of the call
                if c.share == CROSSOVER_MARKED and c.where == "inside" and c.at is not None:
                    index = (self.order or list(medians)).index(c.variant) if c.variant in medians else 0
                    plt.vline(c.at, color=variant_rgb(index))
        if numeric:
            plt.xscale("log")
            plt.xticks(xs, [f"{v:g}" for v in values])
        else:
            plt.xticks(xs, [str(v) for v in values])
            plt.xlim(0.6, len(xs) + 0.4)
        plt.yscale("log")
        ys = [m / div for ms in medians.values() for m in ms if m]
        if ys:
            ticks = log_ticks(min(ys), max(ys), max_ticks=(height - 6) // 2)  # rows left after title and axes
            if ticks:
                plt.yticks(ticks, [f"{t:g}" for t in ticks])
        plt.xlabel(sweep.parameter + (" (log)" if numeric else ""))
        plt.ylabel(f"{YLABEL[self.quantity]} ({unit}, log)")
        following = self.following()
        if following == self.quantity:  # nothing else to plot: m says so when pressed
            following = "time" if self.quantity == "memory" else "memory"
        plt.title(f"{self.what()} against {sweep.parameter} (m: {SHORT[following]})")


WHAT = {"time": "Median time per call", "memory": "Program memory", "compile": "Compile time (trace+lower+compile)"}
YLABEL = {"time": "median", "memory": "memory", "compile": "compile"}
SHORT = {"time": "time", "memory": "memory", "compile": "compile time"}


def _byte_unit(count: float) -> tuple[str, float]:
    for unit, scale in (("GiB", 2.0**30), ("MiB", 2.0**20), ("KiB", 2.0**10)):
        if count >= scale:
            return unit, scale
    return "B", 1.0


class Caption:
    """What a sweep's caption shows: its legend (``legend`` laid out already in another thread; its rows
    made only when they are laid out here) and the lines below it."""

    def __init__(self, make_rows: Callable[[], list[list[Text]]], legend: Wrapped | None = None) -> None:
        self._make_rows, self.legend = make_rows, legend
        self.below: Text | Wrapped | None = None

    @functools.cached_property
    def rows(self) -> list[list[Text]]:
        return self._make_rows()


class SweepPlot(Vertical):
    """A sweep's plot and caption; a grid's heat maps instead (:mod:`tuiperf.tui.widgets.sweep_grid`)."""

    DEFAULT_CSS = """
    SweepPlot {
        height: 1fr;
    }
    #sweep-lines {
        height: 1fr;
        min-height: 6;
    }
    #sweep-caption {
        height: auto;
        max-height: 50%;
        padding: 0 1;
    }
    #sweep-grid {
        display: none;  /* shown in place of the plot for a grid */
        height: 1fr;
        padding: 0 1;
    }
    """

    _caption: Caption | None = None  # what the caption shows
    _below_due: Caption | None = None  # a caption whose lines below its legend come in the next frame

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lines, self.caption = SweepLines(id="sweep-lines"), TextBlock("", id="sweep-caption")
        self.heat = SweepGrid(id="sweep-grid")

    def compose(self) -> ComposeResult:
        yield self.lines
        yield self.caption
        yield self.heat

    def toggle_quantity(self) -> str | None:
        """Plot the other quantity; the one now plotted, or None when the sweep has no program memory.
        A grid's heat maps switch between the ratio to the baseline and the time per call."""
        heat = self.heat
        if heat.display:
            return heat.toggle_quantity()
        lines = self.lines
        following = lines.following()
        if following == lines.quantity:
            return None
        self.set_quantity(following)
        return lines.quantity

    def set_quantity(self, quantity: str) -> None:
        """Plot ``quantity`` (see :data:`QUANTITIES`); the legend under it follows (compile time: each
        variant's first and last compile times, not its medians per call)."""
        lines, shown = self.lines, self._caption
        was = lines.quantity
        lines.set_quantity(quantity)
        sweep, order = lines.sweep, lines.order
        if shown is None or sweep is None or "compile" not in (was, quantity):
            return
        laid = self._caption = Caption(lambda: legend_rows(sweep, order, quantity))
        laid.below = shown.below
        self._lay_caption()

    def show(
        self,
        sweep: Sweep | None,
        order: list[str],
        crossovers: list[str] | None = None,
        grid: list[GridTable] | None = None,
        waiting: str = "",
        legend: Wrapped | None = None,
        below: Wrapped | None = None,
    ) -> None:
        """``waiting``: what the plot says while there is no ``sweep`` (one being measured); ``legend``
        and ``below``: the caption's legend of ``sweep`` and the sentences under it, laid out in another
        thread (:func:`legend_text`, :func:`below_text`)."""
        heat = self.heat
        is_grid = bool(sweep and sweep.grid and grid)
        heat.display = is_grid
        for widget in (self.lines, self.caption):
            widget.display = not is_grid
        if sweep is not None and grid and is_grid:
            ranked = {name: i for i, name in enumerate(order)}
            tables = sorted(grid, key=lambda t: ranked.get(t.variant, len(ranked)))
            heat.show(tables, sweep.title(), crossovers)
            return
        # with sentences to come under the legend, the plot is drawn after them, at the height they leave
        # it (drawn before, it was drawn twice, once in the frame that laid them out: a sweep's end)
        self.lines.set_sweep(sweep, order, waiting, hold=bool(sweep and crossovers))
        caption = self.caption
        if not sweep:
            # While one is measured, its legend with a line per variant: the result's then takes as many
            # lines, and redraws the caption without laying the screen out.
            measuring = [Text("slope …", style="dim"), Text("measuring", style="dim")]
            waiting_rows = [[legend_label(i, name), *measuring] for i, name in enumerate(order)]
            self._caption = Caption(lambda: waiting_rows) if waiting else None
            if self._caption is None:
                caption.show(Text(""))
            else:
                self._lay_caption()
            return
        # The legend's lines now (as many as the measuring caption's: no layout), the sentences below it
        # in a frame of their own: they lay the screen out (a sweep's end was one frame of both, 15-25 ms)
        if self.lines.quantity == "compile" and sweep.compile_ms:  # (the legend made in another thread: per call)
            laid = self._caption = Caption(lambda: legend_rows(sweep, order, "compile"))
        else:
            laid = self._caption = Caption(lambda: legend_rows(sweep, order), legend=legend)
        self._lay_caption()
        if crossovers:
            self._below_due = laid
            self.set_timer(AFTER_FRAME_S, lambda: self._add_below(laid, below or below_text(crossovers)))

    def _add_below(self, caption: Caption, below: Text | Wrapped) -> None:
        if self._caption is caption:  # (not another sweep's since)
            caption.below = below
            self._lay_caption()
            self.lines.release()
        if self._below_due is caption:
            self._below_due = None

    @property
    def settled(self) -> bool:
        """The caption shows all of the sweep (the lines below its legend come a frame after it)."""
        return self._below_due is None

    def on_resize(self) -> None:
        self._lay_caption()  # the legend's memory column is there only where it fits

    def _lay_caption(self) -> None:
        """The legend (as laid out in another thread, at the width it was made for) and the lines below
        it. A hidden tab has no width yet: laid out again when it is shown (resized)."""
        shown = self._caption
        if shown is None:
            return
        caption = self.caption
        width = caption.size.width or caption.last_width
        legend, below = shown.legend, shown.below
        # (a block never laid out has no width yet: the one the legend was made for is a fair guess)
        if legend is not None and (not width or legend.width in (width, None)):
            if below is None:
                caption.show_text(legend)
                return
            if isinstance(below, Wrapped) and below.width == legend.width:
                caption.show_text(joined(legend, below))
                return
        parts = [legend_text(shown.rows, width)]
        if below is not None:
            parts.append(below.text if isinstance(below, Wrapped) else below)
        caption.show_text(Text("\n").join(parts))  # as many lines as shown: no layout
