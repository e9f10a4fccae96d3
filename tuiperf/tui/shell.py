"""What the main screen and its helpers may ask of the app, as a protocol: they depend on this, not on
:class:`~tuiperf.tui.app.TuiperfApp` (which imports the main screen), so no module imports another in
a circle. The app hands itself to ``MainScreen(shell)``, where mypy checks that it conforms."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from tuiperf.contract.environments import PythonEnv
    from tuiperf.contract.request import Runner
    from tuiperf.tui.launch import LaunchOptions


class ReportError(Protocol):
    def __call__(self, title: str, message: str, where: str | None = None, details: str = "") -> None: ...


class Shell(Protocol):
    runner: Runner
    scenario_dirs: list[str]
    screenshots_dir: Path
    history_path: Path | None
    launch: LaunchOptions
    last_error: tuple[str, str] | None  # a run's failure, shown in the Warnings tab until a run succeeds
    list_environments: Callable[[], list[PythonEnv]]  # the registered Python environments (blocks: a file)

    def report_error(self, title: str, message: str, where: str | None = None, details: str = "") -> None:
        """The one place errors are reported: remembered, shown in Warnings, and told to the user."""

    def tell_error(self, title: str, message: str, where: str | None = None, details: str = "") -> None:
        """A command that failed: a notification only (the Warnings tab is for run failures)."""

    def save_svg(self, filename: str) -> None:
        """An SVG (and a PNG) of the screen in the screenshots folder."""

    def freeze_start_up(self) -> None:
        """What start-up built lives as long as the app: out of the garbage collector's way."""
