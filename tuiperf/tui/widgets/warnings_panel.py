"""Warnings: equivalence mismatches, multi-modality, recompiles, unstable results, partial runs,
failed variants and the last run error."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from tuiperf.core.model import RunResult


def collect_warnings(result: RunResult | None) -> list[tuple[str, str]]:
    """(severity, text) pairs, severity "error", "warning" or "info".

    The result's own ``warnings`` come first, in the core's order (partial run, unfair comparisons,
    failures, then each variant's); the variants' notes and skip reasons follow as information.
    """
    if not result:
        return []
    failed = {f"{v.name} failed: " for v in result.variants if v.error}
    unfair = {m.a for m in result.equivalence.mismatches}
    out: list[tuple[str, str]] = []
    for text in dict.fromkeys(result.warnings):
        serious = any(text.startswith(prefix) for prefix in failed) or any(
            text.startswith(f"{name} does not compute") for name in unfair
        )
        out.append(("error" if serious else "warning", text))
    for v in result.variants:
        notes = "; ".join(v.notes)
        if v.skipped:
            out.append(("info", f"{v.name}: skipped — {notes or 'no reason given'}"))
        elif notes:
            out.append(("info", f"{v.name}: {notes}"))
    return out


class WarningsPanel(VerticalScroll):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.items: list[tuple[str, str]] = []
        self.error: tuple[str, str] | None = None

    def compose(self):
        yield Static("", id="warnings-body")

    def show(self, result: RunResult | None, error: tuple[str, str] | None = None) -> None:
        self.items = collect_warnings(result)
        self.error = error
        self._render_body()

    def set_error(self, error: tuple[str, str] | None) -> None:
        self.error = error
        self._render_body()

    @property
    def count(self) -> int:
        return len([i for i in self.items if i[0] != "info"]) + (1 if self.error else 0)

    def _render_body(self) -> None:
        lines: list[Text] = []
        if self.error:
            title, message = self.error
            lines.append(Text.assemble(("✗ last run failed: ", "bold red"), (title, "bold"), ": ", message))
        styles = {"error": ("✗ ", "bold red"), "warning": ("⚠ ", "bold yellow"), "info": ("ℹ ", "cyan")}
        for severity, text in self.items:
            mark, style = styles[severity]
            lines.append(Text.assemble((mark, style), text))
        if not lines:
            lines.append(Text("No warnings.", style="dim"))
        self.query_one("#warnings-body", Static).update(Group(*lines))
