"""``?``: every key, and what the panels show."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = [
    ("r", "run the selected scenario with the form's values"),
    ("escape", "cancel the run in progress (the partial result stays); close dialogs"),
    ("w", "sweep one parameter over a list of values"),
    ("l", "toggle the log scale of the latency histogram"),
    ("b", "next baseline variant for ratios"),
    ("s", "save an SVG screenshot (and PNG with cairosvg) into the screenshots folder"),
    ("1 … 6", "show histogram, breakdown, sweep, statistics, profile, warnings"),
    ("[  ]", "previous / next result tab"),
    ("/", "filter scenarios"),
    ("f2", "setup / results (when the window is narrow)"),
    ("tab", "move between fields"),
    ("ctrl+p", "command palette: every action by name"),
    ("?", "this help"),
    ("q / ctrl+q", "quit"),
]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close", priority=True)]

    def compose(self) -> ComposeResult:
        table = Table(box=None, padding=(0, 2), show_header=False)
        table.add_column(style="bold")
        table.add_column()
        for key, what in KEYS:
            table.add_row(key, what)
        intro = Text.assemble(
            ("tuiperf", "bold"),
            " — the per-call cost of JAX code, measured in a separate "
            "process.\nPick a scenario, set its parameters, press r. Histograms fill in as "
            "samples arrive; medians are marked. Use dispatch=sync to remove the clusters "
            "that JAX's asynchronous CPU dispatch adds.\n",
        )
        with VerticalScroll(id="help-box"):
            yield Static(intro)
            yield Static(table)
            yield Static(Text("escape to close", style="dim"))

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
