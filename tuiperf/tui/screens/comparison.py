"""The shown result against a stored run, the newer against the older: per variant (and a sweep's
point), new/old with its 95 % CI and a verdict."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from tuiperf.common.text import inert, one_line
from tuiperf.common.units import format_ns
from tuiperf.results.compare import RunComparison
from tuiperf.results.findings import p_cell

THRESHOLD = 0.05  # a change counts when the whole 95 % CI of now/then is beyond ±5 %


def verdict(lo: float, hi: float, threshold: float = THRESHOLD, finding: bool = True) -> Text:
    """``finding``: the change is beyond noise under the one rule (results/findings.py): two runs are two
    processes, so an interval that leaves the process-to-process spread out decides nothing."""
    if not finding and (lo > 1 or hi < 1):
        return Text("undecided (one process each)", style="dim")
    if lo > 1 + threshold:
        return Text("slower", style="bold red")
    if hi < 1 - threshold:
        return Text("faster", style="bold green")
    if lo > 1 or hi < 1:
        return Text(f"changed < {threshold:.0%}", style="yellow")
    return Text("same", style="dim")


class ComparisonScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss(None)", "Close", priority=True)]

    def __init__(self, comparison: RunComparison, old_label: str, new_label: str = "the shown result") -> None:
        super().__init__()
        self.comparison, self.old_label, self.new_label = comparison, old_label, new_label

    def compose(self) -> ComposeResult:
        with Vertical(id="comparison-box"):
            title = f"{one_line(self.new_label)} (new) against {one_line(self.old_label)} (old)"
            yield Static(Text(title, style="bold"))
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
        by_point = any(row.point for row in self.comparison.rows)
        for column in ("point",) * by_point + ("variant", "verdict", "new / old", "95% CI", "p", "old", "new"):
            table.add_column(column, key=column)
        keys: set[str] = set()
        for row in self.comparison.rows:
            key = f"{row.point}\u241f{row.variant}" if row.point else row.variant
            key = key if key not in keys else f"{key} #{len(keys)}"  # a result file can repeat a name
            keys.add(key)
            lo, hi = row.ci95
            table.add_row(
                *[Text(one_line(row.point, 30))] * by_point,
                Text(one_line(row.variant, 40)),  # Text: a DataTable reads a str as markup
                verdict(lo, hi, finding=row.finding),
                f"{row.ratio:.3f}×",
                f"{lo:.3f} – {hi:.3f}",
                p_cell(row.p_value, row.finding),
                format_ns(row.old_ns),
                format_ns(row.new_ns),
                key=key,
            )
