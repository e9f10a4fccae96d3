"""The selected scenario's title, question and file (or a broken file's error)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from tuiperf.common.text import inert, one_line

if TYPE_CHECKING:
    from tuiperf.contract.catalog import LoadError, ScenarioEntry


class DescriptionBox(VerticalScroll):
    """Holds the description, capped in height (app.tcss): a long one scrolls here, and only then
    is the box a tab stop (to scroll it by keys)."""

    def allow_focus(self) -> bool:
        return self.max_scroll_y > 0


class ScenarioInfo(Static):
    def show(self, scenario: ScenarioEntry | None, broken: LoadError | None = None) -> None:
        if broken is not None:
            self.update(
                Text.assemble(
                    ("✗ Broken scenario ", "bold red"),
                    (one_line(broken.id), "bold"),
                    "\n",
                    (one_line(broken.where), "dim"),
                    "\n\n",
                    inert(broken.error),
                )
            )
            return
        if scenario is None:
            self.update(Text("Loading scenarios…", style="dim"))
            return
        text = Text.assemble(
            (one_line(scenario.title or scenario.id), "bold"),
            "\n",
            inert(_plain(scenario.question)),
            "\n",
            (one_line(scenario.path), "dim"),
            origin_line(scenario),
        )
        self.update(text)


def origin_line(scenario: ScenarioEntry) -> Text:
    """Built-in, yours, your copy of a built-in, or the last good version of a broken file."""
    failed = scenario.last_good
    if failed is not None:
        return Text.assemble(
            "\n",
            ("⚠ the file is broken; this is its last good version (e edits it)", "bold yellow"),
            "\n",
            (one_line(failed.where), "dim"),
            ": ",
            inert(one_line(failed.error)),
        )
    origin = scenario.origin
    if origin == "shadows built-in":
        return Text.assemble(
            "\n",
            ("⇄ your copy of a built-in (palette: Revert to built-in) ", "cyan"),
            (one_line(scenario.shadows or ""), "dim"),
        )
    if origin == "user":
        return Text("\n✎ your scenario: e edits it", style="cyan")
    return Text("\nbuilt-in: e opens it; saving makes your own copy", style="dim")


def _plain(markdownish: str) -> str:
    return markdownish.replace("`", "")
