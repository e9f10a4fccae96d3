"""The selected scenario's title, question and file (or a broken file's error)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from tuiperf.core.text import inert, one_line


class ScenarioInfo(Static):
    def show(self, scenario: dict[str, Any] | None, broken: dict[str, Any] | None = None) -> None:
        if broken is not None:
            where = broken.get("path", "") + (f":{broken['line']}" if broken.get("line") else "")
            self.update(
                Text.assemble(
                    ("✗ Broken scenario ", "bold red"),
                    (one_line(broken.get("id", "")), "bold"),
                    "\n",
                    (one_line(where), "dim"),
                    "\n\n",
                    inert(broken.get("error", "")),
                )
            )
            return
        if scenario is None:
            self.update(Text("Loading scenarios…", style="dim"))
            return
        text = Text.assemble(
            (one_line(scenario.get("title", scenario["id"])), "bold"),
            "\n",
            inert(_plain(scenario.get("question", ""))),
            "\n",
            (one_line(scenario.get("path", "")), "dim"),
        )
        self.update(text)


def _plain(markdownish: str) -> str:
    return markdownish.replace("`", "")
