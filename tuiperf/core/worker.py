"""Measuring processes, seen from the caller: start them, ask them, stop them, survive them.

Why processes: timed code must not share the GIL with a UI; JAX's CPU dispatch mode is fixed per
process; an XLA abort, a segfault or an out-of-memory kill inside a scenario must not take the caller
down; and a scenario file's side effects (threads, signal handlers, monkeypatching) must not reach
another scenario's numbers. So (see :class:`WorkerRunner`):

- scenario files are described by a *loader* process (:mod:`tuiperf.core.loader`), never by the
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

import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from tuiperf.core import document
from tuiperf.core.document import RunHeader
from tuiperf.core.errors import ScenarioError, TuiperfError, UnknownScenario, WorkerCrashed
from tuiperf.core.events import Event, PhaseChanged, Progress, RunFailed, RunStarted, SamplesAdded, VariantFinished
from tuiperf.core.files import user_log_dir
from tuiperf.core.measuring import SHARED_SIZE, Shared
from tuiperf.core.model import Crash, DeviceInfo, RunOptions, RunResult, ScenarioRef, VariantResult
from tuiperf.core.runner import DEFAULT_DISPATCH, DISPATCH_MODES, RunRequest

POLL_S = 0.05
CANCEL_GRACE_S = 1.0  # a cancel not answered within this is answered by killing the process
READY_TIMEOUT_S = 120.0  # importing JAX and the frameworks on a cold machine
LOG_CAP_BYTES = 5 << 20  # per log file; beyond it the output is dropped (and still drained)
LOG_FILES_KEPT = 20
TAIL_LINES = 20
# A reused measuring process keeps runs comparable (a fresh one can land ~30 % away from another on a
# busy VM), but it grows a little each run in the libraries' keeping, which clear_caches() does not
# return: JAX registers every module class a run's setup defines as a pytree node for good, and
# anonymous native memory grows that malloc_trim does not return either (0.1-0.4 MB a run for
# mlp-closure-vs-argument; see the README's "Measuring tuiperf itself"). Past this growth the process
# is replaced, so a long session is bounded.
RETIRE_AFTER_GROWTH_MB = 128.0
MEMORY_ANSWER_S = 30.0  # the size is answered after the last run's clean-up
_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent.parent)


class ChildStopped(TuiperfError):
    """The process ended or was stopped before it answered; ``how`` says which."""

    title = "Measuring process stopped"

    def __init__(self, how: str, *, stderr_tail: str = "", cancelled: bool = False) -> None:
        super().__init__(how)
        self.how, self.stderr_tail, self.cancelled = how, stderr_tail, cancelled


class LogPump:
    """Drains a child's output into a capped log file, keeping its last lines for crash reports."""

    def __init__(self, stream: Any, path: Path) -> None:
        self.path = path
        self.tail: deque[str] = deque(maxlen=TAIL_LINES)
        self._stream = stream
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        self._fd = os.open(path, flags, 0o600)
        self._written = 0
        self._thread = threading.Thread(target=self._pump, name="tuiperf-log", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        try:
            for raw in iter(self._stream.readline, b""):
                self.tail.append(raw[-500:].decode("utf-8", "replace").rstrip("\n"))
                if self._written < LOG_CAP_BYTES:
                    chunk = raw[: LOG_CAP_BYTES - self._written]
                    os.write(self._fd, chunk)
                    self._written += len(chunk)
                    if self._written >= LOG_CAP_BYTES:
                        os.write(self._fd, b"\n[truncated: the log reached its size limit]\n")
        except (OSError, ValueError):
            pass
        finally:
            os.close(self._fd)

    def text(self, wait_s: float = 0.5) -> str:
        self._thread.join(wait_s)
        return "\n".join(self.tail)


def _mtime(path: Path) -> float:
    """A log's modification time; 0 when another tuiperf process removed it since the listing."""
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _new_log_path() -> Path:
    """One log file per process start; old ones beyond the newest LOG_FILES_KEPT are removed."""
    folder = user_log_dir()
    logs = sorted((_mtime(p), p) for p in folder.glob("worker-*.log"))
    for _, old in logs[: max(0, len(logs) - LOG_FILES_KEPT + 1)]:
        try:
            old.unlink()
        except OSError:
            pass
    return folder / f"worker-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{time.monotonic_ns() % 10**9}.log"


def exit_description(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


class Child:
    """One measuring or loading process (``python -m tuiperf.core.measuring``)."""

    def __init__(self) -> None:
        parent_end, child_end = socket.socketpair()
        self._shared_file = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the process
        self._shared_file.truncate(SHARED_SIZE)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([_PACKAGE_ROOT, os.environ.get("PYTHONPATH", "")])}
        self.log_path = _new_log_path()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tuiperf.core.measuring",
                "--conn",
                str(child_end.fileno()),
                "--shared",
                str(self._shared_file.fileno()),
                "--parent",
                str(os.getpid()),
            ],
            pass_fds=(child_end.fileno(), self._shared_file.fileno()),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # its own process group: whatever a scenario forks goes with it
        )
        child_end.close()
        self.conn = Connection(parent_end.detach())
        self.shared = Shared(self._shared_file.fileno())
        self.log = LogPump(self.process.stdout, self.log_path)
        self.ready = False
        self.dispatch: str | None = None  # fixed by its first run
        self.scenario_key: tuple[str, str] | None = None  # (path, sha256) of the one file it imported
        self.runs = 0  # runs answered
        self.idle_mb: float | None = None  # its size when first reused: after one run and its clean-up

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def request(
        self,
        verb: str,
        payload: Any,
        on_event: Callable[[Event], None] | None = None,
        cancel: Any = None,
        timeout_s: float | None = None,
    ) -> Any:
        """Send one request and wait for its answer; raise :class:`ChildStopped` if there is none."""
        self.shared.set_cancel(False)  # cleared before the request: a cancel that follows is never lost
        self.shared.set_turn(-1)
        self._send((verb, payload))
        last = time.monotonic()
        cancelled_at: float | None = None
        while True:
            now = time.monotonic()
            if cancel is not None and cancel.is_set() and cancelled_at is None:
                self.shared.set_cancel(True)
                cancelled_at = now
            if cancelled_at is not None and now - cancelled_at > CANCEL_GRACE_S:
                self.kill()
                raise ChildStopped(
                    f"did not stop within {CANCEL_GRACE_S:g} s of the cancel and was stopped", cancelled=True
                )
            limit = timeout_s if self.ready else READY_TIMEOUT_S
            if limit is not None and now - last > limit:
                self.kill()
                raise ChildStopped(f"did not return within {limit:g} s")
            try:
                message = self.conn.recv() if self.conn.poll(POLL_S) else None
            except (EOFError, OSError):
                message = None
                self.process.wait(5)
            if message is None:
                if not self.alive:
                    raise ChildStopped(exit_description(self.process.wait()), stderr_tail=self.log.text())
                continue
            last = time.monotonic()
            kind, value = message
            if kind == "ready":
                self.ready = True
            elif kind == "event":
                if on_event is not None:
                    on_event(value)
            elif kind == "ok":
                return value
            else:
                title, text, where = value
                error = TuiperfError(text, where=where)
                error.title = title
                raise error

    def _send(self, message: tuple[str, Any]) -> None:
        try:
            self.conn.send(message)
        except (OSError, BrokenPipeError):
            self.process.wait(5)
            raise ChildStopped(exit_description(self.process.poll()), stderr_tail=self.log.text()) from None

    def turn(self) -> int:
        return self.shared.turn()

    def kill(self) -> None:
        """Kill the process and everything in its group (a scenario that forks leaves no orphan)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # the group is gone already
        if self.alive:
            self.process.kill()
        self.process.wait(5)

    def close(self) -> None:
        """Stop politely, then firmly; never hangs."""
        if self.alive:
            try:
                self.conn.send(("stop", None))
                self.process.wait(1.0)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
        self.conn.close()


class WorkerRunner:
    """The :class:`~tuiperf.core.runner.Runner` over measuring processes (see the module docstring).

    ``spare=True`` keeps a pre-warmed process ready (the app); the CLI measures once and needs none.
    Thread-safe: one request at a time.
    """

    def __init__(
        self,
        dispatch: str = DEFAULT_DISPATCH,
        scenario_dirs: list[str] | tuple[str, ...] = (),
        *,
        spare: bool = False,
        load_timeout_s: float | None = None,
        retire_growth_mb: float = RETIRE_AFTER_GROWTH_MB,
    ) -> None:
        if dispatch not in DISPATCH_MODES:
            raise TuiperfError(f"dispatch must be one of {', '.join(DISPATCH_MODES)}, got {dispatch!r}")
        self.dispatch = dispatch
        self.scenario_dirs = list(scenario_dirs)
        self.keep_spare = spare
        self.load_timeout_s = load_timeout_s
        self.retire_growth_mb = retire_growth_mb
        self._measuring: Child | None = None
        self._spare: Child | None = None
        self._loader: Child | None = None
        self._lock = threading.Lock()
        self._catalogs: dict[tuple[str, ...], dict[str, Any]] = {}

    # -- processes -----------------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Start the spare now (the app calls this once the scenario files are loaded); nothing when a
        run or a catalog holds the runner: a run starts its own spare."""
        if not self._lock.acquire(blocking=False):
            return
        try:
            if self._spare is None or not self._spare.alive:
                self._spare = Child()
        finally:
            self._lock.release()

    def _fresh(self) -> Child:
        child = self._spare if self._spare is not None and self._spare.alive else Child()
        self._spare = Child() if self.keep_spare else None
        return child

    def _measuring_for(self, key: tuple[str, str], dispatch: str, fresh: bool) -> tuple[Child, str | None]:
        """The process to measure in, and why it is a new one when the user should know."""
        current, why_new = self._measuring, None
        if (
            not fresh
            and current is not None
            and current.alive
            and current.scenario_key == key
            and current.dispatch == dispatch
        ):
            why_new = self._outgrown(current)
            if why_new is None:
                return current, None
        if current is not None:
            current.close()
        self._measuring = child = self._fresh()
        child.scenario_key, child.dispatch = key, dispatch
        return child, why_new

    def _outgrown(self, child: Child) -> str | None:
        """Why ``child`` is retired before another run (grown too much since its first run), or None."""
        try:
            size: float | None = child.request("memory", None, timeout_s=MEMORY_ANSWER_S)
        except ChildStopped as exc:
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

    def _loader_child(self) -> Child:
        if self._loader is None or not self._loader.alive:
            self._loader = Child()
        return self._loader

    def close(self) -> None:
        for child in (self._measuring, self._spare, self._loader):
            if child is not None:
                child.close()
        self._measuring = self._spare = self._loader = None

    # -- the Runner interface -------------------------------------------------------------------------
    def catalog(self, scenario_dirs: list[str] | None = None) -> dict[str, Any]:
        from tuiperf.core import catalog_cache, loader

        dirs = list(scenario_dirs if scenario_dirs is not None else self.scenario_dirs)
        with self._lock:
            described = loader.load_isolated(
                dirs, self._loader_child, self._drop_loader, self.load_timeout_s or loader.IMPORT_TIMEOUT_S
            )
        self._catalogs[tuple(dirs)] = described
        catalog_cache.store(dirs, described)
        return described

    def cached_catalog(self, scenario_dirs: list[str] | None = None) -> dict[str, Any] | None:
        """The last catalog of these folders if no file changed since (no process started)."""
        from tuiperf.core import catalog_cache

        return catalog_cache.load(list(scenario_dirs if scenario_dirs is not None else self.scenario_dirs))

    def _drop_loader(self) -> None:
        if self._loader is not None:
            self._loader.kill()
        self._loader = None

    def devices(self) -> list[dict[str, Any]]:
        with self._lock:
            devices: list[dict[str, Any]] = self._loader_child().request("devices", None, timeout_s=60)
        return devices

    def run(
        self,
        request: RunRequest,
        on_event: Callable[[Event], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> RunResult:
        """Measure in a measuring process; a crash, a timeout or a forced cancel returns what was
        measured so far, marked partial. ``request.processes > 1`` repeats it in fresh processes."""
        if not request.scenario_dirs:
            request.scenario_dirs = list(self.scenario_dirs)
        request.scenario_path = request.scenario_path or self._path_of(request)  # preset: a last good copy
        if cancel is not None and cancel.is_set():  # stopped while the scenario files were being read
            header = _header_from_request(request)
            crash = Crash(how="was not started: the run was cancelled first")
            return document.after_crash(header, [], {}, list(request.variants or []), crash, duration_s=0.0)
        if request.processes <= 1:
            return self._run_once(request, on_event, cancel, fresh=False)
        from tuiperf.core.processes import combine

        results = []
        for index in range(request.processes):
            scaled = _scaled_progress(on_event, index, request.processes)
            results.append(self._run_once(request, scaled, cancel, fresh=True))
            if results[-1].partial:
                break
        return combine(results, request.processes)

    def _path_of(self, request: RunRequest) -> str:
        """The file that defines the requested scenario (from the catalog; loaded once per folders)."""
        key = tuple(request.scenario_dirs)
        described = (
            self._catalogs.get(key) or self.cached_catalog(request.scenario_dirs) or self.catalog(request.scenario_dirs)
        )
        self._catalogs[key] = described
        entry = next((s for s in described["scenarios"] if s["id"] == request.scenario), None)
        if entry is None or not Path(entry["path"]).is_file():
            described = self.catalog(request.scenario_dirs)  # a new or renamed file: look again
            entry = next((s for s in described["scenarios"] if s["id"] == request.scenario), None)
        if entry is None:
            broken = next((b for b in described["broken"] if b["id"] == request.scenario), None)
            if broken is not None:
                where = f"{broken['path']}:{broken['line']}" if broken["line"] else broken["path"]
                raise ScenarioError(broken["error"], where=where)
            known = ", ".join(sorted(s["id"] for s in described["scenarios"])) or "none"
            raise UnknownScenario(f"no scenario {request.scenario!r} (known: {known})")
        return str(entry["path"])

    def _run_once(
        self,
        request: RunRequest,
        on_event: Callable[[Event], None] | None,
        cancel: threading.Event | None,
        *,
        fresh: bool,
    ) -> RunResult:
        from tuiperf.core.catalog import file_sha256

        assert request.scenario_path is not None
        key = (request.scenario_path, file_sha256(Path(request.scenario_path)))
        finished: list[VariantResult] = []
        samples: dict[str, list[float]] = {}
        seen: dict[str, Any] = {"header": None, "names": list(request.variants or []), "variant": None, "phase": None}
        started = time.monotonic()

        def track(event: Event) -> None:
            if isinstance(event, VariantFinished):
                finished.append(event.variant)
            elif isinstance(event, SamplesAdded):
                samples.setdefault(event.variant, []).extend(event.samples_ns)
            elif isinstance(event, PhaseChanged):
                seen["variant"], seen["phase"] = event.variant, event.phase
            elif isinstance(event, RunStarted):
                seen["header"], seen["names"] = event.header, list(event.variants)
                finished.clear()
                samples.clear()
            if on_event is not None:
                on_event(event)

        with self._lock:
            child, why_new = self._measuring_for(key, request.dispatch, fresh)
            try:
                result: RunResult = child.request("run", asdict(request), track, cancel, request.timeout_s)
                child.runs += 1
                if why_new is not None:
                    result.warnings.append(why_new)
                return result
            except ChildStopped as exc:
                stop = exc  # kept beyond the except block
                turn = child.turn()
                variant = seen["names"][turn] if 0 <= turn < len(seen["names"]) else seen["variant"]
                self._measuring = None
                child.close()
        header = seen["header"] or _header_from_request(request)
        crash = Crash(
            how=stop.how,
            variant=variant,
            phase=seen["phase"],
            stderr_tail=stop.stderr_tail,
            log_path=str(child.log_path),
        )
        partial = document.after_crash(
            header, finished, samples, seen["names"], crash, duration_s=time.monotonic() - started
        )
        if stop.cancelled:
            partial.error = None
            partial.warnings[0] = f"partial result: the run was cancelled; the measuring process {stop.how}"
        elif on_event is not None:
            on_event(RunFailed(partial.error or stop.how, WorkerCrashed.title, partial))
        return partial


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


def _header_from_request(request: RunRequest) -> RunHeader:
    """The little that is known of a run whose measuring process died before it started."""
    return RunHeader(
        scenario=ScenarioRef(id=request.scenario, path=request.scenario_path or ""),
        params=dict(request.params),
        device=DeviceInfo(id=request.device or ""),
        options=RunOptions(
            dispatch=request.dispatch,
            samples=request.samples,
            budget_s=request.budget_s,
            seed=request.seed,
            variants=request.variants,
            interleave=request.interleave,
            processes=request.processes,
            timeout_s=request.timeout_s,
            profile=request.profile,
        ),
    )
