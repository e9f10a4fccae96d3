"""The main screen's state that drives its widgets, as values its reactives hold.

- :class:`Shown`: what the result panels show (a result, its state line, and what was made of it
  off the UI thread). Setting ``MainScreen.shown`` fills every result panel from it (its watcher); a
  new :class:`Shown` each time, so that showing the same result again redraws it (no ``__eq__``).
- :data:`RunPhase`: ``MainScreen.run_phase``; the run options' buttons follow it (``data_bind``).

No Textual and no result view here: the first frame waits for every module imported at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from tuiperf.common.text import one_line

if TYPE_CHECKING:
    from tuiperf.results.model import RunResult
    from tuiperf.tui.tab_contents import TabContents
    from tuiperf.tui.view import ResultView

RunPhase = Literal["idle", "running", "cancelling"]


@dataclass(frozen=True, eq=False)
class Shown:
    """``state``: "done", "failed" (the previous result kept on screen), "running", or a stored run's
    line; ``view`` and ``contents``: the result's view and its tabs' text, when made already."""

    result: RunResult | None
    state: str = "done"
    view: ResultView | None = None
    contents: TabContents | None = None


def stored_state(stored: RunResult, run_id: int) -> str:
    """The progress line's state for a run opened from the history: its id and when it ran (UTC)."""
    when = one_line(stored.started_at[:16].replace("T", " "))
    when += " UTC" if when and stored.started_at.endswith(("+00:00", "Z")) else ""
    return f"stored run {run_id}" + (f" · {when}" if when else "")
