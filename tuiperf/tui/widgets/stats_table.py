"""Statistics table: n, median, p10/p90, IQR, CI of the median and the ratio against a baseline; for
a run over several Python environments, first each environment and each variant against the
reference environment (:mod:`tuiperf.tui.environment_lines`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.widgets import Label, Select

from tuiperf.common.text import one_line
from tuiperf.common.units import format_p, how_much, interval_words
from tuiperf.results.findings import agreeing_p, in_two_processes, is_finding, p_cell
from tuiperf.results.model import RunResult
from tuiperf.results.ratios import against
from tuiperf.results.tried import rows as tried_rows
from tuiperf.tui.environment_lines import environment_lines
from tuiperf.tui.explanations import Explanation, Explanations, why_bullet
from tuiperf.tui.formatting import format_ns
from tuiperf.tui.view import partial_cause
from tuiperf.tui.widgets.plot_base import no_color, variant_hex
from tuiperf.tui.widgets.text_block import TextBlock
from tuiperf.tui.widgets.text_grid import TextGrid, grid_lines

# What matters first, so an 80-column terminal shows it without scrolling sideways.
COLUMNS = [
    "variant",
    "median",
    "× baseline",
    "95% CI of ratio",
    "p",
    "status",
    "n",
    "95% CI of median",
    "p10",
    "p90",
    "IQR",
]
JUSTIFY = dict(zip(COLUMNS, "lrlrrlrrrrr"))
# Where the table is wider than the tab (80 columns), a row's status and n come before the ratio's CI
# and p (which the verdict lines below repeat in words), so no sideways scroll is needed to see them.
NARROW_COLUMNS = [
    "variant",
    "median",
    "× baseline",
    "status",
    "n",
    *[c for c in COLUMNS[3:] if c not in ("status", "n")],
]


def ratio_against(
    result: RunResult, name: str, baseline: str
) -> tuple[float | None, tuple[float, float] | None, float | None]:
    """(ratio, ci95, p_value) of median(name)/median(baseline), from the run's pairwise comparisons."""
    if name == baseline:
        return 1.0, None, None
    row = against(result, baseline)[1].get(name)
    return (row.ratio, row.ci95, row.p_value) if row else (None, None, None)


def _kind(result: RunResult, name: str, baseline: str) -> tuple[str | None, bool]:
    """What a ratio's interval covers, and whether its two medians came from two processes."""
    row = against(result, baseline)[1].get(name)
    covers = row.interval.covers if row is not None and row.interval is not None else None
    return covers, in_two_processes(result, name, baseline)


class StatsTable(VerticalScroll):
    """Scrolls as a whole: a run over several environments puts their comparison above the table.

    ``baseline``, the variant the others are compared with, is a reactive: set it (the select, ``b``)
    and the select, the table and its explanation follow; the results panel watches it for the
    Breakdown. A new result's own baseline (:meth:`choose_baseline`) is set without the watcher: the
    tab is filled for that result anyway, when it is shown."""

    DEFAULT_CSS = """
    StatsTable {
        height: 1fr;
        scrollbar-gutter: stable;  /* the width stays when a scrollbar comes or goes: no second layout */
    }
    #baseline-row {
        height: 1;
        margin: 0 1;
    }
    #baseline {
        width: 30;
    }
    #stats-note {
        margin-left: 2;
    }
    #stats-environments {
        height: auto;
        padding: 0 1 1 1;
    }
    #stats-why {
        padding: 0 1;
    }
    #stats-table {
        height: auto;
        max-height: 1fr;
        scrollbar-size-horizontal: 1;
    }
    #stats-verdict {
        height: auto;
        padding: 1 1 0 1;
    }
    """

    baseline: var[str | None] = var(None, init=False)

    @dataclass
    class NextPrepared(Message):
        """The table against the baseline ``b`` would choose next, made ahead in a thread."""

        content: StatsContent

    def __init__(self, explanations: Explanations, **kwargs: Any) -> None:
        """``explanations``: the results panel's, shared with the Breakdown."""
        super().__init__(**kwargs)
        self._explanations = explanations
        self.result: RunResult | None = None
        self._measured: list[str] = []
        self._options: list[str] = []  # the baseline select's
        self._prepared: StatsContent | None = None  # the rows made off the UI thread for the result shown
        self._next: StatsContent | None = None  # against the next baseline, made ahead for `b`
        self._filled_width: int | None = None
        self._last_width = 0
        # the tab's parts, kept as composed
        self.select: Select[str] = Select([], id="baseline", compact=True, allow_blank=True, prompt="first variant")
        self.note = Label("", id="stats-note")
        self.blocks = {name: TextBlock("", id=name) for name in ("stats-environments", "stats-why", "stats-verdict")}
        self.grid = TextGrid(COLUMNS, "".join(JUSTIFY[c] for c in COLUMNS), id="stats-table")

    def compose(self) -> ComposeResult:
        with Horizontal(id="baseline-row"):
            yield Label("baseline", classes="param-name")
            yield self.select
            yield self.note
        yield self.blocks["stats-environments"]
        yield self.blocks["stats-why"]
        yield self.grid
        yield self.blocks["stats-verdict"]

    def choose_baseline(self, result: RunResult | None) -> str | None:
        """The baseline for ``result``: the user's, unless another set of variants came (the first)."""
        if result is not None:
            self.set_reactive(StatsTable.baseline, baseline_for(result, self.baseline, self._measured))
            self._measured = [v.name for v in result.measured]
        return self.baseline

    @property
    def kept_baseline(self) -> tuple[str | None, list[str]]:
        """The user's baseline and the variants it was chosen among (for :func:`baseline_for` in a thread)."""
        return self.baseline, list(self._measured)

    def begin(self, variants: list[str]) -> None:
        """A run starting: the last run's baseline is kept only when the same variants come (the
        table itself is emptied, header too, when the tab shows the run: :meth:`show`)."""
        if self._options and variants != self._options:  # (a first run has nothing to clear: no layout)
            with self.select.prevent(Select.Changed):
                self.select.set_options([])
            self._options, self._measured = [], []
            self.set_reactive(StatsTable.baseline, None)

    def show(self, result: RunResult | None, prepared: StatsContent | None = None) -> None:
        """``result`` against the baseline chosen for it; ``prepared``: its rows made off the UI thread."""
        self.result = result
        self._prepared = prepared
        grid = self.grid
        if grid.display != (result is not None):  # only a change lays the tab out again
            grid.display = result is not None
        ok = [v.name for v in result.measured] if result else []
        self.choose_baseline(result)
        select = self.select
        with select.prevent(Select.Changed):
            # Only a new set of variants replaces the options, and a cleared table (a run starting)
            # keeps them and the user's baseline: each replacement restyles the select.
            if result is not None and ok != self._options:
                select.set_options([(Text(one_line(n)), n) for n in ok])  # Text: a name is never markup
                self._options = ok
            if self.baseline in ok and select.value != self.baseline:
                select.value = self.baseline
        self._fill()

    def watch_baseline(self, baseline: str | None) -> None:
        """Another baseline chosen: the select shows it, and the table is made against it."""
        if baseline in self._options and self.select.value != baseline:
            with self.select.prevent(Select.Changed):
                self.select.value = baseline
        self._fill()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if isinstance(event.value, str):
            self.baseline = event.value

    def on_resize(self) -> None:
        # The column order depends on the width; a tab shown again gets a Resize of the same width.
        self._last_width = self._width
        if self.result is not None and self._filled_width != self._width:
            self._fill()

    @property
    def _width(self) -> int:
        """The text's width: less a scrollbar's gutter (kept whether one shows or not); a hidden tab
        has no size, so the width it had when last shown."""
        return max(self.size.width - 2, 0) if self.size.width else self._last_width

    def _fill(self) -> None:
        """The table for the shown result and baseline: the one prepared off the UI thread when it was
        made for them at this width (:mod:`tuiperf.tui.tab_contents`), else made here."""
        table, result, note = self.grid, self.result, self.note
        if result is None:
            table.clear()
            self._put("stats-verdict", Text(""))
            self._put("stats-why", Text(""))
            self._show_environments([])
            note.update("")
            return
        width = self._width
        self._filled_width = width
        made = [c for c in (self._prepared, self._next) if c is not None and c.fits(result, self.baseline, width)]
        content = made[0] if made else stats_content(result, self.baseline, width)
        following = self.next_baseline()
        ahead = self._next is not None and self._next.fits(result, following, width)
        if width and following is not None and following != self.baseline and not ahead:
            # `b` next: its table made once the screen shows this one (the worker's Python takes the GIL)
            self.call_after_refresh(self._prepare_next, result, following, width)
        self._show_environments(content.environments)
        self._put("stats-verdict", content.verdicts)
        if self.baseline and len(result.measured) > 1:
            explanation = self._explanations.made(result, self.baseline)
            if explanation is None:  # made in a thread, started once this frame is drawn (the GIL)
                self.call_after_refresh(self._explanations.ask, result, self.baseline)
            self._show_why(explanation, waiting=explanation is None)
        else:
            self._show_why(None)
        partial = Text(f"PARTIAL RESULT ({partial_cause(result)})", style="bold reverse yellow")
        shown_note = partial if result.partial else Text("")
        if note.content != shown_note:  # Label.update lays the screen out, changed or not
            note.update(shown_note)
        if table.headers != content.headers:
            table.headers, table.justify = list(content.headers), "".join(JUSTIFY[c] for c in content.headers)
        table.set_rows(content.rows, content.lines)

    def next_baseline(self) -> str | None:
        """The measured variant after the baseline (the first after the last): what `b` chooses."""
        names = [v.name for v in self.result.measured] if self.result else []
        if not names:
            return None
        index = names.index(self.baseline) if self.baseline in names else -1
        return names[(index + 1) % len(names)]

    @work(thread=True, group="stats-next", exclusive=True, exit_on_error=False, description="next baseline")
    def _prepare_next(self, result: RunResult, baseline: str, width: int) -> None:
        self.post_message(self.NextPrepared(stats_content(result, baseline, width)))

    def on_stats_table_next_prepared(self, message: NextPrepared) -> None:
        message.stop()
        if message.content.result is self.result:
            self._next = message.content

    def _show_environments(self, lines: list[Text]) -> None:
        block = self.blocks["stats-environments"]
        if block.display != bool(lines):  # only a change lays the tab out again
            block.display = bool(lines)
        self._put("stats-environments", Text("\n").join(lines) if lines else Text(""))

    def _put(self, block: str, text: Text) -> None:
        self.blocks[block].show_text(text)

    def explained(self, explanation: Explanation) -> None:
        """An explanation made (:mod:`tuiperf.tui.explanations`): shown if it is of what is shown."""
        if explanation.result is self.result and explanation.baseline == self.baseline:
            self._show_why(explanation)

    def _show_why(self, explanation: Explanation | None, waiting: bool = False) -> None:
        """Why each variant differs from the baseline, one bullet each. ``waiting``: while it is made,
        a line saying so in the block's height so far (when it comes, likely the same: no layout)."""
        if waiting:
            block = self.blocks["stats-why"]
            lines = [Text(f"explaining each difference from {one_line(self.baseline or '')}…", style="dim")]
            lines += [Text("")] * max((block.extent or 1) - 1, 0)  # (a hidden block has no size)
            self._put("stats-why", Text("\n").join(lines))
            return
        sentences = [sentence for _, sentence in explanation.sentences] if explanation else []
        self._put("stats-why", Text("\n").join(why_bullet(s) for s in sentences))
        following = self.next_baseline()
        if explanation is not None and following is not None and following != self.baseline:
            self.call_after_refresh(self._explain_ahead, explanation.result, following)

    def _explain_ahead(self, result: RunResult, baseline: str) -> None:
        """`b` next: its explanation made ahead while the tab is on screen (its Python takes the GIL)."""
        if self.region.area:
            self._explanations.ask(result, baseline)


def baseline_for(result: RunResult, baseline: str | None, measured: list[str]) -> str | None:
    """The baseline ``result`` is shown against: ``baseline``, chosen among ``measured``, while the same
    variants come; else the run's own (--baseline, reference=True), else the first."""
    ok = [v.name for v in result.measured]
    return baseline if baseline in ok and ok == measured else against(result)[0]


@dataclass(frozen=True)
class StatsContent:
    """What the Statistics tab shows of a result against a baseline at a width: made in a thread."""

    result: RunResult
    baseline: str | None
    width: int
    headers: list[str]
    rows: list[tuple[str, list[Text]]]  # (variant, a cell per column of COLUMNS' order)
    lines: list[Text]  # the header and the rows aligned in the order of ``headers``
    verdicts: Text
    environments: list[Text]

    def fits(self, result: RunResult, baseline: str | None, width: int) -> bool:
        """Made for this result and baseline at this width (0: a tab not laid out yet, which shows
        them until its first layout gives it a width)."""
        return self.result is result and self.baseline == baseline and width in (self.width, 0)


def stats_content(result: RunResult, baseline: str | None, width: int) -> StatsContent:
    """The table's rows, column order and aligned lines, the verdicts and the environments' lines."""
    rows = []
    for i, v in enumerate(result.variants):
        s = v.sampling.stats
        name = Text(one_line(v.name, 40), style="bold" if no_color() else f"bold {variant_hex(i)}")
        if v.skipped:
            status = Text("skipped", style="dim")
        elif not v.ok:
            status = Text("FAILED", style="bold red")
        elif result.equivalence.differs(v.name):
            status = Text("⚠ differs", style="bold yellow")
        else:
            status = Text("ok", style="green")
            if len(v.sampling.modes) > 1:
                status = Text(f"{len(v.sampling.modes)} modes", style="yellow")
            if v.recompiles.recompiles:  # its samples hold compile time: not "ok" (see Warnings)
                status = Text(f"compiled {v.recompiles.recompiles}× while timed", style="bold yellow")
        ratio, rci, p = (None, None, None)
        if baseline and v.ok and s:
            ratio, rci, p = ratio_against(result, v.name, baseline)
        cells = [
            name,
            Text(format_ns(s.median_ns), style="bold") if s else "—",
            (f"{ratio:.3f}×" if ratio is not None else "—") + (" (baseline)" if v.name == baseline else ""),
            f"{rci[0]:.3f} – {rci[1]:.3f}" if rci else "—",
            p_cell(p, rci is not None and baseline is not None and is_finding(rci, *_kind(result, v.name, baseline))),
            status,
            str(s.n) if s else "—",
            f"{format_ns(s.ci95_median_ns[0])} – {format_ns(s.ci95_median_ns[1])}" if s else "—",
            format_ns(s.p10_ns) if s else "—",
            format_ns(s.p90_ns) if s else "—",
            format_ns(s.iqr_ns) if s else "—",
        ]
        rows.append((v.name, [c if isinstance(c, Text) else Text(c) for c in cells]))
    headers = COLUMNS if _fits(rows, width) else NARROW_COLUMNS
    position = [COLUMNS.index(c) for c in headers]
    ordered = [(key, [cells[i] for i in position]) for key, cells in rows]
    return StatsContent(
        result,
        baseline,
        width,
        list(headers),
        ordered,
        grid_lines(headers, "".join(JUSTIFY[c] for c in headers), ordered),
        verdicts(result, baseline),
        environment_lines(result, width),
    )


def verdicts(result: RunResult, baseline: str | None) -> Text:
    """One line per variant against the baseline, in words: faster/slower by how much, or no difference."""
    text = Text()
    if not baseline:
        return text
    for v in result.measured:
        if v.name == baseline:
            continue
        ratio, ci, p = ratio_against(result, v.name, baseline)
        if ratio is None:
            continue
        if ci and ci[0] <= 1.0 <= ci[1]:  # the interval decides: no p that says otherwise beside it
            line = Text.assemble(
                (one_line(v.name), "bold"),
                f": no clear difference in the median from {one_line(baseline)} "
                f"(ratio CI {ci[0]:.3f}–{ci[1]:.3f} includes 1)",
            )
        elif ci and not is_finding(ci, *_kind(result, v.name, baseline)):
            line = Text.assemble(
                (one_line(v.name), "bold"),
                f": {how_much(ratio)} {'as' if '×' in how_much(ratio) else 'than'} {one_line(baseline)} in these "
                f"two processes, undecided (the ratio CI {ci[0]:.3f}–{ci[1]:.3f} leaves out process-to-process "
                "spread)",
            )
        else:
            words = how_much(ratio)
            line = Text.assemble(
                (one_line(v.name), "bold"),
                " is ",
                (words, "bold"),
                f" {'as' if '×' in words else 'than'} {one_line(baseline)}",
            )
            if ci:  # the interval in the sentence's own unit (× or %)
                shown = agreeing_p(p, True)
                line.append(
                    f" ({interval_words(ratio, *ci)}"
                    + (
                        f", p {'' if format_p(shown).startswith('<') else '= '}{format_p(shown)})"
                        if shown is not None
                        else ")"
                    )
                )
        if result.equivalence.differs(v.name):
            line.append(" — but it does not compute the same thing (see Warnings)", style="bold yellow")
        text.append_text(line)
        text.append("\n")
    for row in tried_rows(result):  # remedies tuiperf tried itself: apart from the user's variants
        variant, remedy, _, remedied, against_original, outputs = row
        text.append(f"tried by tuiperf (not your variant): {one_line(variant)} with {one_line(remedy)}: ", style="dim")
        text.append(f"{remedied}, {against_original} of the original, {outputs}", style="dim")
        text.append("\n")
    text.rstrip()
    return text


def _fits(rows: list[tuple[str, list[Text]]], width: int) -> bool:
    """Whether the first order shows every column up to n within ``width`` cells (a cell of margin
    each side, as drawn; a width of 0 is a table not laid out yet)."""
    shown = COLUMNS[: COLUMNS.index("n") + 1]
    widths = [max([len(c)] + [cells[i].cell_len for _, cells in rows]) for i, c in enumerate(shown)]
    return not width or sum(widths) + 2 * (len(shown) - 1) + 2 <= width
