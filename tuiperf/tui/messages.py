"""Textual messages the app's thread workers post; only handlers on the UI thread touch widgets.

A run's news carries the ``run_id`` of the run that produced it, so news of a run that was superseded
(a new run started while the old thread finished) is recognised and dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

from tuiperf.contract.catalog import Catalog
from tuiperf.results.model import DeviceInfo
from tuiperf.tui.controller import RunNews, RunUpdated

if TYPE_CHECKING:
    from tuiperf.contract.environments import PythonEnv
    from tuiperf.results.history import StoredRun
    from tuiperf.results.model import RunResult, Sweep


@dataclass
class CatalogLoaded(Message):
    catalog: Catalog
    devices: list[DeviceInfo] | None  # None: unchanged (a reload, or the cached list before JAX starts)
    generation: int = 0  # which reload this answers: an older one arriving late is dropped


@dataclass
class EnvironmentsListed(Message):
    """The registered Python environments (``current`` first), read off the UI thread; ``error``: why
    the list could not be read (then ``environments`` holds ``current`` alone)."""

    environments: list[PythonEnv]
    error: str | None = None


@dataclass
class CatalogFailed(Message):
    title: str
    message: str


@dataclass
class RunNewsArrived(Message):
    """News of a run from its thread (:mod:`tuiperf.tui.controller`); progress coalesces, so a burst
    of it costs one redraw."""

    news: RunNews

    def can_replace(self, message: Message) -> bool:
        mine, theirs = self.news, getattr(message, "news", None)
        return isinstance(mine, RunUpdated) and isinstance(theirs, RunUpdated) and theirs.run_id == mine.run_id


@dataclass
class ScenarioFilesChanged(Message):
    """A scenario file was created, changed or removed (by the app's editor or anyone else)."""

    paths: list[str]


@dataclass
class TabFailed(Message):
    """A result tab filled after the run's handler returned (see ResultsPanel.show) could not show it."""

    tab: str
    error: str


@dataclass
class CommandFailed(Message):
    """A command's work in a thread failed (a stored run unreadable, a trace, watching the scenario
    files): the screen tells the user (a notification; a failed command is no failed run)."""

    title: str
    message: str


@dataclass
class StoredRunRead(Message):
    """A run read from the history off the UI thread, to open (``made``: its view and tabs' text, made
    in that thread, or None) or to compare with the result shown."""

    purpose: str  # "open" or "compare"
    run_id: int
    stored: RunResult
    made: Any = None


@dataclass
class HistoryListed(Message):
    """The history's runs, read off the UI thread for the filter ``read_for`` (``error``: why none were)."""

    runs: list[StoredRun]
    read_for: str
    error: str = ""


@dataclass
class CommitsRead(Message):
    """A scenario's runs by git commit as a sweep to plot, read off the UI thread (``sweep`` None: none
    recorded a commit, ``error`` says so or why they could not be read)."""

    title: str
    sweep: Sweep | None
    error: str = ""
    quantity: str = "time"  # what the plot shows first: "compile" where the chosen run measured compile time
