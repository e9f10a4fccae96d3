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
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tuiperf.core.errors import TuiperfError, WorkerCrashed
from tuiperf.core.events import Event, PhaseChanged, RunFailed, SamplesAdded, VariantFinished
from tuiperf.core.runner import DISPATCH_MODES, RunRequest

POLL_S = 0.05
LOG_PATH = os.path.join(tempfile.gettempdir(), f"tuiperf-worker-{os.getuid()}.log")


def _serve(conn: Any, cancel: Any, dispatch: str, log_path: str) -> None:
    """The child's main loop. JAX's warnings go to a log file, never to the caller's terminal."""
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
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
        except Exception as exc:
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


class _CancelView:
    """What the measuring code expects of a cancel flag (``is_set``), over a shared-memory byte."""

    def __init__(self, flag: Any) -> None:
        self._flag = flag

    def is_set(self) -> bool:
        return bool(self._flag.value)


class WorkerRunner:
    """Runner over a child process; see the module docstring. Thread-safe: one request at a time."""

    def __init__(self, dispatch: str = "async", scenario_dirs: list[str] | tuple[str, ...] = ()) -> None:
        if dispatch not in DISPATCH_MODES:
            raise TuiperfError(f"dispatch must be one of {', '.join(DISPATCH_MODES)}, got {dispatch!r}")
        self.dispatch = dispatch
        self.scenario_dirs = list(scenario_dirs)
        self._context = mp.get_context("spawn")  # never fork a process that may hold JAX threads
        self._process: Any = None
        self._conn: Any = None
        self._cancel = self._context.RawValue("b", 0)
        self._lock = threading.Lock()

    # -- process management -----------------------------------------------------------------------
    def start(self) -> None:
        if self._process is not None and self._process.is_alive():
            return
        parent, child = self._context.Pipe()
        self._process = self._context.Process(
            target=_serve, args=(child, self._cancel, self.dispatch, LOG_PATH), name="tuiperf-worker", daemon=True
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
            how = f"killed by {signal.Signals(-code).name}"
        else:
            how = f"exited with status {code}"
        return f"the measuring process {how}; it will be restarted (its log: {LOG_PATH})"

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
    ) -> dict[str, Any]:
        """Measure in the child; a crash returns what was measured so far, marked failed."""
        if request.dispatch != self.dispatch:  # the mode is fixed per process: start one in the new mode
            self.close()
            self.dispatch = request.dispatch
        if not request.scenario_dirs:
            request.scenario_dirs = self.scenario_dirs
        finished: list[dict[str, Any]] = []
        samples: dict[str, list[float]] = {}
        running: list[str | None] = [None]

        def track(event: Event) -> None:
            if isinstance(event, VariantFinished):
                finished.append(event.variant)
            elif isinstance(event, SamplesAdded):
                samples.setdefault(event.variant, []).extend(event.samples_ns)
            elif isinstance(event, PhaseChanged):
                running[0] = event.variant
            if on_event is not None:
                on_event(event)

        try:
            return self._request("run", request.to_dict(), track, cancel)
        except WorkerCrashed as crash:
            partial = crashed_result(request, finished, samples, running[0], crash.message)
            if on_event is not None:
                on_event(RunFailed(crash.message, crash.title, partial))
            return partial


def crashed_result(
    request: RunRequest, finished: list[dict[str, Any]], samples: dict[str, list[float]], running: str | None, why: str
) -> dict[str, Any]:
    """A partial result after the worker died: finished variants, streamed samples, and the culprit.

    During steady-state sampling ``running`` is None (all variants take turns), so no single variant
    is blamed; the samples streamed so far are kept for every variant.
    """
    from tuiperf.core import results

    variants = list(finished)
    done = {v["name"] for v in variants}
    for name, values in samples.items():
        if name not in done:
            variants.append(
                results.variant_entry(
                    name, samples_ns=values, notes=["partial: the measuring process crashed while sampling"]
                )
            )
            done.add(name)
    if running is not None and running not in done:
        variants.append(results.variant_entry(running, ok=False, error=f"crashed the measuring process: {why}"))
    return {
        "schema_version": results.SCHEMA_VERSION,
        "scenario": {"id": request.scenario, "title": "", "path": ""},
        "params": request.params,
        "device": {"id": request.device or "", "platform": "", "kind": ""},
        "options": {
            "dispatch": request.dispatch,
            "samples": request.samples,
            "budget_s": request.budget_s,
            "seed": request.seed,
            "variants": request.variants,
        },
        "env": {},
        "calibration": {},
        "partial": True,
        "error": why,
        "variants": variants,
        "comparisons": results.comparisons(variants),
        "equivalence": {"checked": [], "mismatches": []},
        "warnings": [f"partial result: {why}"],
    }
