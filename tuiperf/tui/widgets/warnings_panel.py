"""Warnings: equivalence mismatches, multi-modality, recompiles, unstable results, partial runs,
failed variants and the last run error."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from tuiperf.tui.formatting import format_ns


def collect_warnings(result: dict[str, Any] | None) -> list[tuple[str, str]]:
    """(severity, text) pairs: severity is "error", "warning" or "info"."""
    if not result:
        return []
    out: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(severity: str, text: str) -> None:
        if text not in seen:
            seen.add(text)
            out.append((severity, text))

    if result.get("partial"):
        add("warning", "Partial result: the run was cancelled or stopped before every variant was measured.")
    for v in result.get("variants", []):
        name = v.get("name", "?")
        if v.get("skipped"):
            add("info", f"{name}: skipped — {v.get('note') or v.get('error') or ''}")
        elif not v.get("ok"):
            add("error", f"{name}: FAILED — {v.get('error') or 'unknown error'}")
        for w in v.get("warnings") or []:
            add("warning", f"{name}: {w}")
        modes = v.get("modes") or []
        if len(modes) > 1 and not any("modal" in w for w in v.get("warnings") or []):
            centres = ", ".join(f"{format_ns(m['center_ns'])} ({m['fraction'] * 100:.0f} %)" for m in modes)
            add("warning", f"{name}: multi-modal per-call times, clusters at {centres}")
        if (v.get("retraces") or 0) > 0 and not any("retrac" in w or "recompil" in w for w in v.get("warnings") or []):
            add("warning", f"{name}: recompiled {v['retraces']} time(s) while being timed")
        if v.get("note"):
            add("info", f"{name}: {v['note']}")
    for w in result.get("warnings") or []:
        add("warning", w)
    return out


class WarningsPanel(VerticalScroll):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.items: list[tuple[str, str]] = []
        self.error: tuple[str, str] | None = None

    def compose(self):
        yield Static("", id="warnings-body")

    def show(self, result: dict[str, Any] | None, error: tuple[str, str] | None = None) -> None:
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
