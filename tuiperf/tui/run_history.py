"""The main screen's run history: every run stored, ``h`` to browse, a stored run opened or compared,
``x`` to export the shown result. One helper object the screen owns (``screen.history``); it knows
the screen only as a Textual screen (to push dialogs, notify, start threads) and calls back through
the narrow callables it was given."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuiperf.common.errors import TuiperfError
from tuiperf.common.files import write_atomic

# The history database (sqlite3), the screens and plotext (the trend plot) are imported when first
# used: the explorer's first frame waits for every module imported at start-up (benchmarks/ui_startup.py).
if TYPE_CHECKING:
    from textual.screen import Screen

    from tuiperf.results.model import RunResult
    from tuiperf.tui.shell import ReportError


class RunHistory:
    def __init__(
        self,
        screen: Screen[Any],
        path: Path | None,
        report_error: ReportError,
        scenario: Callable[[], str | None],
        shown: Callable[[], RunResult | None],
        open_stored: Callable[[RunResult, int], None],
    ) -> None:
        """``path``: the history database (None: runs are not stored); ``scenario``: the selected
        scenario's id; ``shown``: the result on screen; ``open_stored`` shows a stored run."""
        self.screen, self.path, self.report_error = screen, path, report_error
        self._scenario, self._shown, self._open_stored = scenario, shown, open_stored
        self.last_stored: int | None = None  # the run id of the latest stored run
        self._warned = False

    def store(self, result: RunResult) -> None:
        """Keep a finished (or partial) run, off the UI thread; a failure is said once, not per run."""
        path = self.path
        if path is None:
            return

        def work() -> None:
            from tuiperf.results.history import record

            try:
                run_id = record(result, path)
            except TuiperfError as exc:
                if not self._warned:
                    self._warned = True
                    self.screen.app.call_from_thread(
                        self.screen.notify, str(exc), title="Runs are not being stored", severity="warning"
                    )
                return
            self.last_stored = run_id

        self.screen.run_worker(work, thread=True, group="history-store", exit_on_error=False)

    def browse(self) -> None:
        if self.path is None:
            self.report_error("No history", "the history is turned off (--no-history or TUIPERF_HISTORY=off)")
            return
        from tuiperf.tui.screens.history import HistoryScreen

        self.screen.app.push_screen(HistoryScreen(self.path, self._scenario()), self._chosen)

    def _chosen(self, choice: tuple[str, int] | None) -> None:
        if choice is None or self.path is None:
            return
        purpose, run_id = choice
        path = self.path

        def work() -> None:
            from tuiperf.results.history import History

            try:
                with History(path) as history:
                    stored = history.get(run_id)
            except TuiperfError as exc:
                self.screen.app.call_from_thread(self.report_error, exc.title, str(exc))
                return
            self.screen.app.call_from_thread(self._use, purpose, run_id, stored)

        self.screen.run_worker(work, thread=True, group="history-load", exit_on_error=False)

    def _use(self, purpose: str, run_id: int, stored: RunResult) -> None:
        from tuiperf.results.compare import compare_runs
        from tuiperf.tui.screens.comparison import ComparisonScreen

        if purpose == "open":
            self._open_stored(stored, run_id)
            return
        current = self._shown()
        if current is None:
            self.report_error("Nothing to compare", "run something first; a stored run is compared with the shown one")
            return
        try:
            comparison = compare_runs(stored, current)
        except TuiperfError as exc:
            self.report_error("Cannot compare", str(exc))
            return
        if not comparison.rows:
            self.report_error("Cannot compare", f"run {run_id} and the shown result have no measured variant in common")
            return
        self.screen.app.push_screen(
            ComparisonScreen(comparison, f"run {run_id} ({stored.started_at[:16].replace('T', ' ')})")
        )

    def export(self) -> None:
        from tuiperf.results.export import export
        from tuiperf.tui.screens.export import ExportScreen

        result = self._shown()
        if result is None:
            self.report_error("Nothing to export", "run a scenario (or open a stored run with h) first")
            return
        stem = f"{result.scenario.id}-{time.strftime('%Y%m%d-%H%M%S')}"

        def chosen(answer: tuple[str, str] | None) -> None:
            if answer is None:
                return
            fmt, target = answer
            try:
                path = write_atomic(Path(target).expanduser(), export(result, fmt).encode("utf-8"))
            except TuiperfError as exc:
                self.report_error("Export failed", str(exc))
                return
            self.screen.notify(f"Wrote {path}", title="Exported", markup=False)

        self.screen.app.push_screen(ExportScreen(stem), chosen)
