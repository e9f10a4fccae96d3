"""``n``: a name and a template for a new scenario of one's own (the same as ``tuiperf new``)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tuiperf.catalog.templates import TEMPLATES, check_name
from tuiperf.common.errors import ParamError
from tuiperf.common.text import one_line


class TemplateScreen(ModalScreen[tuple[str, str] | None]):
    """Dismisses with ``(name, template)``, or None on escape."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", priority=True)]
    AUTO_FOCUS = "#new-name"

    def __init__(self, folder: str) -> None:
        super().__init__()
        self.folder = folder

    def compose(self) -> ComposeResult:
        with Vertical(id="template-box"):
            yield Static("New scenario", classes="box-title")
            yield Input(placeholder="name, e.g. my-mlp", id="new-name", compact=True)
            yield Static("", id="new-name-error", classes="param-error")
            yield OptionList(*(Option(f"{t.name}  {t.summary}", id=t.name) for t in TEMPLATES), id="new-template")
            yield Static(
                Text(f"written to {one_line(self.folder)}; enter creates it and opens the editor"), classes="dim"
            )

    def on_mount(self) -> None:
        self.query_one("#new-template", OptionList).highlighted = 0

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._create()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._create()

    def _create(self) -> None:
        name = self.query_one("#new-name", Input).value.strip()
        error = self.query_one("#new-name-error", Static)
        try:
            check_name(name)
        except ParamError as exc:
            error.update(Text(f"✗ {one_line(exc.message)}"))  # it quotes the name typed: never markup
            error.add_class("-shown")
            self.query_one("#new-name", Input).focus()
            return
        templates = self.query_one("#new-template", OptionList)
        index = templates.highlighted or 0
        self.dismiss((name, TEMPLATES[index].name))
