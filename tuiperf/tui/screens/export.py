"""``x``: write the shown result as Markdown (for an issue), CSV (every sample), JSON, a script or the
operations tables' rows (CSV)."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Select, Static

from tuiperf.tui.output_folders import shown_path

SUFFIX = {"markdown": ".md", "csv": ".csv", "json": ".json", "script": ".py", "ops-csv": "-ops.csv"}


class ExportScreen(ModalScreen[tuple[str, str] | None]):
    """Dismisses with ``(format, path)``; the file is written by the caller (never over another)."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", priority=True)]
    AUTO_FOCUS = "#export-path"

    def __init__(self, stem: str, folder: Path) -> None:
        """``stem``: the file's proposed name; ``folder``: where it goes unless the user types another path
        (the documents folder's ``tuiperf/exports``, beside the screenshots and traces)."""
        super().__init__()
        self.stem, self.folder = stem, folder

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Static("Export the shown result", classes="box-title")
            yield Select(
                [(f, f) for f in SUFFIX], value="markdown", allow_blank=False, id="export-format", compact=True
            )
            yield Input(shown_path(self.folder / (self.stem + SUFFIX["markdown"])), id="export-path", compact=True)
            yield Static(  # a path is data: never markup
                Text(f"into {shown_path(self.folder)} (with screenshots and traces); edit the path to choose"),
                id="export-where",
                classes="dim",
            )
            yield Static(
                "markdown: for an issue · csv: every sample · script: re-times it without tuiperf · ops-csv: "
                "each operations table's rows · enter writes",
                classes="dim",
            )

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        path = self.query_one("#export-path", Input)
        path.value = with_format_suffix(path.value, str(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        fmt = str(self.query_one("#export-format", Select).value)
        if event.value.strip():
            self.dismiss((fmt, event.value.strip()))


def with_format_suffix(name: str, fmt: str) -> str:
    """``name`` ending as ``fmt``'s files do: a suffix of another format (or a format's name typed as one,
    ``exp10.markdown``) is replaced, none is added; an extension of the user's own (``notes.txt``) stays."""
    head, dot, ext = name.rpartition(".")
    if not dot or "/" in ext:
        return name + SUFFIX[fmt]
    if f".{ext}" in SUFFIX.values() or ext in SUFFIX or f".{ext}" == ".csv":
        return head.removesuffix("-ops") + SUFFIX[fmt]
    return name
