"""How the app starts: the scenario to select, the form's initial values, a run to start at once.

Built by the CLI (``tuiperf ID --set ...``), by headless screenshots and by tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tuiperf.contract.options import RunSettings


@dataclass
class LaunchOptions:
    scenario: str | None = None  # select this scenario when the catalog arrives
    params: dict[str, Any] = field(default_factory=dict)  # raw values for its form
    variants: list[str] | None = None  # preselected variants (None: all)
    autorun: bool = False  # run as soon as the scenario's form is ready
    sweep: tuple[str, list[Any]] | None = None  # run this sweep instead
    grid: tuple[str, list[Any]] | None = None  # with ``sweep``: a second swept parameter, the sweep a grid
    tab: str | None = None  # result tab to show
    device: str | None = None
    environments: list[str] = field(default_factory=list)  # Python environments to tick, the reference first
    settings: RunSettings = field(default_factory=RunSettings)  # the run options' initial values
    errors_as_dialogs: bool = True  # False: errors as notifications (headless screenshots)

    def axes(self) -> tuple[tuple[str, list[Any]], tuple[str, list[Any]] | None] | None:
        """The sweep and grid a launch runs, as a run takes them (None: no sweep)."""
        if not self.sweep:
            return None
        return (self.sweep[0], list(self.sweep[1])), (self.grid[0], list(self.grid[1])) if self.grid else None
