"""Warnings: equivalence mismatches, clusters, recompiles, unstable results, partial runs, failed
variants and the last run error (the list comes from :func:`tuiperf.tui.view.collect_warnings`)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll

from tuiperf.common.text import inert
from tuiperf.tui.widgets.text_block import TextBlock


def warnings_count(items: list[tuple[str, str]], error: tuple[str, str] | None) -> int:
    """What the tab's label counts: warnings and errors (not notes), and the last run's error."""
    return len([i for i in items if i[0] != "info"]) + (1 if error else 0)


class WarningsPanel(VerticalScroll):
    DEFAULT_CSS = """
    WarningsPanel {
        padding: 0 1;
        scrollbar-gutter: stable;  /* the width stays when a scrollbar comes or goes: no second layout */
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.items: list[tuple[str, str]] = []
        self.error: tuple[str, str] | None = None

    def compose(self) -> ComposeResult:
        yield TextBlock("", id="warnings-body")

    def show(self, items: list[tuple[str, str]], error: tuple[str, str] | None = None) -> None:
        self.items = list(items)
        self.error = error
        self._render_body()

    @property
    def count(self) -> int:
        return warnings_count(self.items, self.error)

    def _render_body(self) -> None:
        lines: list[Text] = []
        if self.error:
            title, message = self.error
            lines.append(
                Text.assemble(("✗ last run failed: ", "bold red"), (inert(title), "bold"), ": ", inert(message))
            )
        styles = {"error": ("✗ ", "bold red"), "warning": ("⚠ ", "bold yellow"), "info": ("ℹ ", "cyan")}
        for severity, text in self.items:
            mark, style = styles[severity]
            lines.append(Text.assemble((mark, style), inert(text)))
        if not lines:
            lines.append(Text("No warnings.", style="dim"))
        self.query_one("#warnings-body", TextBlock).show_text(Text("\n").join(lines))
