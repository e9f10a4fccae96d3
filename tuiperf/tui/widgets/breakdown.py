"""Overhead breakdown: per-call cost split into framework, jit dispatch, launch, compute and outputs,
as stacked bars per variant (block characters that read the same without colour); the gap to the
baseline split by stage; for a run over several Python environments, which stage moved between
them; and the one-time stages (trace, lower, compile, first call).

Bars are drawn only for a reliable breakdown: an unreliable one (a stage clearly negative or larger
than the call, a call that drifted from its steady-state median) shows its reason instead, never
bars of negative or impossible time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget

from tuiperf.common.text import one_line
from tuiperf.common.units import ratio_with_interval
from tuiperf.results.evidence import first_compile_note
from tuiperf.results.model import (
    BREAKDOWN_STAGES,
    COMPILE_STAGES,
    REPEATED_STAGES,
    Breakdown,
    RunResult,
    VariantResult,
)
from tuiperf.results.ratios import against
from tuiperf.results.reconcile import Reconciliation
from tuiperf.results.verdict import BY_CONSTRUCTION_NOTE, gap_words, stage_cell
from tuiperf.tui.environment_lines import environment_splits, several, split_lines
from tuiperf.tui.explanations import Explanation, Explanations, why_bullet
from tuiperf.tui.formatting import format_ms, format_ns
from tuiperf.tui.text_table import fitted
from tuiperf.tui.widgets.plot_base import no_color
from tuiperf.tui.widgets.text_block import TextBlock, Wrapped

# Colour and fill character per stage (distinct characters keep the parts apart with NO_COLOR).
LOOK = {
    "framework": ("#cc79a7", "█"),
    "jit_dispatch": ("#e69f00", "▓"),
    "launch": ("#56b4e9", "▒"),
    "compute": ("#009e73", "░"),
    "outputs": ("#f0e442", "▚"),
}
PARTS = [(key, label, *LOOK[key]) for key, label, _ in BREAKDOWN_STAGES]
NAME_WIDTH = 24
RESOLUTION_NOTE = "< x: below what the method resolves at this size (the stage's CI, or two compiles of one program)"


# the detail's text made off the UI thread: (result, width, its text wrapped to that width when known)
Prepared = tuple[RunResult | None, int, Text | Wrapped]


def stage_ns(breakdown: Breakdown, key: str) -> float:
    stage = breakdown.stages.get(key)
    return max(stage.ns, 0.0) if stage is not None else 0.0  # noise below zero reads as zero


def stacked_bar(breakdown: Breakdown, scale: float, width: int) -> Text:
    """One variant's bar: each part's share of ``width`` cells at ``scale`` ns per cell."""
    text = Text()
    used = 0
    carry = 0.0
    for key, _, colour, char in PARTS:
        value = stage_ns(breakdown, key)
        exact = value / scale + carry
        cells = round(exact)
        carry = exact - cells
        cells = min(cells, width - used)
        if value > 0 and cells == 0 and used < width:
            cells = 1  # a part that exists is always visible
        text.append((char if no_color() else "█") * cells, style="" if no_color() else colour)
        used += cells
    return text


def legend_lines(width: int, monochrome: bool) -> list[Text]:
    """The stages' legend, broken between its items to ``width`` cells: wrapped at its spaces, a swatch
    ended one line and its label ("outputs") began the next at 80 columns."""
    lines, line = [], Text("Per call: ", style="bold")
    indent = line.cell_len
    for i, (_, label, colour, char) in enumerate(PARTS):
        item = Text()
        item.append((char if monochrome else "█") * 2 + " ", style="" if monochrome else colour)
        item.append(label)  # unstyled: a Text's own style would colour the label too
        gap = "" if i == 0 else "   "
        if i and line.cell_len + len(gap) + item.cell_len > width:
            lines.append(line)
            line, gap = Text(" " * indent, style="bold"), ""
        line.append(gap)
        line.append_text(item)
    return [*lines, line]


class OverheadBreakdown(VerticalScroll):
    DEFAULT_CSS = """
    OverheadBreakdown {
        height: 1fr;
        scrollbar-gutter: stable;  /* the width stays when a scrollbar comes or goes: no second layout */
        scrollbar-size-vertical: 1;
        overflow-x: auto;  /* the detail tables keep their columns: a narrow screen scrolls them sideways */
        scrollbar-size-horizontal: 1;
    }
    #breakdown-bars {
        padding: 1 1 0 1;
    }
    #breakdown-detail {
        width: auto;
        height: auto;
        padding: 0 1;
    }
    """

    @dataclass
    class SplitAcross(Message):
        """Each variant's gap between its environment and the reference one, split by stage."""

        generation: int
        splits: list[Reconciliation]

    def __init__(self, explanations: Explanations, **kwargs: Any) -> None:
        """``explanations``: the results panel's, shared with Statistics."""
        super().__init__(**kwargs)
        self._explanations = explanations
        self.result: RunResult | None = None
        self.baseline: str | None = None
        self._generation = 0  # counts the results shown, so a late split between environments is recognised
        self._across: list[Reconciliation] | None = None  # between environments, for the result shown
        self._splitting_across = False
        self._detail_for: tuple[RunResult | None, int] | None = None  # the detail's result and width
        self._prepared: Prepared | None = None  # the detail made off the UI thread for the result shown
        self._last_width = 0
        self._gap_lines = 0  # the gaps' lines last shown: what their placeholder keeps while they are made
        self._bars_from: tuple[Any, ...] | None = None  # what the bars block was last drawn from

    @property
    def _width(self) -> int:
        """The tab's width; a hidden tab has no size, so the width it had when last shown."""
        return self.size.width or self._last_width

    def compose(self) -> ComposeResult:
        yield TextBlock("", id="breakdown-bars")
        yield TextBlock("", id="breakdown-detail")

    def on_resize(self) -> None:
        self._last_width = self._width
        self._render_bars()
        self._render_detail()  # its tables stack their rows where they do not fit

    def show(
        self,
        result: RunResult | None,
        baseline: str | None = None,
        prepared: Prepared | None = None,
    ) -> None:
        """``prepared``: the detail's text made off the UI thread (see :meth:`_render_detail`)."""
        if result is not self.result:
            self._generation += 1
            self._across, self._splitting_across = None, False
        self.result = result
        self.baseline = baseline
        if prepared is not None:
            self._prepared = prepared
        self._render_bars()
        self._render_detail()

    def _bars_drawn_from(self) -> tuple[Any, ...]:
        """What the bars block is drawn from: the same again draws nothing (the block wraps its text to
        know its height, 2-3 ms each time the tab was shown)."""
        base = self._base()
        made = self._explanations.made(self.result, base.name) if base is not None else None
        on_screen = bool(self.region.area)  # (the gaps' explanation is asked for once on screen)
        return (self.result, made, self._across, self.baseline, self._width, no_color(), on_screen)

    def _render_bars(self) -> None:
        drawn_from, last = self._bars_drawn_from(), self._bars_from
        # the same objects (``is``: a result compared by value would cost more than drawing it), the same values
        if last is not None and all(a is b for a, b in zip(drawn_from[:3], last)) and drawn_from[3:] == last[3:]:
            return
        self._bars_from = drawn_from
        bars = self.query_one("#breakdown-bars", TextBlock)
        variants = self.result.variants if self.result else []
        if not variants:
            bars.show(Text("Per-call overhead breakdown — no results yet (press r to run)", style="dim"))
            return
        name_w = min(max([len(v.name) for v in variants] + [8]), NAME_WIDTH)
        width = max(10, self._width - name_w - 14)  # room for the name, the bar and its total
        lines = [*legend_lines(max(self._width - 3, 20), no_color()), Text("")]
        drawn = [v.breakdown for v in variants if v.breakdown is not None and v.breakdown.reliable]
        totals = [sum(stage_ns(b, k) for k, *_ in PARTS) for b in drawn]
        scale = (max(totals) if totals else 1.0) / width or 1.0
        for v in variants:
            line = Text(one_line(v.name, name_w).ljust(name_w) + "  ", style="bold")
            b = v.breakdown
            if b is not None and b.reliable:
                line.append_text(stacked_bar(b, scale, width))
                line.append(f" {format_ns(b.call_ns)}")
            elif b is not None:
                line.append("not a reliable split: ", style="bold yellow")
                line.append(one_line(b.reason or "the paths were not comparable"), style="yellow")
            elif v.skipped:
                line.append("skipped: " + one_line("; ".join(v.notes) or "no reason given"), style="dim")
            elif v.status == "failed":
                line.append("failed: " + one_line(v.failure.error if v.failure else ""), style="red")
            else:
                reason = next((n for n in v.notes if n.startswith("no overhead breakdown")), "no breakdown")
                line.append(one_line(reason), style="dim")
            lines.append(line)
        lines.extend(self._gaps())
        lines.extend(self._between_environments())
        bars.show_text(Text("\n").join(lines))  # unchanged (the tab shown again), or as many lines: no layout

    def _base(self) -> VariantResult | None:
        """The variant whose gaps are split by stage, if the shown result has a breakdown for it."""
        if self.result is None:
            return None
        base_name, _ = against(self.result, self.baseline)
        base = self.result.variant(base_name) if base_name else None
        return base if base is not None and base.breakdown is not None else None

    def on_show(self) -> None:
        self._render_bars()  # the reconciliation waits until the tab is looked at

    def _gaps(self) -> list[Text]:
        """Each variant's gap to the baseline, split by stage: reconciled in a thread, and only once the
        tab is on screen (hundreds of paired bootstrap resamples per variant in pure Python held the UI
        thread up visibly, and in a thread they still compete for the GIL at a run's end)."""
        result, base = self.result, self._base()
        if result is None or base is None:
            return []
        lines = [Text(""), Text(f"the gap to {one_line(base.name)}, by stage", style="bold")]
        explanation = self._explanations.made(result, base.name)
        if explanation is None:
            if self.region.area:  # made in a thread once on screen, after this frame (it takes the GIL)
                self.call_after_refresh(self._explanations.ask, result, base.name)
            # as many lines as the last gaps shown: when these come, likely no layout of the screen
            waiting = Text("reconciling the stages…", style="dim")
            return [*lines, waiting, *[Text("")] * max(self._gap_lines - len(lines) - 1, 0)]
        for split in explanation.splits.values():
            v = result.variant(split.variant)
            if v is None or not split.gap_ns:
                continue
            line = Text.assemble((one_line(v.name), "bold"), f" {_signed(split.gap_ns)}: {gap_words(split)}")
            lines.append(line)
        if len(lines) == 2:  # no variant split against the baseline: no title over nothing
            lines = []
        why = [why_bullet(sentence) for _, sentence in explanation.sentences]
        if why:
            lines += [Text(""), Text(f"why, against {one_line(base.name)}", style="bold"), *why]
        if not lines:
            return []
        self._gap_lines = self.query_one("#breakdown-bars", TextBlock).lines_of(Text("\n").join(lines)) or len(lines)
        return lines

    def _between_environments(self) -> list[Text]:
        """Which stage moved between the environments of a run over several (reconciled in a thread,
        once the tab is on screen, as the gaps to the baseline are)."""
        result = self.result
        if not several(result):
            return []
        assert result is not None
        if self._across is None:
            if not self._splitting_across and self.region.area:
                self._splitting_across = True
                self._split_across(result, self._generation)
            return [Text(""), Text("reconciling the stages between environments…", style="dim")]
        return split_lines(result, self._across)

    @work(thread=True, group="reconcile-across", exit_on_error=False, description="split across")
    def _split_across(self, result: RunResult, generation: int) -> None:
        self.post_message(self.SplitAcross(generation, environment_splits(result)))

    def on_overhead_breakdown_split_across(self, message: SplitAcross) -> None:
        message.stop()
        if message.generation != self._generation:
            return  # a result shown since
        self._across, self._splitting_across = message.splits, False
        self._render_bars()

    @property
    def settled(self) -> bool:
        """On screen, the gaps are reconciled (screenshots and tests wait for this, as for the plots)."""
        base = self._base()
        # Shown but not laid out yet (a tab just switched to) counts as on screen: its reconciliation
        # starts at the first layout, and a wait that ended before it read "reconciling…".
        shown = self.region.area > 0 or all(
            node.display for node in self.ancestors_with_self if isinstance(node, Widget)
        )
        across = not several(self.result) or self._across is not None
        explained = base is None or self._explanations.made(self.result, base.name) is not None
        return not shown or (explained and across)

    def explained(self, explanation: Explanation) -> None:
        """An explanation made (:mod:`tuiperf.tui.explanations`): drawn if it is of the gaps shown."""
        base = self._base()
        if explanation.result is self.result and base is not None and explanation.baseline == base.name:
            self._render_bars()

    def _render_detail(self) -> None:
        """The per-call and one-time tables: the text prepared off the UI thread when it was made for
        this result at this width (0: not laid out yet, until the first layout gives it one), else made here."""
        detail = self.query_one("#breakdown-detail", TextBlock)
        width = max(self._width - 3, 0)  # less the padding and a scrollbar
        if self._detail_for is not None and self._detail_for[0] is self.result and self._detail_for[1] == width:
            return  # the same tables (a new baseline changes the bars only)
        self._detail_for = (self.result, width)
        prepared = self._prepared
        if prepared is not None and prepared[0] is self.result and width in (prepared[1], 0):
            detail.show_text(prepared[2])
        else:
            detail.show_text(detail_text(self.result, width))


def detail_text(result: RunResult | None, width: int) -> Text:
    """The per-call stages (± 95 % CI) and one-time stages of each variant, in tables ``width`` wide
    (no Textual: a thread can make it)."""
    variants = result.variants if result else []
    if not variants:
        return Text("")
    header = [Text("variant", style="bold")]
    header += [Text(label, style="bold" if no_color() else f"bold {colour}") for _, label, colour, _ in PARTS]
    per_call = [[*header, Text("residual", style="bold")]]
    stages = [[header[0], *[Text(label, style="bold") for _, label in COMPILE_STAGES]]]
    for v in variants:
        b = v.breakdown
        name = Text(one_line(v.name, NAME_WIDTH))
        cells = []
        for key, *_ in PARTS:
            stage = b.stages.get(key) if b else None
            if stage is None:
                cells.append(Text("—"))
                continue
            half = (stage.ci95_ns[1] - stage.ci95_ns[0]) / 2 if stage.ci95_ns else 0.0
            shown = stage_cell(stage, format_ns)
            measured = shown == format_ns(stage.ns)
            cells.append(Text(shown + (f" ±{format_ns(half)}" if half >= 0.5 and measured else "")))
        per_call.append([name, *cells, Text(format_ns(b.residual_ns) if b else "—")])
        stages.append([name, *[Text(format_ms(getattr(v.stages, k))) for k, _ in COMPILE_STAGES]])
    lines = [Text(""), Text("per call (± 95 % CI)", style="bold")]
    lines += fitted(per_call, "l" + "r" * (len(PARTS) + 1), width)
    if any(s.by_construction for v in variants if v.breakdown for s in v.breakdown.stages.values()):
        lines += _note(BY_CONSTRUCTION_NOTE, width)
    lines += _note(RESOLUTION_NOTE, width)
    lines += [Text(""), Text("one-time stages", style="bold")]
    lines += fitted(stages, "l" + "r" * len(COMPILE_STAGES), width)
    note = first_compile_note(result) if result is not None else ""
    if note:
        lines += _note(note, width)
    if result is not None:
        lines += repeated_compile_lines(result, width)
        lines += memory_lines(result, width)
    return Text("\n").join(lines)


def repeated_compile_lines(result: RunResult, width: int = 0) -> list[Text]:
    """``--measure compile``: each stage's median [95 % CI] over its repeats and the total's ratio to the
    baseline's, as the report gives them (the one-time stages above are one sample each)."""
    from tuiperf.results import compile_time as ct

    rows = ct.stage_rows(result)
    if not rows:
        return []
    header = [Text("variant", style="bold"), *[Text(label, style="bold") for _, label in REPEATED_STAGES]]
    table = [[*header, Text("repeats", style="bold")]]
    table += [[Text(one_line(row[0], NAME_WIDTH)), *map(Text, row[1:])] for row in rows]
    lines = [Text(""), Text("compile time, repeated with caches cleared: median [95 % CI]", style="bold")]
    lines += fitted(table, "l" + "r" * (len(REPEATED_STAGES) + 1), width)
    base, found = ct.ratios(result, result.options.baseline)
    if found:
        pairs = "   ".join(f"{one_line(r.name, NAME_WIDTH)} {ratio_with_interval(r.ratio, r.lo, r.hi)}" for r in found)
        lines += _note(f"trace+lower+compile against {one_line(base or '', NAME_WIDTH)} [95 % CI]: {pairs}", width)
    return lines


def _note(text: str, width: int) -> list[Text]:
    """A dim note wrapped between words to ``width`` (0: not known yet, one line)."""
    import textwrap

    return [Text(line, style="dim") for line in (textwrap.wrap(text, width) if width > 10 else [text])]


def memory_lines(result: RunResult, width: int = 0) -> list[Text]:
    """XLA's memory figures per variant and the measuring process's, under the one-time stages."""
    from tuiperf.results.memory import memory_rows, process_line

    rows = memory_rows(result)
    lines: list[Text] = []
    if rows:
        header = ["variant", "arguments", "outputs", "temps", "donated", "code", "total", "vs first"]
        table = [[Text(cell, style="bold" if row is header else "") for cell in row] for row in [header, *rows]]
        lines += [Text(""), Text("memory per call (XLA)", style="bold"), *fitted(table, "l" + "r" * 7, width)]
    process = process_line(result)
    # wrapped as the notes above it: on one line it ran past an 80-column tab ("device allocator fig")
    return [*lines, *_note(process, width)] if process else lines


def _signed(ns: float) -> str:
    return ("+" if ns > 0 else "−" if ns < 0 else "") + format_ns(abs(ns))
