"""Textual messages the app's thread workers post; only handlers on the UI thread touch widgets.

Every run message carries the ``run_id`` of the run that produced it, so messages of a run that was
superseded (a new run started while the old thread finished) are recognised and dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message

from tuiperf.contract.catalog import Catalog
from tuiperf.results.model import RunResult
from tuiperf.tui.live import LiveState


@dataclass
class CatalogLoaded(Message):
    catalog: Catalog
    devices: list[dict[str, Any]] | None  # None: unchanged (a reload, or the cached list before JAX starts)
    generation: int = 0  # which reload this answers: an older one arriving late is dropped


@dataclass
class CatalogFailed(Message):
    title: str
    message: str


@dataclass
class RunBegan(Message):
    run_id: int
    live: LiveState
    sweep: bool = False


@dataclass
class RunUpdated(Message):
    """Progress, phase or new samples: coalesces, so a burst of them costs one redraw."""

    run_id: int
    live: LiveState

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, RunUpdated) and message.run_id == self.run_id


@dataclass
class RunDone(Message):
    """A complete (or, after cancel, partial) result document."""

    run_id: int
    result: RunResult


@dataclass
class RunError(Message):
    """The single way a failure reaches the UI: from the runner, a RunFailed event or a crash."""

    run_id: int
    title: str
    message: str
    where: str | None = None
    partial: RunResult | None = None
    details: str = ""


@dataclass
class ScenarioFilesChanged(Message):
    """A scenario file was created, changed or removed (by the app's editor or anyone else)."""

    paths: list[str]


@dataclass
class TabFailed(Message):
    """A result tab filled after the run's handler returned (see ResultsPanel.show) could not show it."""

    tab: str
    error: str
