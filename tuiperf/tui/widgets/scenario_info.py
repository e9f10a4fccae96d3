"""The selected scenario's title, question and file (or a broken file's error)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static


class ScenarioInfo(Static):
    def show(self, scenario: dict[str, Any] | None, broken: dict[str, Any] | None = None) -> None:
        if broken is not None:
            where = broken.get("path", "") + (f":{broken['line']}" if broken.get("line") else "")
            self.update(
                Text.assemble(
                    ("✗ Broken scenario ", "bold red"),
                    (broken.get("id", ""), "bold"),
                    "\n",
                    (where, "dim"),
                    "\n\n",
                    broken.get("error", ""),
                )
            )
            return
        if scenario is None:
            self.update(Text("Loading scenarios…", style="dim"))
            return
        text = Text.assemble(
            (scenario.get("title", scenario["id"]), "bold"), "\n", _plain(scenario.get("question", ""))
        )
        self.update(text)


def _plain(markdownish: str) -> str:
    return markdownish.replace("`", "")
