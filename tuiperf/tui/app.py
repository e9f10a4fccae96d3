"""The tuiperf Textual app: a thin shell around :class:`~tuiperf.tui.screens.main.MainScreen`.

It holds what every screen shares — the runner, the launch options, the screenshots folder — and
the one place errors are reported. It never imports JAX: the runner (a
:class:`~tuiperf.processes.runner.ProcessRunner` by default) owns JAX in separate processes and is only
called from thread workers.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from textual import events
from textual.app import App, SystemCommand
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from tuiperf.common.errors import TuiperfError
from tuiperf.common.text import inert, one_line
from tuiperf.contract.request import Runner
from tuiperf.tui.commands import COMMANDS
from tuiperf.tui.launch import LaunchOptions
from tuiperf.tui.messages import TabFailed
from tuiperf.tui.output_folders import default_screenshots_dir, path_lines, toast_text_width
from tuiperf.tui.png import write_png
from tuiperf.tui.screens.error import ErrorScreen
from tuiperf.tui.screens.main import MainScreen
from tuiperf.tui.textual_fixes import apply as apply_textual_fixes

if TYPE_CHECKING:
    from tuiperf.contract.environments import PythonEnv


def registered_environments() -> list[PythonEnv]:
    """The Python environments `tuiperf env` registered, ``current`` first (reads one file)."""
    from tuiperf.processes.python_envs import registered

    return registered()


TOAST_S = {"error": 6.0, "other": 4.0}  # the longest a toast stays, in seconds

# A full collection walks every object made since start-up (a result's tables and plots are tens of
# thousands of objects: 130-400 ms here), so it waits for a moment the user is not using the app.
FULL_COLLECTION_AFTER = 100  # middle-aged collections since the last full one (as set at start-up before)
FULL_COLLECTION_FORCED_AFTER = 1000  # even without an idle moment: a session never idle frees its cycles too
IDLE_FOR_FULL_COLLECTION_S = 2.0  # no key or click for this long


def full_collection_due(idle_s: float, middle_collections: int, busy: bool = False) -> bool:
    """Whether to run a full collection now: enough garbage may have aged, and the user is away and the
    screen still (``busy``: a run streaming, or start-up still listing: its stall would show)."""
    if middle_collections >= FULL_COLLECTION_FORCED_AFTER:
        return True
    quiet = idle_s >= IDLE_FOR_FULL_COLLECTION_S and not busy
    return middle_collections >= FULL_COLLECTION_AFTER and quiet


class TuiperfApp(App[None]):
    """See the module docstring. ``runner`` implements :class:`tuiperf.contract.request.Runner`."""

    CSS_PATH = ["app.tcss", "dialogs.tcss", "nocolor.tcss"]  # the main screen, the dialogs, focus without colour
    TITLE = "tuiperf"
    SUB_TITLE = "per-call cost of JAX code"

    def __init__(
        self,
        runner: Runner,
        scenario_dirs: Iterable[str] = (),
        screenshots_dir: str | Path | None = None,
        launch: LaunchOptions | None = None,
        history_path: Path | None = None,
        freeze_gc: bool = False,
        list_environments: Callable[[], list[PythonEnv]] = registered_environments,
    ) -> None:
        super().__init__()
        apply_textual_fixes()  # before the first layout: see tuiperf/tui/textual_fixes.py
        self.runner = runner
        self.list_environments = list_environments  # called in a thread worker
        # The process a user starts freezes what start-up built (see MainScreen._build_panels); tests
        # that build many apps in one process do not, or earlier apps' cyclic garbage would be kept.
        self.freeze_gc = freeze_gc
        self._last_input = time.monotonic()
        self.history_path = history_path  # where runs are stored (None: not stored)
        self.scenario_dirs = [str(d) for d in scenario_dirs]
        # None: the user's documents folder, never the current one (a checkout's tracked screenshots/)
        self.screenshots_dir = Path(screenshots_dir) if screenshots_dir is not None else default_screenshots_dir()
        self.launch = launch or LaunchOptions()
        self.last_error: tuple[str, str] | None = None
        self.errors_seen: list[tuple[str, str]] = []
        self.last_screenshot: Path | None = None

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """A toast for a few seconds at most, whatever the caller asked (they stayed 8-15 s)."""
        longest = TOAST_S["error" if severity == "error" else "other"]
        super().notify(message, title=title, severity=severity, timeout=min(timeout or longest, longest), markup=markup)

    def on_mount(self) -> None:
        self.screen_change_signal.subscribe(self, self._screen_changed)

    def _screen_changed(self, screen: Screen[Any]) -> None:
        """Toasts belong to the screen they were about: none follows into a dialog (where it covered the
        buttons), the editor or the history."""
        if screen is not self.screen_stack[0]:
            self.clear_notifications()

    def get_default_screen(self) -> Screen[Any]:
        return MainScreen(self)

    @property
    def main(self) -> MainScreen:
        return cast(MainScreen, self.screen_stack[0])

    # -- the one place errors are reported ---------------------------------------------------------
    def report_error(self, title: str, message: str, where: str | None = None, details: str = "") -> None:
        """Remember, show in Warnings, and tell the user (a dialog, or a notification in live mode)."""
        text = one_line(message if not where else f"{where}: {message}", 2000)
        self.last_error = (one_line(title, 200), text)
        self.errors_seen.append(self.last_error)
        main = self.main if self.screen_stack else None
        if main is not None:
            main.show_error(self.last_error)
        if self.launch.errors_as_dialogs and not (main is not None and main.live_mode):
            # a message quotes what failed (a variant's name, a file's error): inert, lines kept
            self.push_screen(
                ErrorScreen(one_line(title, 200), inert(message), inert(where) if where else None, inert(details))
            )
        else:
            self.notify(text, title=one_line(title, 200), severity="error", timeout=8, markup=False)

    def tell_error(self, title: str, message: str, where: str | None = None, details: str = "") -> None:
        """A command that could not do what was asked (nothing to revert, a compare refused, an export
        that failed): a notification only. The Warnings tab is the shown result's, and a failed command
        is no failed run (``details`` is accepted for the same signature as :meth:`report_error`)."""
        text = one_line(message if not where else f"{where}: {message}", 2000)
        self.notify(text, title=one_line(title, 200), severity="error", timeout=8, markup=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # Workers catch their own errors; this is the safety net, routed to the same handler.
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            exc = event.worker.error
            self.report_error(exc.title if isinstance(exc, TuiperfError) else "Unexpected error", str(exc))

    def on_tab_failed(self, message: TabFailed) -> None:
        self.report_error("Cannot display this result", message.error, where=f"the {message.tab} tab")

    def freeze_start_up(self) -> None:
        """Everything start-up built (modules, CSS, the widgets) lives as long as the app: out of the
        collector's way, so that a full collection no longer walks it (its pauses were the slowest tab
        switches with a big result shown). A frozen heap also leaves the oldest generation nearly
        empty, so Python's "a quarter more old objects" rule would let full collections come every
        few tens of thousands of allocations, several per run: one in 100 middle-aged collections
        instead, and only when the user has not pressed a key or clicked for a while
        (:func:`full_collection_due`: they were the slowest keys, 0.35-0.5 s, in
        `benchmarks/ui_responsiveness.py`); young cycles are still collected as before."""
        if self.freeze_gc:
            gc.freeze()
            young, middle, _ = gc.get_threshold()
            gc.set_threshold(young, middle, 2**30)  # never by Python itself: see _collect_when_idle
            self.set_interval(1.0, self._collect_when_idle)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.MouseDown):
            self._last_input = time.monotonic()  # for _collect_when_idle
        await super().on_event(event)

    def _collect_when_idle(self) -> None:
        main = self.main
        busy = main.running or not main.feed.have_devices
        # a result just shown is still being drawn (its plots, a sweep's sentences): not a still screen
        still_since = max(self._last_input, main.shown_at)
        if full_collection_due(time.monotonic() - still_since, gc.get_count()[2], busy):
            gc.collect()

    # -- shared commands ------------------------------------------------------------------------------
    def save_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str:
        """Textual's SVG, with every character placed in its own cell (:mod:`tuiperf.tui.svg_text`):
        it renders aligned without the font it names."""
        from tuiperf.tui.svg_text import aligned

        saved = super().save_screenshot(filename, path, time_format)
        target = Path(saved)
        target.write_text(aligned(target.read_text(encoding="utf-8")), encoding="utf-8")
        return saved

    def save_svg(self, filename: str) -> None:
        """Save the screen as SVG (and PNG in the background) into the screenshots folder, once any
        toast on screen is gone (it would be baked into a picture meant for sharing)."""
        self.clear_notifications()
        self.call_after_refresh(self._save_svg_now, filename)

    def _save_svg_now(self, filename: str) -> None:
        try:
            self.screenshots_dir.mkdir(parents=True, exist_ok=True)
            path = Path(self.save_screenshot(filename=filename, path=str(self.screenshots_dir)))
        except OSError as exc:
            self.tell_error("Screenshot failed", str(exc))
            return
        self.last_screenshot = path

        def png_then_say() -> None:
            png = write_png(path)
            names = f"{path.name} and {png.name}" if png is not None else f"{path.name} (no PNG: cairosvg is missing)"
            where = path_lines(path.resolve().parent, toast_text_width(self.size.width))
            self.call_from_thread(self.notify, f"{names} in\n{where}", title="Saved", markup=False)

        self.run_worker(png_then_say, thread=True, group="png", exit_on_error=False)

    async def plots_settled(self, timeout_s: float = 30.0) -> None:
        """Until every visible plot shows its current data, the breakdown has reconciled its stages (both
        are computed in thread workers) and a sweep's caption is whole (it comes in two frames)."""
        from tuiperf.tui.widgets.breakdown import OverheadBreakdown
        from tuiperf.tui.widgets.plot_base import CachedPlot
        from tuiperf.tui.widgets.sweep_plot import SweepPlot

        deadline = time.monotonic() + timeout_s
        screen: Screen[Any] | None = None
        plots: list[CachedPlot] = []
        others: list[OverheadBreakdown | SweepPlot] = []
        while time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # let pending refreshes reach render() and start their builds
            if self.screen is not screen:  # once per screen, not per poll; a walk, not a query (whose CSS
                screen = self.screen  # matching took 6-11 ms of the UI thread at a run's end)
                widgets = list(screen.walk_children())
                plots = [w for w in widgets if isinstance(w, CachedPlot)]
                others = [w for w in widgets if isinstance(w, OverheadBreakdown | SweepPlot)]
            if all(plot.settled for plot in plots if plot.region.area) and all(w.settled for w in others):
                return

    async def action_quit(self) -> None:
        """ctrl+q and the palette's quit ask first while a run measures, like q."""
        self.main.action_quit()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.title not in ("Screenshot", "Quit"):  # ours save where the user asked, and ask first
                yield command
        main = self.main
        for c in COMMANDS:
            yield SystemCommand(c.title, f"{c.help} ({c.shown_keys})", lambda a=c.action: main.run_action(a))


def main(
    runner: Any = None,
    scenario_dirs: Iterable[str] = (),
    screenshots_dir: str | Path | None = None,
    *,
    mouse: bool = True,
    history_path: Path | None = None,
    **launch: Any,
) -> int:
    """Open the app (the CLI's default command). Builds a ProcessRunner unless one is given."""
    own = runner is None
    options = LaunchOptions(**launch)
    if own:
        from tuiperf.processes.runner import ProcessRunner

        runner = ProcessRunner(list(scenario_dirs), spare=True)
        # The spare measuring process starts once the loader has read the scenario files (MainScreen):
        # started here, its JAX import competed with the first paint for a 2-core machine's CPUs.
    app = TuiperfApp(
        runner,
        scenario_dirs=scenario_dirs,
        screenshots_dir=screenshots_dir,
        launch=options,
        history_path=history_path,
        freeze_gc=True,
    )
    try:
        app.run(mouse=mouse)
    finally:
        if own:
            runner.close()
    return app.return_code or 0
