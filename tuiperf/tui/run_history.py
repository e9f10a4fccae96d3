"""The main screen's run history: every run stored, ``h`` to browse, a stored run opened or compared,
``x`` to export the shown result. One helper object the screen owns (``screen.history``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from tuiperf.common.errors import TuiperfError
from tuiperf.common.files import write_atomic

# The history database (sqlite3), the screens and plotext (the trend plot) are imported when first
# used: the explorer's first frame waits for every module imported at start-up (benchmarks/ui_startup.py).
if TYPE_CHECKING:
    from tuiperf.results.model import RunResult
    from tuiperf.tui.screens.main import MainScreen


class RunHistory:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.last_stored: int | None = None  # the run id of the latest stored run

    @property
    def path(self) -> Path | None:
        return self.screen.shell.history_path

    def store(self, result: RunResult) -> None:
        """Keep a finished (or partial) run, off the UI thread. A run that could not be stored (a full
        disk, a corrupt or read-only database) is said, with why, and kept as a recovery copy."""
        path = self.path
        if path is None:
            return

        def work() -> None:
            import sqlite3

            from tuiperf.common.text import one_line
            from tuiperf.results import recovery
            from tuiperf.results.history import record

            try:
                run_id = record(result, path)
            except (TuiperfError, sqlite3.Error, OSError, MemoryError) as exc:
                why = f"{one_line(exc, 300)}; {recovery.keep(result)}"
                self.screen.app.call_from_thread(
                    self.screen.notify, why, title="This run was not stored", severity="warning", markup=False
                )
                return
            self.last_stored = run_id

        self.screen.run_worker(work, thread=True, group="history-store", exit_on_error=False)

    def browse(self) -> None:
        shell = self.screen.shell
        if self.path is None:
            shell.report_error("No history", "the history is turned off (--no-history or TUIPERF_HISTORY=off)")
            return
        scenario = self.screen.setup.scenario
        from tuiperf.tui.screens.history import HistoryScreen

        shell.push_screen(HistoryScreen(self.path, scenario.id if scenario else None), self._chosen)

    def _chosen(self, choice: tuple[str, int] | None) -> None:
        if choice is None or self.path is None:
            return
        purpose, run_id = choice
        path = self.path

        def work() -> None:
            from tuiperf.results.history import History

            try:
                with History(path, readonly=True) as history:
                    stored = history.get(run_id)
            except TuiperfError as exc:
                self.screen.app.call_from_thread(self.screen.shell.report_error, exc.title, str(exc))
                return
            self.screen.app.call_from_thread(self._use, purpose, run_id, stored)

        self.screen.run_worker(work, thread=True, group="history-load", exit_on_error=False)

    def _use(self, purpose: str, run_id: int, stored: RunResult) -> None:
        from tuiperf.results.compare import compare_runs
        from tuiperf.tui.screens.comparison import ComparisonScreen

        shell = self.screen.shell
        if purpose == "open":
            self.screen.show_result(stored, state=f"stored run {run_id}")
            self.screen.action_show_tab("stats")
            return
        current = self.screen.result
        if current is None:
            shell.report_error("Nothing to compare", "run something first; a stored run is compared with the shown one")
            return
        try:
            comparison = compare_runs(stored, current)
        except TuiperfError as exc:
            shell.report_error("Cannot compare", str(exc))
            return
        if not comparison.rows:
            shell.report_error(
                "Cannot compare", f"run {run_id} and the shown result have no measured variant in common"
            )
            return
        shell.push_screen(ComparisonScreen(comparison, f"run {run_id} ({stored.started_at[:16].replace('T', ' ')})"))

    def export(self) -> None:
        from tuiperf.catalog.folders import scenario_files
        from tuiperf.results.export import export
        from tuiperf.tui.screens.export import ExportScreen

        shell = self.screen.shell
        result = self.screen.result
        if result is None:
            shell.report_error("Nothing to export", "run a scenario (or open a stored run with h) first")
            return
        stem = f"{result.scenario.id}-{time.strftime('%Y%m%d-%H%M%S')}"

        def chosen(answer: tuple[str, str] | None) -> None:
            if answer is None:
                return
            fmt, target = answer
            try:
                text = export(result, fmt, scenario_files=scenario_files(shell.scenario_dirs))
                path = write_atomic(Path(target).expanduser(), text.encode("utf-8"))
            except TuiperfError as exc:
                shell.report_error("Export failed", str(exc))
                return
            shell.notify(f"Wrote {path}", title="Exported", markup=False)

        shell.push_screen(ExportScreen(stem), chosen)
