"""``h``: the stored runs, newest first; open one, or compare the current result with it."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Input, Static

from tuiperf.common.errors import TuiperfError
from tuiperf.common.text import inert_data, one_line
from tuiperf.results.history import History, StoredRun, trend
from tuiperf.results.model import Sweep
from tuiperf.tui.messages import CommitsRead, HistoryListed
from tuiperf.tui.widgets.sweep_plot import SweepPlot

LISTED = 500  # the newest runs shown; the filter narrows by scenario id (any part of it)
COLUMNS = ("run", "started", "scenario", "medians", "parameters", "device", "dispatch", "jax", "status")


class HistoryScreen(Screen[tuple[str, int] | None]):
    """Dismisses with ``("open", run_id)``, ``("baseline", run_id)`` or None."""

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Back", priority=True),
        Binding("enter", "choose('open')", "Open", priority=True),
        Binding("b", "choose('baseline')", "Compare with now"),
        Binding("p", "trend", "Plot over runs"),
        Binding("c", "by_commit", "Plot by commit"),
        Binding("slash", "focus_filter", "Filter"),
    ]
    AUTO_FOCUS = "#history-table"

    def __init__(self, path: Path, scenario: str | None = None) -> None:
        super().__init__()
        self.path = path
        self.scenario = scenario or ""
        self.runs: list[StoredRun] = []
        self._read_for = self.scenario

    def compose(self) -> ComposeResult:
        yield Static(Text(f"Stored runs in {one_line(self.path)}"), id="history-title")
        placeholder = "/ part of a scenario id (empty: all)"
        yield Input(self.scenario, placeholder=placeholder, id="history-filter", compact=True)
        yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="history-detail")
        hint = "enter shows a run as it was measured · b compares the shown result with it · p plots medians over runs"
        yield Static(hint, classes="dim")
        yield Footer()

    def on_mount(self) -> None:
        self._set_columns(compiled=False)
        self.read(self.scenario)

    def _set_columns(self, compiled: bool) -> None:
        """The listing's columns: a column of compile times after the medians per call where a listed run
        measured them (``--measure compile``), none otherwise (a listing of call runs is as it was)."""
        table = self.query_one(DataTable)
        if table.columns and ("compile time" in table.columns) == compiled:
            return
        table.clear(columns=True)
        for column in COLUMNS[:4] + ("compile time",) * compiled + COLUMNS[4:]:
            table.add_column(column, key=column)

    def read(self, part_of_id: str) -> None:
        self._read_for = part_of_id  # the runs shown are this read's: an older one landing late is dropped
        self.load(part_of_id)

    @work(thread=True, exclusive=True, group="history", exit_on_error=False, description="history")
    def load(self, part_of_id: str) -> None:
        try:
            with History(self.path, readonly=True) as history:
                runs = history.list(matching=part_of_id, limit=LISTED)
        except TuiperfError as exc:
            self.post_message(HistoryListed([], part_of_id, one_line(exc)))
            return
        self.post_message(HistoryListed(runs, part_of_id))

    def on_history_listed(self, message: HistoryListed) -> None:
        if message.error:
            self.query_one("#history-title", Static).update(Text(f"✗ {message.error}"))
            return
        self.show(message.runs, message.read_for)

    def show(self, runs: list[StoredRun], read_for: str | None = None) -> None:
        """``read_for``: the filter they were read for (see :meth:`read`)."""
        if read_for is not None and read_for != self._read_for:
            return
        table = self.query_one(DataTable)
        chosen = self.runs[table.cursor_row].id if self.runs and table.row_count else None
        runs = self.runs = inert_data(runs)  # drawn here and in the trend plot; chosen by id
        compiled = any(run.measured_compile for run in runs)
        table.clear()
        self._set_columns(compiled)
        for run in runs:
            between = "; " if run.sweep else ", "  # (a sweep: point by point)
            cells = [
                str(run.id),
                one_line(run.started_at[:19].replace("T", " ")),
                one_line(run.scenario, 30),
                one_line(between.join(run.median_texts(", ")), 100),
                *[one_line(between.join(run.compile_texts(", ")), 100)] * compiled,
                one_line(f"{run.shape} · {run.params}" if run.sweep else run.params, 60),
                one_line(run.device, 30),
                one_line(run.dispatch, 10),
                one_line(run.jax_version, 12),
                one_line(run.status, 10),
            ]
            table.add_row(*map(Text, cells), key=str(run.id))  # Text: a DataTable reads a str as markup
        ids = [run.id for run in runs]
        if chosen in ids:  # a read again (the filter typed) keeps the run the cursor was on
            table.move_cursor(row=ids.index(chosen), animate=False)
        self._show_detail(table.cursor_row)
        count = f"{len(runs)} run{'s' * (len(runs) != 1)}" + (" (the newest)" if len(runs) == LISTED else "")
        self.query_one("#history-title", Static).update(Text(f"{count} in {one_line(self.path)}"))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    def _show_detail(self, index: int) -> None:
        """The highlighted run's compile times under the table, where it measured them: their column is
        off screen in a narrow terminal."""
        run = self.runs[index] if 0 <= index < len(self.runs) else None
        detail = self.query_one("#history-detail", Static)
        detail.display = run is not None and run.measured_compile
        if run is not None and run.measured_compile:
            between = "; " if run.sweep else ", "
            said = one_line(between.join(run.compile_texts(", ")), 400)
            what = "medians" if run.sweep else "median [95 % CI]"
            detail.update(Text(f"run {run.id} compile time (trace + lower + compile, {what}): {said}"))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.read(event.value.strip())

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(DataTable).focus()

    def action_focus_filter(self) -> None:
        self.query_one("#history-filter", Input).focus()

    def action_trend(self) -> None:
        """Every listed run of the selected run's scenario and setting: each variant's median, run after run."""
        table = self.query_one(DataTable)
        if not self.runs:
            return
        like = self.runs[table.cursor_row]  # the runs measured as it was: its parameters, device, environments
        if like.sweep:  # (its medians are its points': no one median per variant to follow over runs)
            self.notify(
                f"Run {like.id} is a {like.shape}: enter opens its plot (p follows single runs).",
                title="Not a single run",
                severity="warning",
                markup=False,
            )
            return
        title = " ".join(part for part in (like.scenario, like.label) if part)
        quantity = "compile" if like.measured_compile else "time"  # (m plots the other)
        self.app.push_screen(TrendScreen(title, trend(self.runs, like), quantity=quantity))

    def action_by_commit(self) -> None:
        """The selected run's scenario and setting by git commit: each variant's median per commit, the
        commits where one stepped beyond the intervals marked (``tuiperf history --by-commit``)."""
        table = self.query_one(DataTable)
        if self.runs and not self.runs[table.cursor_row].sweep:
            self.read_commits(self.runs[table.cursor_row])

    @work(thread=True, exclusive=True, group="commits", exit_on_error=False, description="history by commit")
    def read_commits(self, like: StoredRun) -> None:
        from tuiperf.results.by_commit import as_sweep, commits_in

        try:
            with History(self.path, readonly=True) as history:
                commits = commits_in(history, like.scenario, like=like)
        except TuiperfError as exc:
            self.post_message(CommitsRead("History", None, one_line(exc)))
            return
        if not commits:
            words = f"No run of {one_line(like.scenario)} measured this way records a git commit."
            self.post_message(CommitsRead("By commit", None, words))
            return
        quantity = "compile" if like.compile_ms else "time"  # the series of what the chosen run measured
        steps = sum(1 for c in commits for m in c.series(quantity_measure(quantity)).values() if m.step is not None)
        where = " in compile time" if quantity == "compile" else ""
        title = f"{like.scenario} by commit ({steps or 'no'} step{'s' * (steps != 1)}{where} beyond the 95 % intervals)"
        self.post_message(CommitsRead(title, as_sweep(commits), quantity=quantity))

    def on_commits_read(self, message: CommitsRead) -> None:
        if message.sweep is None:
            if message.title == "History":
                self.notify(message.error, title=message.title, severity="error", markup=False)
            else:
                self.notify(message.error, title=message.title, severity="warning", markup=False)
            return
        self.app.push_screen(TrendScreen(message.title, message.sweep, over="commits", quantity=message.quantity))

    def action_choose(self, purpose: str) -> None:
        table = self.query_one(DataTable)
        if self.focused is not table:  # enter in the filter (a priority key: the Input never gets it)
            table.focus()
            return
        if not self.runs:
            return
        self.dismiss((purpose, self.runs[table.cursor_row].id))


def quantity_measure(quantity: str) -> str:
    """The plot's quantity ("time", "compile") as the history's measure ("call", "compile")."""
    return "compile" if quantity == "compile" else "call"


class TrendScreen(ModalScreen[None]):
    """Each variant's median across the stored runs of one scenario (x: run id and jax version); where
    runs measured compile time, their compile times as a series of their own (``m`` switches)."""

    BINDINGS = [
        Binding("escape,q", "dismiss(None)", "Close", priority=True),
        Binding("m", "toggle_quantity", "Call / compile time"),
    ]

    def __init__(self, scenario: str, sweep: Sweep, over: str = "stored runs", quantity: str = "time") -> None:
        super().__init__()
        self.scenario, self.sweep, self.over = scenario, sweep, over
        self.quantity = quantity if quantity != "compile" or sweep.compile_ms else "time"

    def compose(self) -> ComposeResult:
        with Vertical(id="trend-box"):
            yield Static(self._title(), classes="box-title")
            yield SweepPlot(id="trend-plot")

    def _title(self) -> Text:
        what = "compile times" if self.quantity == "compile" else "medians per call"
        hint = " (m: call / compile)" if self.sweep.compile_ms else ""
        return Text(f"{one_line(self.scenario)}: {what} over {len(self.sweep.values)} {self.over}{hint}")

    def on_mount(self) -> None:
        plot = self.query_one(SweepPlot)
        plot.show(self.sweep, list(self.sweep.medians_ns))
        if self.quantity == "compile":
            plot.set_quantity("compile")

    def action_toggle_quantity(self) -> None:
        if not self.sweep.compile_ms:
            self.notify("No run here measured compile time (--measure compile)", timeout=3, markup=False)
            return
        self.quantity = "time" if self.quantity == "compile" else "compile"
        self.query_one(SweepPlot).set_quantity(self.quantity)
        self.query_one(".box-title", Static).update(self._title())
