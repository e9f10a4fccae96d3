"""The measuring process: a persistent child that owns JAX, driven from a thread of the caller.

Why a process: timed code must not share the GIL with a UI, JAX's CPU dispatch mode can only be
chosen before the first computation, and an XLA abort, segfault or out-of-memory kill inside a
scenario must not take the caller down. When the child dies the run is reported as failed with what
was measured so far, and the next request starts a fresh child.

Protocol (``multiprocessing`` pipe, pickled tuples): the parent sends ``(verb, payload)``; the child
answers ``("event", Event)`` any number of times, then ``("ok", value)`` or ``("error", (title,
message, where))``. Cancellation goes through a byte of shared memory: the sampler checks it after
every sample, and reading a ``multiprocessing.Event`` there costs a semaphore syscall each time,
which measurably slowed the next sample (fidelity benchmark, dispatch-floor).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tuiperf.core import document
from tuiperf.core.document import RunHeader
from tuiperf.core.errors import TuiperfError, WorkerCrashed
from tuiperf.core.events import Event, PhaseChanged, RunFailed, RunStarted, SamplesAdded, VariantFinished
from tuiperf.core.files import user_log_dir
from tuiperf.core.model import Crash, DeviceInfo, RunOptions, RunResult, ScenarioRef, VariantResult
from tuiperf.core.runner import DEFAULT_DISPATCH, DISPATCH_MODES, RunRequest

POLL_S = 0.05


def _serve(conn: Any, cancel: Any, dispatch: str, log_path: str) -> None:
    """The child's main loop. JAX's warnings go to a log file, never to the caller's terminal."""
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    from tuiperf.core.inprocess import InProcessRunner, set_dispatch

    set_dispatch(dispatch)  # before any computation: it is fixed for the life of this process
    runner = InProcessRunner()
    while True:
        try:
            verb, payload = conn.recv()
        except (EOFError, OSError):
            return
        if verb == "stop":
            return
        try:
            if verb == "catalog":
                value = runner.catalog(payload)
            elif verb == "devices":
                value = runner.devices()
            elif verb == "run":
                value = runner.run(
                    RunRequest(**payload), lambda event: conn.send(("event", event)), _CancelView(cancel)
                )
            else:
                raise TuiperfError(f"unknown request {verb!r}")
            conn.send(("ok", value))
        except TuiperfError as exc:
            conn.send(("error", (exc.title, exc.message, exc.where)))
        except Exception as exc:  # noqa: BLE001 - anything else is a bug, reported with its type
            conn.send(("error", ("Internal error", f"{type(exc).__name__}: {exc}", None)))


@contextmanager
def _real_stdio() -> Iterator[None]:
    """Starting a process hands ``sys.stderr.fileno()`` to multiprocessing's resource tracker. Under
    Textual, ``sys.stdout``/``sys.stderr`` are capture objects without a usable file descriptor, and
    the start fails with "bad value(s) in fds_to_keep": use the real streams for the start only."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = sys.__stdout__ or saved[0], sys.__stderr__ or saved[1]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def _new_log_path() -> str:
    """One log file per measuring process, in the per-user log folder."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return str(user_log_dir() / f"worker-{stamp}-{os.getpid()}-{time.monotonic_ns() % 1_000_000}.log")


class _CancelView:
    """What the measuring code expects of a cancel flag (``is_set``), over a shared-memory byte."""

    def __init__(self, flag: Any) -> None:
        self._flag = flag

    def is_set(self) -> bool:
        return bool(self._flag.value)


class WorkerRunner:
    """Runner over a child process; see the module docstring. Thread-safe: one request at a time."""

    def __init__(self, dispatch: str = DEFAULT_DISPATCH, scenario_dirs: list[str] | tuple[str, ...] = ()) -> None:
        if dispatch not in DISPATCH_MODES:
            raise TuiperfError(f"dispatch must be one of {', '.join(DISPATCH_MODES)}, got {dispatch!r}")
        self.dispatch = dispatch
        self.scenario_dirs = list(scenario_dirs)
        self._context = mp.get_context("spawn")  # never fork a process that may hold JAX threads
        self._process: Any = None
        self._conn: Any = None
        self._cancel = self._context.RawValue("b", 0)
        self._lock = threading.Lock()
        self._log_path: str | None = None

    # -- process management -----------------------------------------------------------------------
    def start(self) -> None:
        if self._process is not None and self._process.is_alive():
            return
        parent, child = self._context.Pipe()
        self._log_path = _new_log_path()
        self._process = self._context.Process(
            target=_serve, args=(child, self._cancel, self.dispatch, self._log_path), name="tuiperf-worker", daemon=True
        )
        with _real_stdio():
            self._process.start()
        child.close()
        self._conn = parent

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        try:
            self._conn.send(("stop", None))
        except (OSError, BrokenPipeError):
            pass
        process.join(timeout=2)
        if process.is_alive():
            process.kill()
            process.join(timeout=2)

    def _crash_message(self) -> str:
        if self._process is not None:
            self._process.join(timeout=5)  # the pipe closes before the exit status is known
        code = self._process.exitcode if self._process is not None else None
        if code is not None and code < 0:
            how = f"was killed by {signal.Signals(-code).name}"
        else:
            how = f"exited with status {code}"
        return how

    def _request(
        self,
        verb: str,
        payload: Any,
        on_event: Callable[[Event], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> Any:
        with self._lock:
            self.start()
            self._cancel.value = 0  # cleared here, before the request: a cancel that follows is never lost
            self._conn.send((verb, payload))
            cancel_sent = False
            while True:
                if cancel is not None and cancel.is_set() and not cancel_sent:
                    self._cancel.value = 1
                    cancel_sent = True
                try:
                    ready = self._conn.poll(POLL_S)
                    message = self._conn.recv() if ready else None
                except (EOFError, OSError):
                    ready, message = True, None
                if message is None:
                    if ready or not self._process.is_alive():
                        error = WorkerCrashed(self._crash_message())
                        self.close()
                        raise error
                    continue
                kind, value = message
                if kind == "event":
                    if on_event is not None:
                        on_event(value)
                elif kind == "ok":
                    return value
                else:
                    title, text, where = value
                    error = TuiperfError(text, where=where)
                    error.title = title
                    raise error

    # -- the Runner interface ---------------------------------------------------------------------
    def catalog(self, scenario_dirs: list[str] | None = None) -> dict[str, Any]:
        return self._request("catalog", scenario_dirs if scenario_dirs is not None else self.scenario_dirs)

    def devices(self) -> list[dict[str, Any]]:
        return self._request("devices", None)

    def run(
        self,
        request: RunRequest,
        on_event: Callable[[Event], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> RunResult:
        """Measure in the child; a crash returns what was measured so far, marked partial."""
        if request.dispatch != self.dispatch:  # the mode is fixed per process: start one in the new mode
            self.close()
            self.dispatch = request.dispatch
        if not request.scenario_dirs:
            request.scenario_dirs = self.scenario_dirs
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

        try:
            result: RunResult = self._request("run", request.to_dict(), track, cancel)
            return result
        except WorkerCrashed as crash:
            header = seen["header"] or _header_from_request(request, self.dispatch)
            partial = document.after_crash(
                header,
                finished,
                samples,
                seen["names"],
                Crash(how=crash.message, variant=seen["variant"], phase=seen["phase"], log_path=self._log_path),
                duration_s=time.monotonic() - started,
            )
            if on_event is not None:
                on_event(RunFailed(partial.error or crash.message, crash.title, partial))
            return partial


def _header_from_request(request: RunRequest, dispatch: str) -> RunHeader:
    """The little that is known of a run whose measuring process died before it started."""
    return RunHeader(
        scenario=ScenarioRef(id=request.scenario),
        params=dict(request.params),
        device=DeviceInfo(id=request.device or ""),
        options=RunOptions(
            dispatch=dispatch,
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
