"""Measure in the calling process: for tests, notebooks and the REPL.

The worker process (:mod:`tuiperf.processes.runner`) is the safer default: here a crash inside XLA takes
the caller down, and JAX's CPU dispatch mode can only be chosen before the first computation.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from tuiperf.contract import options
from tuiperf.contract.catalog import Catalog
from tuiperf.contract.events import Event
from tuiperf.contract.request import RunRequest
from tuiperf.results.model import DeviceInfo, RunResult

if TYPE_CHECKING:
    from tuiperf.measuring.context import Hooks

_PROCESS_DISPATCH: str | None = None  # fixed by the first run (or set_dispatch) in this process


def set_dispatch(mode: str) -> str:
    """Choose JAX's CPU dispatch mode once per process: it only takes effect before the first
    computation, so later calls change nothing. Returns the mode the process actually uses."""
    global _PROCESS_DISPATCH
    if _PROCESS_DISPATCH is None:
        import jax

        jax.config.update("jax_cpu_enable_async_dispatch", mode == "async")
        _PROCESS_DISPATCH = mode
    return _PROCESS_DISPATCH


def measure_here(request: RunRequest, hooks: Hooks, *, in_process: bool = False) -> RunResult:
    """Measure ``request`` in this process (this one alone: a cluster's process measures through
    :func:`tuiperf.measuring.cluster.measure_in_cluster`); its settings were checked on receipt."""
    from tuiperf.measuring.execute import execute

    options.check_combination(request.settings, in_process=in_process)
    actual = set_dispatch(request.settings.dispatch)
    result = execute(request, hooks)
    if actual != request.settings.dispatch:
        result.warnings.append(
            f"asked for {request.settings.dispatch} dispatch, but this process was already "
            f"running in {actual} mode (a ProcessRunner measures each dispatch mode in its own process)"
        )
    return result


class InProcessRunner:
    def __init__(self, scenario_dirs: list[str] | tuple[str, ...] = ()) -> None:
        self.scenario_dirs = list(scenario_dirs)

    def cached_catalog(self, scenario_dirs: list[str] | None = None) -> Catalog | None:
        return None  # importing in this process is what the cache would save: nothing to gain

    def catalog(self, scenario_dirs: list[str] | None = None) -> Catalog:
        from tuiperf.measuring.loading import load_catalog

        return load_catalog(scenario_dirs if scenario_dirs is not None else self.scenario_dirs).describe()

    def devices(self) -> list[DeviceInfo]:
        from tuiperf.measuring.env import list_devices

        return list_devices()

    def run(
        self,
        request: RunRequest,
        on_event: Callable[[Event], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> RunResult:
        from tuiperf.measuring.context import Hooks

        if not request.scenario_dirs:  # the caller's request is left as it was
            request = dataclasses.replace(request, scenario_dirs=list(self.scenario_dirs))
        hooks = Hooks(on_event or (lambda event: None), cancel or threading.Event())
        options.check(request.settings)  # once, as it arrives (what a measuring process does on receipt)
        from tuiperf.results.machine import Watch

        watch = Watch(request.scenario_path)
        return watch.finish(measure_here(request, hooks, in_process=True))

    def close(self) -> None:
        pass
