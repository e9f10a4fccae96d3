"""Overhead breakdown: per-call cost split into framework, jit dispatch, launch and compute, as
stacked bars per variant, with the one-time stages (trace, lower, compile, first call) below."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tuiperf.tui.formatting import format_ms, format_ns
from tuiperf.tui.widgets.histogram import _unit
from tuiperf.tui.widgets.plot_base import CachedPlot, no_color

PARTS = [("framework", "framework", (204, 121, 167)), ("jit_dispatch", "jit dispatch", (230, 159, 0)),
         ("launch", "launch", (86, 180, 233)), ("compute", "compute", (0, 158, 115))]
STAGES = [("trace", "trace"), ("lower", "lower"), ("compile", "compile"), ("first_call", "first call")]


class BreakdownBars(CachedPlot):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows: list[tuple[str, dict[str, float]]] = []

    def set_rows(self, rows: list[tuple[str, dict[str, float]]]) -> None:
        self.rows = rows
        self.invalidate()

    def draw(self, width: int, height: int) -> None:
        plt = self.plt
        if not self.rows:
            plt.title("Per-call overhead breakdown — no results yet")
            return
        top = max((sum(max(b.get(k) or 0.0, 0.0) for k, _, _ in PARTS) for _, b in self.rows), default=1.0)
        unit, div = _unit(top or 1.0)
        names = [n for n, _ in self.rows]
        parts = [[max(b.get(k) or 0.0, 0.0) / div for _, b in self.rows] for k, _, _ in PARTS]
        colors = [c for _, _, c in PARTS]
        kwargs: dict[str, Any] = {"labels": [label for _, label, _ in PARTS], "orientation": "h",
                                  "width": 0.6}
        if no_color():
            kwargs["marker"] = "sd"
        else:
            kwargs["color"] = colors
        plt.stacked_bar(names, parts, **kwargs)
        plt.xlabel(f"time per call ({unit})")
        plt.title("Per-call overhead breakdown")


class OverheadBreakdown(Vertical):
    def compose(self) -> ComposeResult:
        yield BreakdownBars(id="breakdown-bars")
        yield Static("", id="breakdown-detail")

    def show(self, result: dict[str, Any] | None) -> None:
        bars = self.query_one(BreakdownBars)
        detail = self.query_one("#breakdown-detail", Static)
        variants = (result or {}).get("variants", [])
        rows = [(v["name"], v["breakdown_ns"]) for v in variants if v.get("breakdown_ns")]
        bars.set_rows(rows)
        if not variants:
            detail.update("")
            return
        table = Table(box=None, expand=False, padding=(0, 1), header_style="bold")
        table.add_column("variant")
        for _, label, rgb in PARTS:
            table.add_column(Text(label, style="" if no_color() else f"rgb({rgb[0]},{rgb[1]},{rgb[2]})"),
                             justify="right")
        table.add_column("residual", justify="right")
        for _, label in STAGES:
            table.add_column(label, justify="right")
        for v in variants:
            b = v.get("breakdown_ns") or {}
            s = v.get("stages_ms") or {}
            cells = [format_ns(b.get(k)) if b else "—" for k, _, _ in PARTS]
            cells.append(format_ns(b.get("residual")) if b else "—")
            cells += [format_ms(s.get(k)) for k, _ in STAGES]
            table.add_row(v["name"], *cells)
        caption = Text("per call (left), one-time stages (right): trace, lower, compile and the first call",
                       style="dim")
        from rich.console import Group
        detail.update(Group(table, caption))
