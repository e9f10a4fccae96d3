"""Measuring processes, seen from the caller: start them, ask them, stop them, survive them.

Why processes: timed code must not share the GIL with a UI; JAX's CPU dispatch mode is fixed per
process; an XLA abort, a segfault or an out-of-memory kill inside a scenario must not take the caller
down; and a scenario file's side effects (threads, signal handlers, monkeypatching) must not reach
another scenario's numbers. So (see :class:`ProcessRunner`):

- scenario files are described by a *loader* process (:mod:`tuiperf.processes.loader`), never by the
  process that measures;
- a run imports only its own scenario file, in a measuring process no other scenario file touched;
  the process is kept for the next run of the same file content in the same dispatch mode;
- a pre-warmed spare process (JAX and the frameworks imported) hides the start-up of the next one;
- a measuring process that has grown by more than :data:`RETIRE_AFTER_GROWTH_MB` since its first run
  is retired for a fresh one, and the run measured there says so.

Faults: a cancel that the process does not answer within :data:`CANCEL_GRACE_S` kills it; a process
silent for longer than the request's ``timeout_s`` is killed and reported as "did not return within
N s"; a process that dies is reported with the variant it was running, the phase, its signal or exit
status and the tail of its output. In every case what was measured is kept, marked partial. The
process's stdout and stderr go to a capped, rotated log file in the per-user log folder.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from pathlib import Path

from tuiperf.catalog.folders import file_sha256
from tuiperf.common.errors import ScenarioError, UnknownScenario, WorkerCrashed
from tuiperf.contract.catalog import Catalog, ScenarioEntry
from tuiperf.contract.environments import CURRENT
from tuiperf.contract.events import Event, Progress, RunFailed
from tuiperf.contract.protocol import ListDevices, Measure, Memory
from tuiperf.contract.request import ResolvedRequest, RunRequest
from tuiperf.processes.isolation import Attempt, isolating
from tuiperf.processes.process import MeasuringProcess, ProcessStopped
from tuiperf.processes.tracking import StreamTracker
from tuiperf.results.machine import Watch
from tuiperf.results.model import DeviceInfo, RunResult

# A reused measuring process keeps runs comparable (a fresh one can land ~30 % away from another on a
# busy VM), but it grows a little each run in the libraries' keeping, which clear_caches() does not
# return: JAX registers every module class a run's setup defines as a pytree node for good, and
# anonymous native memory grows that malloc_trim does not return either (0.1-0.4 MB a run for
# mlp-closure-vs-argument; see docs/measuring-tuiperf.md). Past this growth the process
# is replaced, so a long session is bounded.
RETIRE_AFTER_GROWTH_MB = 128.0
MEMORY_ANSWER_S = 30.0  # the size is answered after the last run's clean-up


class ProcessRunner:
    """The :class:`~tuiperf.contract.request.Runner` over measuring processes (see the module docstring).

    ``spare=True`` keeps a pre-warmed process ready (the app); the CLI measures once and needs none.
    ``calibrate_first``: the first run measures this machine's process-to-process spread before itself
    when none is kept for this machine and environment (:mod:`tuiperf.processes.calibrating`).
    Thread-safe: one request at a time.
    """

    def __init__(
        self,
        scenario_dirs: list[str] | tuple[str, ...] = (),
        *,
        spare: bool = False,
        load_timeout_s: float | None = None,
        retire_growth_mb: float = RETIRE_AFTER_GROWTH_MB,
        calibrate_first: bool = True,
    ) -> None:
        self.scenario_dirs = list(scenario_dirs)
        self.calibrate_first = calibrate_first
        self.keep_spare = spare
        self.load_timeout_s = load_timeout_s
        self.retire_growth_mb = retire_growth_mb
        self._measuring: MeasuringProcess | None = None
        self._spare: MeasuringProcess | None = None
        self._loader: MeasuringProcess | None = None
        self._devices: list[DeviceInfo] | None = None
        self._lock = threading.Lock()
        self._catalogs: dict[tuple[str, ...], Catalog] = {}

    # -- processes -----------------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Start the spare now (the app calls this once the scenario files are loaded); nothing when a
        run or a catalog holds the runner: a run starts its own spare."""
        if not self._lock.acquire(blocking=False):
            return
        try:
            if self._spare is None or not self._spare.alive:
                self._spare = MeasuringProcess()
        finally:
            self._lock.release()

    def _fresh(self, cpu_devices: int = 1) -> MeasuringProcess:
        """A process that has computed nothing yet: the pre-warmed spare when it fits (it has one CPU
        device), else a new one started with ``cpu_devices`` host devices (--devices N)."""
        if cpu_devices != 1:
            return MeasuringProcess(cpu_devices=cpu_devices)
        child = self._spare if self._spare is not None and self._spare.alive else MeasuringProcess()
        self._spare = MeasuringProcess() if self.keep_spare else None
        return child

    def _measuring_for(
        self, key: tuple[str, str], dispatch: str, fresh: bool, cpu_devices: int = 1
    ) -> tuple[MeasuringProcess, str | None]:
        """The process to measure in, and why it is a new one when the user should know."""
        current, why_new = self._measuring, None
        if (
            not fresh
            and current is not None
            and current.alive
            and current.scenario_key == key
            and current.dispatch == dispatch
            and current.cpu_devices == cpu_devices
        ):
            why_new = self._outgrown(current)
            if why_new is None:
                return current, None
        if current is not None:
            current.close()
        self._measuring = child = self._fresh(cpu_devices)
        child.scenario_key, child.dispatch = key, dispatch
        return child, why_new

    def _outgrown(self, child: MeasuringProcess) -> str | None:
        """Why ``child`` is retired before another run (grown too much since its first run), or None."""
        try:
            size = child.request(Memory(), timeout_s=MEMORY_ANSWER_S).mb
        except ProcessStopped as exc:
            return f"measured in a fresh process: the last one {exc.how} while cleaning up after its run"
        if size is None:
            return None  # the system does not tell a process's size
        if child.idle_mb is None:
            child.idle_mb = size
            return None
        grown = size - child.idle_mb
        if grown <= self.retire_growth_mb:
            return None
        return (
            f"measured in a fresh process: the last one had grown by {grown:.0f} MB over {child.runs} runs "
            f"(limit {self.retire_growth_mb:g} MB); times can differ more between processes than between runs"
        )

    def _loader_child(self) -> MeasuringProcess:
        if self._loader is None or not self._loader.alive:
            self._loader = MeasuringProcess(role="loader")
        return self._loader

    def close(self) -> None:
        for child in (self._measuring, self._spare, self._loader):
            if child is not None:
                child.close()
        self._measuring = self._spare = self._loader = None

    # -- the Runner interface -------------------------------------------------------------------------
    def catalog(self, scenario_dirs: list[str] | None = None) -> Catalog:
        from tuiperf.catalog import cache as catalog_cache
        from tuiperf.processes import loader

        dirs = list(scenario_dirs if scenario_dirs is not None else self.scenario_dirs)
        with self._lock:
            described = loader.load_isolated(
                dirs, self._loader_child, self._drop_loader, self.load_timeout_s or loader.IMPORT_TIMEOUT_S
            )
        self._catalogs[tuple(dirs)] = described
        catalog_cache.store(dirs, described)
        return described

    def cached_catalog(self, scenario_dirs: list[str] | None = None) -> Catalog | None:
        """The last catalog of these folders if no file changed since (no process started)."""
        from tuiperf.catalog import cache as catalog_cache

        return catalog_cache.load(list(scenario_dirs if scenario_dirs is not None else self.scenario_dirs))

    def _drop_loader(self) -> None:
        if self._loader is not None:
            self._loader.kill()
        self._loader = None

    def devices(self) -> list[DeviceInfo]:
        """Every JAX device, listed once by a short-lived process: the loader sees only the CPU, and a
        measuring process must not open its backends before its first run fixes the dispatch mode."""
        with self._lock:
            if self._devices is None:
                lister = MeasuringProcess(role="devices")
                try:
                    self._devices = list(lister.request(ListDevices(), timeout_s=60).devices)
                finally:
                    lister.close()
            return list(self._devices)

    def run(
        self,
        request: RunRequest,
        on_event: Callable[[Event], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> RunResult:
        """Measure ``request`` in measuring processes: :meth:`resolve`, then :meth:`measure` (the first
        run calibrates this machine first where it must). ``request`` is left as it was."""
        resolved = self.resolve(request)  # bad input is said before anything is measured
        if self.calibrate_first:
            self.calibrate_first = False  # asked once per runner, whatever happens
            from tuiperf.processes.calibrating import ensure

            ensure(lambda r, e, c: self.measure(self.resolve(r), e, c), on_event, cancel)
        return self.measure(resolved, on_event, cancel)

    def resolve(self, request: RunRequest) -> ResolvedRequest:
        """A copy of ``request`` with its folders and the file that defines its scenario; an unknown
        environment or scenario is said here, before anything is measured (the catalog may be read
        in a loader process)."""
        if isinstance(request, ResolvedRequest):
            return request
        if strategy_of(request) == "environments":
            from tuiperf.processes.python_envs import lookup

            for name in request.environments:
                lookup(name)
        scenario_dirs = list(request.scenario_dirs or self.scenario_dirs)
        if request.scenario_path is not None:
            return ResolvedRequest.of(request, scenario_dirs=scenario_dirs)
        entry = self._entry_of(dataclasses.replace(request, scenario_dirs=scenario_dirs))
        variants = request.variants
        if not variants and entry.source_sha256 == file_sha256(Path(entry.path)):
            # Named, so that a variant that crashes the process can be blamed even before any RunStarted
            # (an interleaved sweep holds those until every point is sampled): the file's own list.
            variants = [v.name for v in entry.variants]
        return ResolvedRequest.of(request, scenario_dirs=scenario_dirs, scenario_path=entry.path, variants=variants)

    def measure(
        self,
        request: ResolvedRequest,
        on_event: Callable[[Event], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> RunResult:
        """Measure a resolved request in measuring processes (how many and which: :func:`strategy_of`);
        a crash, a timeout or a forced cancel returns what was measured so far, marked partial; a
        variant that crashes its process fails alone (:mod:`tuiperf.processes.isolation`)."""
        if cancel is not None and cancel.is_set():  # stopped while the scenario files were being read
            seen = StreamTracker(request)
            return seen.after_crash(seen.crash("was not started: the run was cancelled first"))
        watch = Watch(request.scenario_path)  # the machine and the git commit, before and after
        return watch.finish(STRATEGIES[strategy_of(request)](self, request, on_event, cancel))

    def _in_environments(
        self, request: ResolvedRequest, on_event: Callable[[Event], None] | None, cancel: threading.Event | None
    ) -> RunResult:
        from tuiperf.processes.multi_env import run_in_environments
        from tuiperf.processes.python_envs import lookup

        with self._lock:
            return run_in_environments(request, [lookup(n) for n in request.environments], on_event, cancel)

    def _in_cluster(
        self, request: ResolvedRequest, on_event: Callable[[Event], None] | None, cancel: threading.Event | None
    ) -> RunResult:
        from tuiperf.processes.cluster import run_cluster

        with self._lock:
            return run_cluster(request, on_event, cancel)

    def _repeated(
        self, request: ResolvedRequest, on_event: Callable[[Event], None] | None, cancel: threading.Event | None
    ) -> RunResult:
        """The same request in ``settings.processes`` fresh processes, combined."""
        from tuiperf.processes.repeat import combine

        results = []
        for index in range(request.settings.processes):
            scaled = _scaled_progress(on_event, index, request.settings.processes)
            results.append(self._once(request, scaled, cancel, fresh=True))
            if results[-1].partial:
                break
        return combine(results, request.settings.processes)

    def _once(
        self,
        request: ResolvedRequest,
        on_event: Callable[[Event], None] | None,
        cancel: threading.Event | None,
        *,
        fresh: bool = False,
    ) -> RunResult:
        """One measuring process, or a fresh one for the rest after each variant that crashes one or
        outlasts the time limit (:mod:`tuiperf.processes.isolation`)."""

        def attempt(asked: RunRequest, again: bool) -> Attempt:
            assert isinstance(asked, ResolvedRequest)  # isolating asks for copies of the request it was given
            return self._attempt(asked, on_event, cancel, fresh=fresh or again)

        result = isolating(attempt, request, on_event, lambda: cancel is not None and cancel.is_set())
        assert result is not None  # an attempt in this process always has a result
        if result.crash is not None and on_event is not None:
            on_event(RunFailed(result.error or result.crash.how, WorkerCrashed.title, result))
        return result

    def _entry_of(self, request: RunRequest) -> ScenarioEntry:
        """The catalog entry of the requested scenario (the catalog loaded once per folders)."""
        key = tuple(request.scenario_dirs)
        described = (
            self._catalogs.get(key) or self.cached_catalog(request.scenario_dirs) or self.catalog(request.scenario_dirs)
        )
        self._catalogs[key] = described
        entry = described.scenario(request.scenario)
        if entry is None or not Path(entry.path).is_file():
            described = self.catalog(request.scenario_dirs)  # a new or renamed file: look again
            entry = described.scenario(request.scenario)
        if entry is None:
            broken = described.load_error(request.scenario)
            if broken is not None:
                raise ScenarioError(broken.error, where=broken.where)
            known = ", ".join(sorted(s.id for s in described.scenarios)) or "none"
            raise UnknownScenario(f"no scenario {request.scenario!r} (known: {known})")
        return entry

    def _attempt(
        self,
        request: ResolvedRequest,
        on_event: Callable[[Event], None] | None,
        cancel: threading.Event | None,
        *,
        fresh: bool,
    ) -> Attempt:
        assert request.scenario_path is not None  # ResolvedRequest's promise, for the type checker
        key = (request.scenario_path, file_sha256(Path(request.scenario_path)))
        seen = StreamTracker(request, on_event)
        with self._lock:
            child, why_new = self._measuring_for(key, request.settings.dispatch, fresh, request.settings.devices)
            try:
                result = child.request(Measure(request), seen.track, cancel, request.settings.timeout_s).result
                child.runs += 1
                if why_new is not None:
                    result.warnings.append(why_new)
                return Attempt(result, None, seen.names)
            except ProcessStopped as exc:
                stop = exc  # kept beyond the except block
                crash = seen.crash(stop.how, child, stop.stderr_tail)
                point = seen.point(child)
                self._measuring = None
                child.close()
        if stop.cancelled:
            return Attempt(seen.after_cancel(stop.how), None, seen.names)
        # A crash, or a call or compile past --timeout: blamed on the variant and point it stopped at.
        blame = crash if stop.crashed or stop.timed_out is not None else None
        return Attempt(seen.after_crash(crash), blame, seen.names, point, stop.timed_out)


Strategy = Callable[[ProcessRunner, ResolvedRequest, Callable[[Event], None] | None, threading.Event | None], RunResult]
STRATEGIES: dict[str, Strategy] = {
    "environments": ProcessRunner._in_environments,
    "cluster": ProcessRunner._in_cluster,
    "repeat": ProcessRunner._repeated,
    "once": ProcessRunner._once,
}


def strategy_of(request: RunRequest) -> str:
    """Which processes measure ``request``: one per Python environment (``--env``), the processes of one
    JAX cluster (``--cluster N``), N fresh processes in turn (``--processes N``), or one."""
    if request.environments and request.environments != [CURRENT]:
        return "environments"
    if request.settings.cluster > 1:
        return "cluster"
    return "repeat" if request.settings.processes > 1 else "once"


def _scaled_progress(on_event: Callable[[Event], None] | None, index: int, total: int) -> Callable[[Event], None]:
    """Progress of process ``index`` of ``total`` as a share of the whole."""

    def scaled(event: Event) -> None:
        if on_event is None:
            return
        if isinstance(event, Progress):
            event.fraction = (index + event.fraction) / total
            event.eta_s = None if event.eta_s is None else event.eta_s + (total - index - 1) * event.elapsed_s
        on_event(event)

    return scaled
