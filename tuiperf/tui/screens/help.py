"""``?``: every key (from the one command table) and how to read the panels; scrolls to its end."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tuiperf.tui.commands import help_rows

INTRO = (
    " — the per-call cost of JAX code, measured in a separate process.\n"
    "Pick a scenario, set its parameters, press r. Histograms fill in as samples arrive; medians are "
    "marked. The Breakdown splits one call into framework, jit dispatch, launch, compute and outputs; "
    "Statistics compares every variant with a baseline (ratio, 95 % CI, p-value); Warnings says what "
    "to distrust. Figures are labelled with their dispatch mode (sync by default).\n"
)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,question_mark", "dismiss", "Close", priority=True),
        Binding("down,j", "scroll(1)", "Down", show=False),
        Binding("up,k", "scroll(-1)", "Up", show=False),
        Binding("pagedown,space", "scroll(10)", "Page down", show=False),
        Binding("pageup", "scroll(-10)", "Page up", show=False),
        Binding("end,G", "scroll(10000)", "End", show=False),
        Binding("home,g", "scroll(-10000)", "Home", show=False),
    ]

    def compose(self) -> ComposeResult:
        table = Table(box=None, padding=(0, 2), show_header=False)
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for keys, what in help_rows():
            table.add_row(keys, what)
        with VerticalScroll(id="help-box"):
            yield Static(Text.assemble(("tuiperf", "bold"), INTRO))
            yield Static(table)
            yield Static(Text("↑/↓ pgup/pgdn scroll · escape closes", style="dim"))

    def action_scroll(self, lines: int) -> None:
        box = self.query_one("#help-box", VerticalScroll)
        box.scroll_to(y=max(0, box.scroll_y + lines), animate=False)

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
