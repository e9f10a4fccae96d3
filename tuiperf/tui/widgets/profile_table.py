"""Python profile of each variant's call (the framework part): the top functions by cumulative time."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from tuiperf.core.model import RunResult
from tuiperf.tui.widgets.plot_base import no_color, variant_hex

TOP = 15


class ProfileTable(DataTable):
    def on_mount(self) -> None:
        self.zebra_stripes = True
        self.cursor_type = "row"
        for col in ("variant", "function", "calls", "cumulative µs/call", "own µs/call"):
            self.add_column(col, key=col)

    def show(self, result: RunResult | None) -> None:
        self.clear()
        for i, v in enumerate(result.variants if result else []):
            rows = sorted(v.profile, key=lambda r: -r.cumtime_us)[:TOP]
            style = "bold" if no_color() else f"bold {variant_hex(i)}"
            if not rows:
                why = v.profile_note or "no profile"
                self.add_row(Text(v.name, style=style), Text(why, style="dim"), "", "", "")
                continue
            for j, r in enumerate(rows):
                self.add_row(
                    Text(v.name, style=style) if j == 0 else "",
                    _short(r.function),
                    _calls(r.ncalls),
                    f"{r.cumtime_us:.2f}",
                    f"{r.tottime_us:.2f}",
                )


def _short(text: str, width: int = 70) -> str:
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def _calls(n) -> str:
    if isinstance(n, float) and n.is_integer():
        return str(int(n))
    return "" if n is None else f"{n:g}" if isinstance(n, float) else str(n)
