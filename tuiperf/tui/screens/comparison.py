"""The current result against a stored run: per variant, now/then with its 95 % CI and a verdict."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from tuiperf.common.text import inert, one_line
from tuiperf.common.units import format_ns, format_p
from tuiperf.results.compare import RunComparison

THRESHOLD = 0.05  # a change counts when the whole 95 % CI of now/then is beyond ±5 %


def verdict(lo: float, hi: float, threshold: float = THRESHOLD) -> Text:
    if lo > 1 + threshold:
        return Text("slower", style="bold red")
    if hi < 1 - threshold:
        return Text("faster", style="bold green")
    if lo > 1 or hi < 1:
        return Text(f"changed < {threshold:.0%}", style="yellow")
    return Text("same", style="dim")


class ComparisonScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss(None)", "Close", priority=True)]

    def __init__(self, comparison: RunComparison, label: str) -> None:
        super().__init__()
        self.comparison, self.label = comparison, label

    def compose(self) -> ComposeResult:
        with Vertical(id="comparison-box"):
            yield Static(Text(f"Now against {self.label}", style="bold"))
            yield DataTable(id="comparison-table", cursor_type="row", zebra_stripes=True)
            differences = self.comparison.differences
            if differences:
                lines = "\n".join(f"• {one_line(d)}" for d in differences)
                yield Static(Text.assemble(("The runs differ besides the numbers:\n", "bold yellow"), inert(lines)))
            else:
                yield Static(Text("Same scenario file, parameters, versions, device and dispatch mode.", style="dim"))
            yield Static(Text(f"verdict: the whole 95 % CI beyond ±{THRESHOLD:.0%} · escape closes", style="dim"))

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        # The verdict and what it rests on first: the box is 76 columns at 80, and the medians come last.
        for column in ("variant", "verdict", "now / then", "95% CI", "p", "then", "now"):
            table.add_column(column, key=column)
        for row in self.comparison.rows:
            lo, hi = row.ci95
            table.add_row(
                Text(one_line(row.variant, 40)),  # Text: a DataTable reads a str as markup
                verdict(lo, hi),
                f"{row.ratio:.3f}×",
                f"{lo:.3f} – {hi:.3f}",
                format_p(row.p_value),
                format_ns(row.old_ns),
                format_ns(row.new_ns),
                key=row.variant,
            )
