"""Run progress: a bar with elapsed time and ETA, the phase, and each variant's current estimate
(like hyperfine's running median); after a run, each variant's final median at a glance."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import ProgressBar

from tuiperf.results.compile_time import format_ms
from tuiperf.results.model import RunResult, VariantResult
from tuiperf.tui.formatting import format_ns, format_seconds
from tuiperf.tui.run_state import RunState
from tuiperf.tui.text_table import columns
from tuiperf.tui.view import partial_cause
from tuiperf.tui.widgets.plot_base import no_color, variant_hex
from tuiperf.tui.widgets.text_block import TextBlock, Wrapped

JUSTIFY = "lrrl"  # variant, estimate, sample count, state
COMPILE_JUSTIFY = "llrll" + JUSTIFY[1:]  # variant, "compile", its median, its interval, "· call", then as above
COMPACT_BELOW = 100  # columns: a shorter bar and time line below this width


def time_line(elapsed: float, eta: float | None, compact: bool) -> str:
    """Time spent and left; ``compact`` fits 21 cells (80 columns cut "20.3 s elapsed · ~…" to "20.…")."""
    if compact and eta is not None:
        return f"{format_seconds(elapsed)} · ~{format_seconds(eta)} left"
    if compact:
        return f"{format_seconds(elapsed)} elapsed"
    left = f"~{format_seconds(eta)} left" if eta is not None else "estimating"
    return f"{format_seconds(elapsed)} elapsed · {left}"


def estimate_lines(rows: list[list[Text]], more: int = 0, justify: str = JUSTIFY) -> Text:
    """Each variant's row, aligned, one line a row (ten live updates a second: no Rich table), and how
    many more variants there are beyond the rows shown."""
    lines = columns(rows, justify)
    if more > 0:
        lines.append(Text(f"… {more} more variant{'s' * (more != 1)} (see Statistics, key 4)", style="dim"))
    return Text("\n").join(lines)


BLOCKS = {"run-header": "", "progress-status": "idle", "progress-eta": "", "estimates": ""}  # id: first text


class RunProgress(Vertical):
    DEFAULT_CSS = """
    RunProgress {
        height: auto;  /* run_progress.rows_shown sets how many variant rows: a max-height would hide some unsaid */
        padding: 0 1;
        border-bottom: hkey $panel-lighten-2;
    }
    #run-header {
        height: auto;
    }
    #progress-line {
        height: 1;
    }
    /* Every width fixed: a new phase or a new time redraws one line, not the screen's layout (30-110 ms). */
    #progress-status {
        width: 1fr;
        height: 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        margin-right: 2;
    }
    #progress-bar {
        width: auto;
    }
    #progress-bar Bar {
        width: 24;
    }
    #progress-eta {
        width: 31;  /* "12m34s elapsed · ~12m34s left" */
        height: 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        margin-left: 2;
        color: $text-muted;
    }
    /* Below 100 columns the bar is shorter and the time shorter ("20.3 s · ~12.0 s left"). */
    RunProgress.-compact #progress-bar Bar {
        width: 10;
    }
    RunProgress.-compact #progress-eta {
        width: 23;
    }
    #estimates {
        height: auto;
        text-wrap: nowrap;  /* one line a variant: a long failure is cut (Warnings has all of it) */
        text-overflow: ellipsis;
    }
    """

    _shown: tuple[Any, ...] | None = None  # (method, args) last shown, redrawn when the screen resizes
    _made_rows: tuple[RunResult, int, Wrapped] | None = None  # a result's rows given, for a screen height

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.blocks = {name: TextBlock(initial, id=name) for name, initial in BLOCKS.items()}
        self.estimates = self.blocks["estimates"]  # its width is what a result's rows are laid out to
        self.bar = ProgressBar(total=1.0, show_eta=False, id="progress-bar")

    def _put(self, widget_id: str, content: Any, key: Any = None, extent: int | None = None) -> None:
        self.blocks[widget_id].show(content, key, extent)

    def _put_text(self, widget_id: str, text: Text | Wrapped) -> None:
        """Show ``text`` wrapped, laying the screen out only when its height changes (a run's header
        and its result's differ, on as many lines)."""
        self.blocks[widget_id].show_text(text)

    def _compact(self) -> bool:
        """Below 100 columns: the shorter bar and time line (set where it is drawn, as a narrow
        screen's results half can be laid out without a resize of this block reaching it)."""
        compact = 0 < self.size.width < COMPACT_BELOW
        self.set_class(compact, "-compact")
        return compact

    def on_resize(self) -> None:
        self._compact()
        if self._shown is not None:  # how many variant rows fit depends on the screen's height
            method, *args = self._shown
            method(*args)

    def compose(self) -> ComposeResult:
        yield self.blocks["run-header"]
        with Horizontal(id="progress-line"):
            yield self.blocks["progress-status"]
            yield self.bar
            yield self.blocks["progress-eta"]
        yield self.estimates

    def show_progress(self, live: RunState, order: list[str]) -> None:
        self._shown = (self.show_progress, live, order)
        with live.lock:
            fraction, eta = live.fraction, live.eta_s
            elapsed = time.monotonic() - live.started  # a true clock: it runs through compiles too
            estimates, counts = dict(live.estimates_ns), dict(live.counts)
            phase, pv, sweep_value = live.phase, live.phase_variant, live.sweep_value
            finished = dict(live.finished_variants)
        self.bar.update(total=1.0, progress=max(0.0, min(fraction, 1.0)))
        self._put_text("run-header", Text(live.header, style="bold"))
        status = Text("● running ", style="bold green")
        status.append(phase + (f" {pv}" if pv else ""), style="")
        if live.phase_message:
            status.append(f" · {live.phase_message}", style="dim")
        if sweep_value is not None:
            status.append(f"  (sweep value {sweep_value})", style="dim")
        self._put("progress-status", status, key=status.plain, extent=1)  # its width is fixed (DEFAULT_CSS)
        self._put("progress-eta", time_line(elapsed, eta, self._compact()), extent=1)  # fixed width
        self._show_progress_rows(order, estimates, counts, finished)

    def show_plan(self, header: str, order: list[str]) -> None:
        """Nothing measured yet: what a run would show at its start (its header, a waiting row per
        variant), so that starting it redraws lines in place: the block growing from one line to a
        row per variant laid the whole screen out as the first run began."""
        self._shown = (self.show_plan, header, order)
        self.bar.update(total=1.0, progress=0)
        self._put_text("run-header", Text(header, style="bold"))
        status = Text("idle — press r to run", style="dim")
        self._put("progress-status", status, key=status.plain, extent=1)
        self._put("progress-eta", "", extent=1)
        self._show_progress_rows(order, {}, {}, {})

    def _show_progress_rows(
        self, order: list[str], estimates: dict[str, float], counts: dict[str, int], finished: dict[str, VariantResult]
    ) -> None:
        shown = rows_shown(len(order), self.app.size.height)
        rows = []
        for i, name in enumerate(order[:shown]):
            done = finished.get(name)
            if done is not None:
                if done.status == "failed":
                    state = Text("failed", style="bold red")
                else:
                    state = Text("done", style="green") if done.ok else Text("skipped", style="dim")
            else:
                state = Text("measuring" if name in counts else "waiting", style="dim")
            row = [Text(name, style=name_style(i)), Text(f"≈ {format_ns(estimates.get(name))}")]
            row += [Text(f"n={counts.get(name, 0):,}", style="dim"), state]
            rows.append(row)
        hidden = len(order) - shown
        self._put_text("estimates", estimate_lines(rows, hidden))

    def show_result(
        self,
        result: RunResult | None,
        state: str = "done",
        fraction: float | None = None,
        header: str = "",
        rows: Wrapped | None = None,
    ) -> None:
        """``rows``: the variants' rows of ``result`` (:func:`result_rows`), made in another thread."""
        self._shown = (self.show_result, result, state, fraction, header)
        bar = self.bar
        if result is None:
            bar.update(total=1.0, progress=0)
            status = (
                Text("✗ run failed — see Warnings", style="bold red")
                if state == "failed"
                else Text("idle — press r to run", style="dim")
            )
            self._put("progress-status", status, key=status.plain, extent=1)
            self._put("progress-eta", "", extent=1)
            self._put_text("estimates", Text(""))
            self._put("run-header", "")
            return
        partial = result.partial
        bar.update(total=1.0, progress=1.0 if not partial else (fraction if fraction is not None else bar.progress))
        if state == "failed":
            status = Text("✗ run failed — previous result shown", style="bold red")
        elif state.startswith("stored run"):  # opened from the history (h): which run; when, on the right
            status = Text(f"▤ {state.partition(' · ')[0]}", style="bold cyan")
            if partial:
                status.append(f" · partial ({partial_cause(result)})", style="yellow")
        elif partial:
            status = Text(f"■ partial result ({partial_cause(result)})", style="bold yellow")
        else:
            status = Text("✓ done", style="bold green")
        self._put_text("run-header", Text(header, style="bold"))
        self._put("progress-status", status, key=status.plain, extent=1)  # its width is fixed (DEFAULT_CSS)
        when = state.partition(" · ")[2] if state.startswith("stored run") else ""
        self._put("progress-eta", Text(when, style="cyan"), extent=1)  # 20 cells: whole at 80 columns
        height = self.app.size.height
        if rows is not None:
            self._made_rows = (result, height, rows)
        elif (made := self._made_rows) is not None and made[0] is result and made[1] == height:
            rows = made[2]  # shown again (a resize): as many rows fit
        self._put_text("estimates", rows or result_rows(result, rows_shown(len(result.variants), height)))


def rows_shown(n: int, height: int) -> int:
    """How many of ``n`` variant rows the block shows on a screen ``height`` lines high: a few on a
    small screen (the Statistics tab has them all); when some do not fit, the last row says how many
    more there are. Nothing else caps the block's height."""
    rows = max(3, (height - 16) // 2) if height < 40 else max(4, height // 4)
    return n if n <= rows else rows - 1


def name_style(index: int) -> str:
    return "bold" if no_color() else f"bold {variant_hex(index)}"


def result_rows(result: RunResult, shown: int) -> Text:
    """The first ``shown`` variants' rows of a finished ``result`` (median, n, CI or why not), and how
    many more there are; no Textual, so the run's thread makes them."""
    rows = []
    variants = result.variants
    compiled = any(v.stages.total is not None for v in variants)  # --measure compile: its repeats' medians
    for i, v in enumerate(variants[:shown]):
        s = v.sampling.stats
        if v.skipped:
            why = "; ".join(v.notes) or (v.failure.error if v.failure else "")
            state_text = Text("skipped" + (": " + why.splitlines()[0] if why else ""), style="dim")
        elif not v.ok:
            error = v.failure.error if v.failure else ""
            state_text = Text("FAILED: " + error.splitlines()[0] if error else "FAILED", style="bold red")
        elif s is not None:
            lo, hi = s.ci95_median_ns
            state_text = Text(f"95% CI {format_ns(lo)} – {format_ns(hi)}", style="dim")
        else:
            state_text = Text("no samples", style="dim")
        row = [
            Text(v.name, style=name_style(i)),
            Text(format_ns(s.median_ns) if s else "—", style="bold"),
            Text(f"n={s.n:,}" if s else "", style="dim"),
            state_text,
        ]
        if compiled:  # what was asked for first; the call's figures after it (they showed alone before)
            total = v.stages.total
            row[1:1] = [
                Text("compile", style="dim"),
                Text(format_ms(total.median_ms) if total else "—", style="bold"),
                Text(f"[{format_ms(total.ci95_ms[0])} – {format_ms(total.ci95_ms[1])}]" if total else "", style="dim"),
                Text("· call", style="dim"),
            ]
        rows.append(row)
    return estimate_lines(rows, len(variants) - shown, COMPILE_JUSTIFY if compiled else JUSTIFY)
