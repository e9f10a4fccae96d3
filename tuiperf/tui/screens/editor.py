"""Edit a scenario file in the app: ``ctrl+s`` saves atomically and reloads, errors say their line.

A built-in scenario is never changed: saving one offers a copy in the user's scenario folder, which
then shadows the built-in (the palette's "Revert to built-in" moves the copy aside). While the saved
file is broken, its last good version stays listed and runnable (:mod:`tuiperf.catalog.last_good`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static, TextArea

from tuiperf.catalog.folders import is_builtin, user_scenarios_dir
from tuiperf.common.errors import TuiperfError
from tuiperf.common.files import write_atomic
from tuiperf.common.text import inert, one_line, with_stand_ins, without_stand_ins
from tuiperf.tui.screens.confirm import ConfirmScreen

if TYPE_CHECKING:
    from tuiperf.contract.catalog import Catalog
    from tuiperf.tui.shell import ReportError

MAX_EDIT_BYTES = 256 * 1024  # a scenario file is a few kB: a TextArea of megabytes would take minutes to open


class EditorScreen(Screen[None]):
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "leave", "Back", priority=True),
    ]
    AUTO_FOCUS = "#editor-source"

    def __init__(self, path: Path, scenario_id: str, reload: Callable[[], None], report_error: ReportError) -> None:
        """``reload`` describes the scenario files again after a save (its outcome comes back to
        :meth:`show_outcome`); errors go to ``report_error``."""
        super().__init__()
        self.path = path
        self.scenario_id = scenario_id
        self._reload, self._report_error = reload, report_error
        size = path.stat().st_size
        if size > MAX_EDIT_BYTES:
            raise TuiperfError(
                f"{size / 1024:,.0f} kB is too large to edit here (a scenario file is a few kB; "
                f"the limit is {MAX_EDIT_BYTES // 1024} kB): open it in another editor",
                where=str(path),
            )
        self.saved_text = path.read_text(encoding="utf-8")
        # Control characters (an escape sequence in a comment would retitle the terminal, clear it, set
        # its clipboard) are shown as stand-ins, ⟨ESC⟩, and given back on saving: the file's bytes are
        # saved as they were unless the user edits them. A file that already holds such stand-in text
        # could not be given back exactly: it is shown read-only.
        self.shown_text = with_stand_ins(self.saved_text)
        self.controls = self.shown_text != self.saved_text
        self.read_only = without_stand_ins(self.shown_text) != self.saved_text
        self.waiting_for_reload = False

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="editor-title")
        yield TextArea.code_editor(
            self.shown_text, language="python", id="editor-source", soft_wrap=False, read_only=self.read_only
        )
        yield Static(self._first_status(), id="editor-status")
        yield Footer()

    @property
    def source(self) -> TextArea:
        return self.query_one("#editor-source", TextArea)

    @property
    def modified(self) -> bool:
        return self.source.text != self.shown_text

    def _first_status(self) -> Text:
        if self.read_only:
            return Text(
                "read only: this file holds control characters and text written like their stand-ins (⟨ESC⟩), "
                "which could not be told apart on saving: edit it in another editor",
                style="yellow",
            )
        if self.controls:
            return Text(
                "this file holds control characters, shown as ⟨ESC⟩, ⟨U+009B⟩…: saving writes them back as they "
                "were (delete a stand-in to remove its character) · ctrl+s saves · escape goes back",
                style="yellow",
            )
        return Text("ctrl+s saves and reloads · escape goes back", style="dim")

    def _title(self) -> Text:
        kind = "built-in (read only: saving makes your own copy)" if is_builtin(self.path) else "yours"
        return Text.assemble(("Editing ", "bold"), (one_line(str(self.path)), "bold"), "  ", (kind, "dim"))

    def set_status(self, text: Text | str) -> None:
        self.query_one("#editor-status", Static).update(text)

    # -- saving ------------------------------------------------------------------------------------
    def action_save(self) -> None:
        builtin = is_builtin(self.path)
        if not builtin and not self.path.exists():
            # deleted or renamed since it was opened: saving puts it back where it was, and says so
            self._write(self.path, note=f"{self.path.name} was deleted or renamed since it was opened; saved it again")
            return
        if builtin or not os.access(self.path, os.W_OK):
            copy = user_scenarios_dir() / self.path.name
            why = "is a built-in scenario and is never changed" if builtin else "cannot be written by you"
            question = (
                f"{self.path.name} {why}.\n"
                f"Save a copy as {copy}? It replaces the built-in in the list (marked ⇄) until you revert it."
                if builtin
                else f"{self.path.name} {why}.\nSave a copy as {copy}?"
            )

            def answered(yes: bool | None) -> None:
                if yes:
                    self._write(copy)

            self.app.push_screen(ConfirmScreen(question, yes="Save a copy", no="Cancel"), answered)
            return
        self._write(self.path)

    def _write(self, target: Path, note: str = "") -> None:
        if self.read_only:
            return
        shown = self.source.text
        text = without_stand_ins(shown)
        try:
            write_atomic(target, text.encode("utf-8"), force=True)  # a temporary file, then os.replace
        except TuiperfError as exc:
            self._report_error("Could not save", str(exc))
            return
        self.path, self.saved_text, self.shown_text = target, text, shown
        self.query_one("#editor-title", Static).update(self._title())
        self.set_status(Text(f"{note + '; ' if note else 'saved; '}reloading the scenario…", style="dim"))
        self.waiting_for_reload = True
        self._reload()

    def show_outcome(self, catalog: Catalog) -> None:
        """After a reload: the file's error with its line number, or what it now declares."""
        if not self.waiting_for_reload:
            return
        self.waiting_for_reload = False
        mine = str(self.path.resolve())
        for entry in catalog.scenarios:
            failed = entry.last_good
            if failed is not None and str(Path(failed.file).resolve()) == mine:
                self._show_error(failed.line, failed.error, kept=True)
                return
            if failed is None and str(Path(entry.path).resolve()) == mine:
                n_params, n_variants = len(entry.params), len(entry.variants)
                self.set_status(
                    Text(f"✓ saved and reloaded: {n_params} parameters, {n_variants} variants", style="bold green")
                )
                return
        for bad in catalog.broken:
            if str(Path(bad.path).resolve()) == mine:
                self._show_error(bad.line, bad.error, kept=False)
                return
        self.set_status(Text("saved, but the scenario list does not show this file", style="yellow"))

    def _show_error(self, line: int | None, error: str, kept: bool) -> None:
        where = f"{self.path.name}:{line}" if line else self.path.name
        after = " — the last good version stays listed and runnable" if kept else ""
        message = inert(one_line(error))
        # The line is said, not gone to: the cursor stays where the user is typing.
        self.set_status(Text.assemble(("✗ ", "bold red"), (where, "bold"), ": ", message, (after, "dim")))

    # -- leaving -----------------------------------------------------------------------------------
    def action_leave(self) -> None:
        if not self.modified:
            self.dismiss(None)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss(None)

        question = ConfirmScreen("Leave without saving your changes?", yes="Discard", no="Keep editing")
        self.app.push_screen(question, answered)
