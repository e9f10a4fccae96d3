"""How callers (CLI, TUI, tests) ask for measurements.

Two runners share one interface:

- :class:`~tuiperf.processes.runner.ProcessRunner` (the default) drives a persistent child process that
  owns JAX, so timed code never shares the GIL with a UI and an XLA abort cannot take the caller down.
- :class:`~tuiperf.measuring.inprocess.InProcessRunner` measures in the calling process (tests, REPL).

``run`` blocks (call it from a thread), streams :mod:`tuiperf.contract.events` to ``on_event`` and
returns the result (a :class:`~tuiperf.results.model.RunResult`). Setting ``cancel`` stops it within
one sample; the result is then partial. A request's run options are :mod:`tuiperf.contract.options`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

from tuiperf.contract import options
from tuiperf.contract.catalog import Catalog
from tuiperf.contract.events import Event
from tuiperf.contract.options import RunSettings
from tuiperf.results.model import DeviceInfo, RunResult, Scalar


@dataclass(frozen=True)
class LeftOut:
    """A variant not to measure at one point of a run (index 0 of a run that is no sweep): it crashed or
    outlasted the time limit of an earlier measuring process there. It is reported failed there, with
    ``error`` (in ``phase``), and measured everywhere else (:mod:`tuiperf.processes.isolation`)."""

    point: int
    variant: str
    error: str
    phase: str | None = None
    notes: tuple[str, ...] = ()


@dataclass
class RunRequest:
    """What to measure (scenario, parameter values, variants, device, sweep) and how (``settings``)."""

    scenario: str
    params: Mapping[str, Scalar] = field(default_factory=dict)  # raw values (strings are parsed)
    variants: list[str] | None = None  # None: all
    device: str | None = None  # "cpu:0", "cuda:1", or None for the first device
    sweep: tuple[str, Sequence[Scalar]] | None = None  # (parameter, values)
    grid: tuple[str, Sequence[Scalar]] | None = None  # a second swept parameter: the sweep becomes a grid (its columns)
    scenario_dirs: list[str] = field(default_factory=list)
    scenario_path: str | None = None  # the file defining `scenario`: import only it (set by runners)
    settings: RunSettings = field(default_factory=lambda: options.TABLE())  # the run options (contract.options)
    # Python environments to measure in, by name (tuiperf env): the first is the reference; empty: this one.
    environments: list[str] = field(default_factory=list)
    # Variants that failed at a point in an earlier process of this run: reported failed there, not measured.
    left_out: list[LeftOut] = field(default_factory=list)


@dataclass
class ResolvedRequest(RunRequest):
    """A request as a runner measures it: its scenario folders given, the file that defines its scenario
    found (``scenario_path``) and, where the file's own list is known, its variants named. Built by a
    runner's ``resolve`` from the caller's request, which stays as it was; what measures takes only this."""

    def __post_init__(self) -> None:
        if self.scenario_path is None:
            raise ValueError("a resolved request names the file that defines its scenario")

    @classmethod
    def of(cls, request: RunRequest, **changes: Any) -> ResolvedRequest:
        """A resolved copy of ``request`` with ``changes`` (by field name)."""
        return cls(**{**{f.name: getattr(request, f.name) for f in fields(request)}, **changes})


class Runner(Protocol):
    def catalog(self, scenario_dirs: list[str] | None = None) -> Catalog:
        """Every scenario (id, title, question, params, variants) and every file that is broken."""

    def cached_catalog(self, scenario_dirs: list[str] | None = None) -> Catalog | None:
        """The last catalog of these folders if no file changed since (instant; None when unknown)."""

    def devices(self) -> list[DeviceInfo]:
        """Every JAX device (``cpu:0``, platform ``cpu``, its kind, its index)."""

    def run(
        self,
        request: RunRequest,
        on_event: Callable[[Event], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> RunResult:
        """Measure; raise :class:`TuiperfError` for bad input before anything runs."""

    def close(self) -> None: ...
