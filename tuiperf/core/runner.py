"""How callers (CLI, TUI, tests) ask for measurements.

Two runners share one interface:

- :class:`~tuiperf.core.worker.WorkerRunner` (the default) drives a persistent child process that
  owns JAX, so timed code never shares the GIL with a UI and an XLA abort cannot take the caller down.
- :class:`~tuiperf.core.inprocess.InProcessRunner` measures in the calling process (tests, REPL).

``run`` blocks (call it from a thread), streams :mod:`tuiperf.core.events` to ``on_event`` and
returns the result dict. Setting ``cancel`` stops it within one sample; the result is then partial.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from tuiperf.core.events import Event
from tuiperf.core.model import RunResult

DISPATCH_MODES = ("sync", "async")
# Sync by default: the calling thread does the work, so a per-call figure is host work plus compute
# with no hand-off to JAX's dispatch thread (what that hand-off costs depends on how busy the CPU is:
# the README gives benchmarks/dispatch_modes.py's figures) and the breakdown's paths are comparable.
# Async is one flag away and always labelled.
DEFAULT_DISPATCH = "sync"
INTERLEAVE_MODES = ("block", "call")
MAX_SAMPLES_PER_VARIANT = 1_000_000  # ~8 MB per variant in the measuring process
DEFAULT_TIMEOUT_S = 60.0


@dataclass
class RunRequest:
    scenario: str
    params: dict[str, Any] = field(default_factory=dict)  # raw values (strings are parsed)
    variants: list[str] | None = None  # None: all
    device: str | None = None  # "cpu:0", "cuda:1", or None for the first device
    dispatch: str = DEFAULT_DISPATCH  # "sync" or "async" (JAX's own default on CPU)
    samples: int | None = None  # fixed samples per variant; None: auto (CI of median ±1 % or budget)
    budget_s: float = 3.0  # time budget for steady-state sampling in auto mode
    sweep: tuple[str, list[Any]] | None = None  # (parameter, values)
    scenario_dirs: list[str] = field(default_factory=list)
    scenario_path: str | None = None  # the file defining `scenario`: import only it (set by runners)
    profile: bool = True  # collect a Python profile of each variant's call
    seed: int = 0
    interleave: str = "block"  # "block": ~5 ms turns after an untimed warm-up call; "call": one call per turn
    processes: int = 1  # repeat the whole measurement in this many fresh measuring processes
    timeout_s: float | None = DEFAULT_TIMEOUT_S  # longest one call (or compile) may take before it is stopped
    baseline: str | None = None  # the variant ratios are against (default: the scenario's reference=True one)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Runner(Protocol):
    def catalog(self, scenario_dirs: list[str] | None = None) -> dict[str, Any]:
        """``Catalog.describe()``: scenarios (id, title, question, params, variants) and broken files."""

    def cached_catalog(self, scenario_dirs: list[str] | None = None) -> dict[str, Any] | None:
        """The last catalog of these folders if no file changed since (instant; None when unknown)."""

    def devices(self) -> list[dict[str, Any]]:
        """Every JAX device: ``{"id": "cpu:0", "platform": "cpu", "kind": "cpu", "index": 0}``."""

    def run(
        self,
        request: RunRequest,
        on_event: Callable[[Event], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> RunResult:
        """Measure; raise :class:`TuiperfError` for bad input before anything runs."""

    def close(self) -> None: ...
