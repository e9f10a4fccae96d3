"""The main screen's scenario files: edit, new, revert a shadowing copy, watch, last good versions.

One helper object the main screen owns (``screen.files``), so that the screen keeps to its layout;
its ``action_*`` methods for ``e``, ``n`` and the palette are one-line delegations. It knows the screen
only as a Textual screen (to push dialogs, notify, start threads, post messages: a file written is a
:class:`ScenarioFilesChanged`, which reloads the list) and the setup panel (what is selected).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuiperf.common.errors import TuiperfError
from tuiperf.common.files import user_cache_dir, user_path
from tuiperf.tui.messages import CommandFailed, ScenarioFilesChanged
from tuiperf.tui.screens.confirm import ConfirmScreen

# The editor (TextArea and its document model), the templates, the catalog and the last-good copies
# are imported when first used (the catalog's by the worker thread): the explorer's first frame waits
# for every module imported at start-up.

if TYPE_CHECKING:
    from textual.screen import Screen

    from tuiperf.catalog.last_good import Remembered
    from tuiperf.contract.catalog import Catalog, LoadError, ScenarioEntry
    from tuiperf.tui.shell import ReportError
    from tuiperf.tui.widgets.setup_panel import SetupPanel

WATCH_DEBOUNCE_MS = 300


class ScenarioFiles:
    def __init__(
        self,
        screen: Screen[Any],
        setup: SetupPanel,
        scenario_dirs: list[str],
        report_error: ReportError,
    ) -> None:
        """``setup``: the panel whose list says which scenario (or broken file) the commands act on."""
        self.screen, self.setup, self.scenario_dirs, self.report_error = screen, setup, scenario_dirs, report_error
        self._remembered: Remembered = {}
        self._remembering = threading.Lock()
        self._watching: tuple[str, ...] = ()
        self._watch_stop: threading.Event | None = None
        self._open_after_reload: tuple[Path, str] | None = None  # a file just created, and its id

    def merge_last_good(self, catalog: Catalog) -> Catalog:
        """The catalog with broken files that loaded before listed in their last good version
        (called by the catalog worker thread: it reads the sources and writes the copies)."""
        from tuiperf.catalog.last_good import keep_last_good, remember

        with self._remembering:  # two reloads may overlap
            try:
                merged = keep_last_good(catalog, self._remembered, user_cache_dir() / "last-good")
            except TuiperfError:  # no place for the copies: the files are shown broken, as they are
                merged = catalog
            remember(merged, self._remembered)
        return merged

    def after_catalog(self, catalog: Catalog) -> None:
        """Tell an open editor how its save went; open a scenario just created; watch the folders."""
        from tuiperf.tui.screens.editor import EditorScreen

        top = self.screen.app.screen
        if isinstance(top, EditorScreen):
            top.show_outcome(catalog)
        if self._open_after_reload is not None:
            self._open_created(catalog, *self._open_after_reload)
        self.watch_folders([d for d in catalog.dirs if Path(d).is_dir()])

    def _open_created(self, catalog: Catalog, path: Path, scenario_id: str) -> None:
        """The editor on a file just created, selected in the list (a filter that hides it is cleared),
        once a catalog lists it (one read before the file was written may come first)."""
        listed = any(s.id == scenario_id for s in catalog.scenarios)
        if not listed and not any(Path(b.path).resolve() == path.resolve() for b in catalog.broken):
            return
        self._open_after_reload = None
        if not (listed and self.setup.select(scenario_id, show=True)):
            self.screen.notify(f"written to {path}", title="New scenario", markup=False)
        self._edit(path, scenario_id)

    # -- watching ----------------------------------------------------------------------------------
    def watch_folders(self, folders: list[str]) -> None:
        if tuple(folders) == self._watching:
            return
        self.stop_watching()
        stop = threading.Event()
        self._watching, self._watch_stop = tuple(folders), stop
        if folders:
            self.screen.run_worker(lambda: self._watch(folders, stop), thread=True, group="watch", exit_on_error=False)

    def stop_watching(self) -> None:
        if self._watch_stop is not None:
            self._watch_stop.set()

    def _watch(self, folders: list[str], stop: threading.Event) -> None:
        """Files changed by anyone (another editor over SSH, git) refresh the list."""
        import watchfiles

        def is_scenario(_change: Any, path: str) -> bool:
            return path.endswith(".py") and not Path(path).name.startswith((".", "_"))

        try:
            for changes in watchfiles.watch(
                *folders, watch_filter=is_scenario, stop_event=stop, debounce=WATCH_DEBOUNCE_MS, recursive=False
            ):
                self.screen.post_message(ScenarioFilesChanged(sorted(path for _, path in changes)))
        except Exception as exc:  # noqa: BLE001 - without watching, ctrl+l still reloads
            self.screen.post_message(CommandFailed("Not watching scenario files", str(exc)))

    def reload(self) -> None:
        """Describe the scenario files again (the screen reloads the list on this message)."""
        self.screen.post_message(ScenarioFilesChanged([]))

    # -- commands ----------------------------------------------------------------------------------
    def _selected(self) -> tuple[ScenarioEntry | None, LoadError | None]:
        """The scenario and the broken file selected in the list (one is None)."""
        return self.setup.scenario, self.setup.broken

    def _selected_file(self) -> tuple[Path, str] | None:
        entry, broken = self._selected()
        if entry is not None:
            failed = entry.last_good
            return Path(failed.file if failed else entry.path), entry.id
        if broken is not None and Path(broken.path).is_file():
            return Path(broken.path), broken.id
        return None

    def edit(self) -> None:
        selected = self._selected_file()
        if selected is None:
            self.report_error("Nothing to edit", "choose a scenario (or a broken file) in the list first")
            return
        self._edit(*selected)

    def _edit(self, path: Path, scenario_id: str) -> None:
        from tuiperf.tui.screens.editor import EditorScreen

        try:
            self.screen.app.push_screen(EditorScreen(path, scenario_id, self.reload, self.report_error))
        except TuiperfError as exc:  # too large to edit here
            self.report_error("Cannot open the scenario", str(exc))
        except (OSError, UnicodeDecodeError) as exc:
            self.report_error("Cannot open the scenario", f"{path}: {exc}")

    def new_scenarios_folder(self) -> Path:
        """The first --scenarios or $TUIPERF_SCENARIOS folder, else the user's own folder (as `tuiperf new`)."""
        from tuiperf.catalog.folders import env_scenario_dirs, user_scenarios_dir

        extra = [*self.scenario_dirs, *env_scenario_dirs()]
        return user_path(extra[0]) if extra else user_scenarios_dir()

    def new(self) -> None:
        from tuiperf.catalog.templates import new_scenario
        from tuiperf.tui.screens.templates import TemplateScreen

        folder = self.new_scenarios_folder()

        def chosen(answer: tuple[str, str] | None) -> None:
            if answer is None:
                return
            name, template = answer
            try:
                path = new_scenario(name, folder, template)
            except TuiperfError as exc:
                self.report_error("Could not create the scenario", str(exc))
                return
            self._open_after_reload = (path, name)
            self.reload()

        self.screen.app.push_screen(TemplateScreen(str(folder)), chosen)

    def revert(self) -> None:
        entry, _ = self._selected()
        if entry is None or entry.origin != "shadows built-in":
            self.report_error("Nothing to revert", "the selected scenario is not a copy of a built-in")
            return
        copy = Path(entry.path)
        aside = copy.with_name(f"{copy.name}.{time.strftime('%Y%m%d-%H%M%S')}.bak")

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            try:
                copy.rename(aside)
            except OSError as exc:
                self.report_error("Could not revert", f"{copy}: {exc.strerror or exc}")
                return
            self.screen.notify(f"your copy is kept as {aside}", title="Back to the built-in", markup=False)
            self.reload()

        question = f"Use the built-in {entry.id} again? Your copy is renamed to {aside.name} (not deleted)."
        self.screen.app.push_screen(ConfirmScreen(question, yes="Revert", no="Keep my copy"), answered)
