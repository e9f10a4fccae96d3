"""Python profile of each variant's call: the top functions by cumulative time, timings first.

JAX's C++ dispatch and the XLA executable appear as their own row (see
:mod:`tuiperf.measuring.profiling`); the note says how to read the figures (cProfile inflates Python time).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical

from tuiperf.common.text import one_line
from tuiperf.results.model import NOT_ATTRIBUTED, RunResult
from tuiperf.tui.widgets.plot_base import no_color, variant_hex
from tuiperf.tui.widgets.scenario_info import DescriptionBox
from tuiperf.tui.widgets.text_block import TextBlock
from tuiperf.tui.widgets.text_grid import TextGrid, grid_lines

TOP = 15
# The executable's row as the table names it: the stored name ("jax.jit call: JAX's C++ dispatch + the
# XLA executable") was cut at 80 columns; the note above the table says what the bold row is.
EXECUTABLE_ROW = "C++ dispatch + XLA executable"
_MEDIAN_AND_PROFILED = re.compile(r"median is ([^;]+); profiled, ([^)]+)\)")
COLUMNS = ("cumulative µs", "own µs", "calls", "variant", "function")
JUSTIFY = "rrrll"
# The operations table (a profiler trace of the compiled program, results.ops): the top rows per variant.
OPS_TOP = 6
OPS_COLUMNS = ("µs/call", "share", "runs", "variant", "operation (kind, shapes, your line)")
OPS_JUSTIFY = "rrrll"


class ProfileTable(Vertical):
    DEFAULT_CSS = """
    ProfileTable {
        height: 1fr;
    }
    #profile-note-box {
        height: auto;
        max-height: 35%;  /* at 80x24 the note's 8 lines left the functions' rows 1 line, blank: it scrolls */
        scrollbar-size-vertical: 1;
    }
    #profile-note {
        height: auto;
        padding: 0 1;
    }
    #profile-rows {
        height: 1fr;
        min-height: 4;
        scrollbar-size-horizontal: 1;
    }
    #ops-rows {
        height: auto;
        max-height: 40%;
        scrollbar-size-horizontal: 1;
    }
    """

    def compose(self) -> ComposeResult:
        # A tab stop only while the note scrolls, its focus bar kept clear without colour (nocolor.tcss)
        with DescriptionBox(id="profile-note-box"):
            yield TextBlock("", id="profile-note")
        # Aligned text, not a DataTable: its first draw after a fill rendered every cell (56 ms of the
        # UI thread for a two-variant result, `benchmarks/ui_responsiveness.py`'s profile key).
        yield TextGrid(COLUMNS, JUSTIFY, id="profile-rows")
        ops = TextGrid(OPS_COLUMNS, OPS_JUSTIFY, id="ops-rows")
        ops.display = False  # shown for a result with operations tables only
        yield ops

    def show(self, result: RunResult | None, prepared: ProfileContent | None = None) -> None:
        """The table for ``result``: ``prepared`` off the UI thread for it, else made here."""
        content = prepared if prepared is not None and prepared.result is result else profile_content(result)
        self.query_one("#profile-rows", TextGrid).set_rows(content.rows, content.lines)
        ops = self.query_one("#ops-rows", TextGrid)
        ops.display = bool(content.ops_rows)
        if content.ops_rows:
            ops.set_rows(content.ops_rows, grid_lines(OPS_COLUMNS, OPS_JUSTIFY, content.ops_rows))
        note = content.note
        self.query_one("#profile-note", TextBlock).show_text(Text(note) if isinstance(note, str) else note)


@dataclass(frozen=True)
class ProfileContent:
    """What the Profile tab shows of a result: made in a thread."""

    result: RunResult | None
    rows: list[tuple[str, list[Text]]]  # (a key, a cell per column)
    lines: list[Text]  # the header and the rows aligned (text_grid.grid_lines)
    note: Text | str
    ops_rows: list[tuple[str, list[Text]]] = field(default_factory=list)  # the operations tables' top rows


def ops_rows(result: RunResult | None) -> list[tuple[str, list[Text]]]:
    """Each variant's top operations and what its trace does not attribute (results.ops)."""
    rows: list[tuple[str, list[Text]]] = []
    for i, v in enumerate(result.variants if result else []):
        table = v.program.ops
        if table is None or not table.rows:
            continue
        style = "bold" if no_color() else f"bold {variant_hex(i)}"
        shown = [*table.operations[:OPS_TOP], *(r for r in table.rows if r.kind == NOT_ATTRIBUTED)]
        for j, r in enumerate(shown):
            what = ", ".join(x for x in (r.kind, r.detail, r.shapes, r.source) if x)
            cells = [
                Text(f"{r.ns / 1e3:.2f}"),
                Text("–" if r.share is None else f"{r.share:.0%}"),
                Text("" if r.kind == NOT_ATTRIBUTED else _calls(r.calls)),
                Text(one_line(v.name, 30), style=style) if j == 0 else Text(""),
                Text(_short(one_line(f"{r.op} ({what})"), 100), style="dim" if r.kind == NOT_ATTRIBUTED else ""),
            ]
            rows.append((f"ops{i}.{j}", cells))
    return rows


def profile_content(result: RunResult | None) -> ProfileContent:
    """Each variant's top functions as the table's rows, and the note on how to read them."""
    rows: list[tuple[str, list[Text]]] = []
    inflation = []
    for i, v in enumerate(result.variants if result else []):
        style = "bold" if no_color() else f"bold {variant_hex(i)}"
        top = sorted(v.profile.rows, key=lambda r: -r.cumtime_us)[:TOP]
        if not top:
            name = Text(one_line(v.name, 30), style=style)
            cells = [Text(""), Text(""), Text(""), name, Text(one_line(v.profile.note or "no profile"), style="dim")]
            rows.append((f"{i}", cells))
            continue
        measured = _MEDIAN_AND_PROFILED.search(v.profile.note or "")
        if measured:
            inflation.append(f"{one_line(v.name, 30)} {measured.group(1)} → {measured.group(2)}")
        for j, r in enumerate(top):
            executable = r.kind == "executable"
            function = Text(EXECUTABLE_ROW if executable else _short(one_line(r.function)), style="bold" * executable)
            cells = [
                Text(f"{r.cumtime_us:.2f}"),
                Text(f"{r.tottime_us:.2f}"),
                Text(_calls(r.ncalls)),
                Text(one_line(v.name, 30), style=style) if j == 0 else Text(""),
                function,
            ]
            rows.append((f"{i}.{j}", cells))
    traced = trace_rows(result)
    rows += traced
    note = Text(
        "cProfile adds its own cost to every Python call: read shares and names, not latency. "
        "JAX's C++ dispatch and the executable are their own (bold) row.",
        style="dim",
    )
    if inflation:
        note.append("\nmedian → profiled per call: " + " · ".join(inflation), style="dim")
    if traced:
        note.append(
            f"\nrows marked '{TRACE_MARK}': one trace of the variant (--measure compile), after the repeats, by own "
            "time; ◆ the scenario file's own functions",
            style="dim",
        )
    operations = ops_rows(result)
    if operations:
        note.append(
            "\nbelow: the operations of each compiled program (a profiler trace after sampling), µs per call "
            "and share of the breakdown's compute stage",
            style="dim",
        )
    return ProfileContent(result, rows, grid_lines(COLUMNS, JUSTIFY, rows), note if result else "", operations)


TRACE_MARK = "trace ·"


def trace_rows(result: RunResult | None) -> list[tuple[str, list[Text]]]:
    """Each variant's profile of one trace (``--measure compile``): its functions by own time, then the
    scenario file's own functions (◆), each marked as a trace's."""
    rows: list[tuple[str, list[Text]]] = []
    for i, v in enumerate(result.variants if result else []):
        profile = v.stages.trace_profile
        if profile is None or not profile.rows:
            continue
        style = "bold" if no_color() else f"bold {variant_hex(i)}"
        for j, r in enumerate(profile.rows):
            mark = f"{TRACE_MARK} ◆ " if r.kind == "scenario" else f"{TRACE_MARK} "
            cells = [
                Text(f"{r.cumtime_us:.2f}"),
                Text(f"{r.tottime_us:.2f}"),
                Text(_calls(r.ncalls)),
                Text(one_line(v.name, 30), style=style) if j == 0 else Text(""),
                Text(mark + _short(one_line(r.function))),
            ]
            rows.append((f"trace{i}.{j}", cells))
    return rows


def _short(text: str, width: int = 70) -> str:
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def _calls(n: float) -> str:
    return str(int(n)) if float(n).is_integer() else f"{n:g}"
