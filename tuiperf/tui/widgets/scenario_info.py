"""The selected scenario's title, question and file (or a broken file's error)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from tuiperf.common.text import inert, one_line


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
            origin_line(scenario),
        )
        self.update(text)


def origin_line(scenario: dict[str, Any]) -> Text:
    """Built-in, yours, your copy of a built-in, or the last good version of a broken file."""
    failed = scenario.get("last_good")
    if failed:
        where = failed["file"] + (f":{failed['line']}" if failed.get("line") else "")
        return Text.assemble(
            "\n",
            ("⚠ the file is broken; this is its last good version (e edits it)", "bold yellow"),
            "\n",
            (one_line(where), "dim"),
            ": ",
            inert(one_line(failed.get("error", ""))),
        )
    origin = scenario.get("origin")
    if origin == "shadows built-in":
        return Text.assemble(
            "\n",
            ("⇄ your copy of a built-in (palette: Revert to built-in) ", "cyan"),
            (one_line(scenario.get("shadows", "")), "dim"),
        )
    if origin == "user":
        return Text("\n✎ your scenario: e edits it", style="cyan")
    return Text("\nbuilt-in: e opens it; saving makes your own copy", style="dim")


def _plain(markdownish: str) -> str:
    return markdownish.replace("`", "")
