"""The main screen's run history: every run stored, ``h`` to browse, a stored run opened or compared,
``x`` to export the shown result, ``c`` to copy it as Markdown. One helper object the screen owns
(``screen.history``); it knows the screen only as a Textual screen (to push dialogs, notify, start
threads, post messages): each command is given what it needs (the shown result, the scenario), and a
stored run read comes back to the screen as a :class:`StoredRunRead` message (one that cannot be read,
as a :class:`CommandFailed`)."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuiperf.common.errors import TuiperfError
from tuiperf.common.files import user_path, write_atomic
from tuiperf.common.text import inert_data, one_line
from tuiperf.tui.messages import CommandFailed, StoredRunRead
from tuiperf.tui.output_folders import path_lines, toast_text_width
from tuiperf.tui.screens.confirm import ConfirmScreen

# The history database (sqlite3), the screens and plotext (the trend plot) are imported when first
# used: the explorer's first frame waits for every module imported at start-up (benchmarks/ui_startup.py).
if TYPE_CHECKING:
    from textual.screen import Screen

    from tuiperf.results.model import RunResult
    from tuiperf.tui.shell import ReportError


# A run is stored this long after its result came: storing encodes the whole document in C with the
# GIL held (10-15 ms for a sweep's), which stalled the frames drawing the result (ui_responsiveness.py).
STORE_AFTER_S = 0.5


class RunHistory:
    def __init__(
        self,
        screen: Screen[Any],
        path: Path | None,
        report_error: ReportError,  # for a command that fails
        scenario_dirs: Sequence[str] = (),
    ) -> None:
        """``path``: the history database (None: runs are not stored); ``scenario_dirs``: where an
        exported script's source is looked for (by hash)."""
        self.screen, self.path, self.report_error = screen, path, report_error
        self._stored_maker: Callable[[], Callable[[RunResult], Any]] | None = None
        self.scenario_dirs = list(scenario_dirs)
        self.last_stored: int | None = None  # the run id of the latest stored run
        self._waiting: list[RunResult] = []  # runs to store once their result is drawn
        self._storing = threading.Lock()  # held while a run is written: a reader waits for it
        self._ui_thread = threading.get_ident()  # made on the UI thread

    def store(self, result: RunResult, after_s: float = 0.0) -> None:
        """Keep a finished (or partial) run, off the UI thread, ``after_s`` from now (reading the
        history or leaving stores it at once). A run that could not be stored (a full disk, a corrupt
        or read-only database) is said, with why, and kept as a recovery copy."""
        if self.path is None:
            return
        self._waiting.append(result)
        if after_s:
            self.screen.set_timer(after_s, self._store_waiting)
        else:
            self._store_waiting()

    def _store_waiting(self) -> None:
        if self._waiting:
            self.screen.run_worker(self.flush, thread=True, group="history-store", exit_on_error=False)

    def flush(self) -> None:
        """Store every run waiting to be, now, in this thread (after any store in progress)."""
        with self._storing:
            while self._waiting:
                self._record(self._waiting.pop(0))

    def _record(self, result: RunResult) -> None:
        import sqlite3

        from tuiperf.results import recovery
        from tuiperf.results.history import record

        try:
            run_id = record(result, self.path)
        except (TuiperfError, sqlite3.Error, OSError, MemoryError) as exc:
            why = f"{one_line(exc, 300)}; {recovery.keep(result)}"
            self._say(why, title="This run was not stored", severity="warning", markup=False)
            return
        if run_id is not None:
            self.last_stored = run_id

    def _say(self, message: str, **kwargs: Any) -> None:
        """A notification from any thread (the UI thread's own, or a store's)."""
        if threading.get_ident() == self._ui_thread:
            self.screen.notify(message, **kwargs)
        else:
            self.screen.app.call_from_thread(self.screen.notify, message, **kwargs)

    def browse(
        self, scenario: str | None, stored_maker: Callable[[], Callable[[RunResult], Any]] | None = None
    ) -> None:
        """List the stored runs, ``scenario``'s first; a run opened is read with what the function
        ``stored_maker`` returns (called on the UI thread) makes of it in the loading thread."""
        if self.path is None:
            self.report_error("No history", "the history is turned off (--no-history or TUIPERF_HISTORY=off)")
            return
        self.flush()  # the run just shown is listed (stored now if it was waiting)
        from tuiperf.tui.screens.history import HistoryScreen

        self._stored_maker = stored_maker
        self.screen.app.push_screen(HistoryScreen(self.path, scenario), self._chosen)

    def _chosen(self, choice: tuple[str, int] | None) -> None:
        if choice is None or self.path is None:
            return
        purpose, run_id = choice
        path = self.path
        make = self._stored_maker() if purpose == "open" and self._stored_maker is not None else None

        def work() -> None:
            from tuiperf.results.history import History

            try:
                with History(path, readonly=True) as history:
                    stored = history.get(run_id)
            except TuiperfError as exc:
                self.screen.post_message(CommandFailed(exc.title, str(exc)))
                return
            try:
                made = make(stored) if make is not None else None
            except Exception:  # noqa: BLE001 - the UI thread then makes what it shows, and says if it cannot
                made = None
            self.screen.post_message(StoredRunRead(purpose, run_id, stored, made))

        self.screen.run_worker(work, thread=True, group="history-load", exit_on_error=False)

    def compare(self, run_id: int, stored: RunResult, current: RunResult | None) -> None:
        """Compare a stored run with the ``current`` result on screen (asked first if their scenarios differ)."""
        if current is None:
            self.report_error("Nothing to compare", "run something first; a stored run is compared with the shown one")
            return
        if stored.scenario.id == current.scenario.id:
            self._compare(run_id, stored, current)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._compare(run_id, stored, current, different_scenarios=True)

        question = (
            f"Run {run_id} measured {one_line(stored.scenario.id, 60)}, the shown result "
            f"{one_line(current.scenario.id, 60)}: different scenarios. "
            "Compare the variants with the same names anyway?"
        )
        self.screen.app.push_screen(ConfirmScreen(question, yes="Compare", no="Cancel"), answered)

    def _compare(self, run_id: int, stored: RunResult, current: RunResult, different_scenarios: bool = False) -> None:
        from tuiperf.results.compare import compare_runs
        from tuiperf.tui.screens.comparison import ComparisonScreen

        def when(result: RunResult) -> str:
            return one_line(result.started_at[:16].replace("T", " "))

        stored_label, shown_label = f"run {run_id} ({when(stored)})", f"the shown result ({when(current)})"
        old, new, labels = stored, current, (stored_label, shown_label)
        if stored.started_at and current.started_at and stored.started_at > current.started_at:
            old, new, labels = current, stored, (shown_label, stored_label)  # the shown one is the older
        try:
            comparison = compare_runs(old, new, force=different_scenarios)
        except TuiperfError as exc:
            self.report_error("Cannot compare", str(exc))
            return
        if not comparison.rows:
            self.report_error("Cannot compare", f"run {run_id} and the shown result have no measured variant in common")
            return
        self.screen.app.push_screen(ComparisonScreen(inert_data(comparison), *labels))

    def _markdown_or_say_why(self, what: str, result: RunResult | None) -> tuple[RunResult, str] | None:
        from tuiperf.results.export import export

        if result is None:
            self.report_error(f"Nothing to {what}", "run a scenario (or open a stored run with h) first")
            return None
        return result, export(result, "markdown")

    def copy(self, result: RunResult | None) -> None:
        """The shown ``result``'s Markdown (as ``x`` writes it) to the terminal's clipboard with OSC 52, the
        terminal's own clipboard escape: it reaches the local clipboard through SSH and tmux."""
        shown = self._markdown_or_say_why("copy", result)
        if shown is None:
            return
        _, text = shown
        self.screen.app.copy_to_clipboard(text)
        self.screen.notify(
            f"{len(text):,} characters of Markdown sent to your clipboard. This needs a terminal that supports "
            "OSC 52 (tmux: set -g set-clipboard on); if nothing arrived, x writes it to a file.",
            title="Copied the shown result",
            timeout=8,
            markup=False,
        )

    def export(self, result: RunResult | None, folder: Path) -> None:
        """Write the shown ``result`` to a file, in a format the user chooses; the dialog proposes one in
        ``folder`` (created when written there), and the user may type any other path."""
        from tuiperf.catalog.folders import scenario_files
        from tuiperf.results.export import export
        from tuiperf.tui.screens.export import ExportScreen

        if result is None:
            self.report_error("Nothing to export", "run a scenario (or open a stored run with h) first")
            return
        # a file name from the scenario's id, kept to letters, digits, dots and dashes: no folder, no escape
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", result.scenario.id).strip("._")[:60] or "result"
        stem = f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"

        def write(fmt: str, target: Path, replace: bool = False) -> None:
            try:
                text = export(result, fmt, scenario_files=scenario_files(self.scenario_dirs))
                if target.parent.resolve() == folder.resolve():
                    folder.mkdir(parents=True, exist_ok=True)
                path = write_atomic(target, text.encode("utf-8"), force=replace)
            except TuiperfError as exc:
                self.report_error("Export failed", str(exc))
                return
            self.screen.notify(
                f"Wrote\n{path_lines(path.resolve(), toast_text_width(self.screen.app.size.width))}",
                title="Exported",
                timeout=8,
                markup=False,
            )

        def chosen(answer: tuple[str, str] | None) -> None:
            if answer is None:
                return
            fmt, typed = answer
            target = user_path(typed)
            if not target.exists():
                write(fmt, target)
                return

            def answered(yes: bool | None) -> None:
                if yes:
                    write(fmt, target, replace=True)

            question = f"{one_line(target.resolve(), 300)} exists already. Replace it?"
            self.screen.app.push_screen(ConfirmScreen(question, yes="Replace", no="Keep it"), answered)

        self.screen.app.push_screen(ExportScreen(stem, folder), chosen)
