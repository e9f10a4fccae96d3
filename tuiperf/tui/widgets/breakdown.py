"""Overhead breakdown: per-call cost split into framework, jit dispatch, launch and compute, as
stacked bars per variant (drawn with block characters, so they read the same without colour), and
the one-time stages (trace, lower, compile, first call) below."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from tuiperf.core.model import BREAKDOWN_STAGES, COMPILE_STAGES, Breakdown, RunResult
from tuiperf.tui.formatting import format_ms, format_ns
from tuiperf.tui.widgets.plot_base import no_color

# Colour and fill character per stage (distinct characters keep the parts apart with NO_COLOR).
LOOK = {
    "framework": ("#cc79a7", "█"),
    "jit_dispatch": ("#e69f00", "▓"),
    "launch": ("#56b4e9", "▒"),
    "compute": ("#009e73", "░"),
    "outputs": ("#f0e442", "▚"),
}
PARTS = [(key, label, *LOOK[key]) for key, label, _ in BREAKDOWN_STAGES]


def stage_ns(breakdown: Breakdown, key: str) -> float:
    stage = breakdown.stages.get(key)
    return stage.ns if stage is not None else 0.0


def stacked_bar(breakdown: Breakdown, scale: float, width: int) -> Text:
    """One variant's bar: each part's share of ``width`` cells at ``scale`` ns per cell."""
    text = Text()
    used = 0
    carry = 0.0
    for key, _, colour, char in PARTS:
        value = max(stage_ns(breakdown, key), 0.0)
        exact = value / scale + carry
        cells = round(exact)
        carry = exact - cells
        cells = min(cells, width - used)
        if value > 0 and cells == 0 and used < width:
            cells = 1  # a part that exists is always visible
        text.append((char if no_color() else "█") * cells, style="" if no_color() else colour)
        used += cells
    return text


class OverheadBreakdown(VerticalScroll):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.result: RunResult | None = None

    def compose(self):
        yield Static("", id="breakdown-bars")
        yield Static("", id="breakdown-detail")

    def on_resize(self) -> None:
        self._render_bars()

    def show(self, result: RunResult | None) -> None:
        self.result = result
        self._render_bars()
        self._render_detail()

    def _render_bars(self) -> None:
        bars = self.query_one("#breakdown-bars", Static)
        variants = self.result.variants if self.result else []
        if not variants:
            bars.update(Text("Per-call overhead breakdown — no results yet (press r to run)", style="dim"))
            return
        rows = [v.breakdown_ns for v in variants if v.breakdown_ns is not None]
        name_w = max([len(v.name) for v in variants] + [8])
        width = max(10, self.size.width - name_w - 18)
        legend = Text("Per call: ", style="bold")
        for _, label, colour, char in PARTS:
            legend.append((char if no_color() else "█") * 2 + " ", style="" if no_color() else colour)
            legend.append(label + "   ")
        lines: list[Any] = [legend, Text("")]
        totals = [sum(max(stage_ns(b, k), 0.0) for k, *_ in PARTS) for b in rows]
        scale = (max(totals) if totals else 1.0) / width or 1.0
        for v in variants:
            line = Text(v.name.ljust(name_w) + "  ", style="bold")
            b = v.breakdown_ns
            if b is not None:
                line.append_text(stacked_bar(b, scale, width))
                line.append(f" {format_ns(b.total_ns)}")
            elif not v.ok:
                line.append("failed", style="red")
            else:
                line.append("no breakdown for this variant", style="dim")
            lines.append(line)
        bars.update(Group(*lines))

    def _render_detail(self) -> None:
        detail = self.query_one("#breakdown-detail", Static)
        variants = self.result.variants if self.result else []
        if not variants:
            detail.update("")
            return
        per_call = Table(
            box=None, padding=(0, 1), header_style="bold", title="per call", title_justify="left", title_style="bold"
        )
        per_call.add_column("variant")
        for _, label, colour, _ in PARTS:
            per_call.add_column(Text(label, style="" if no_color() else colour), justify="right")
        per_call.add_column("residual", justify="right")
        stages = Table(
            box=None,
            padding=(0, 1),
            header_style="bold",
            title="one-time stages",
            title_justify="left",
            title_style="bold",
        )
        stages.add_column("variant")
        for _, label in COMPILE_STAGES:
            stages.add_column(label, justify="right")
        for v in variants:
            b = v.breakdown_ns
            per_call.add_row(
                v.name,
                *[format_ns(b.stages[k].ns) if b and k in b.stages else "—" for k, *_ in PARTS],
                format_ns(b.residual_ns) if b else "—",
            )
            stages.add_row(v.name, *[format_ms(getattr(v.stages_ms, k)) for k, _ in COMPILE_STAGES])
        detail.update(Group(Text(""), per_call, Text(""), stages))
