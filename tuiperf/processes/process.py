"""One measuring or loading process, seen from the parent: start it, ask it, stop it, survive it.

The process runs ``python -m tuiperf.measuring.serve`` (:mod:`tuiperf.measuring.serve`); its stdout and
stderr go to a capped, rotated log file in the per-user log folder, and its last lines are kept for
crash reports.
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
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from tuiperf.common import lifeline
from tuiperf.common.errors import TuiperfError
from tuiperf.common.files import user_log_dir
from tuiperf.contract import wire
from tuiperf.contract.events import Event
from tuiperf.contract.protocol import (
    SHARED_SIZE,
    Answer,
    Asks,
    Proceed,
    R,
    Ready,
    Refused,
    Reply,
    Request,
    Shared,
    Started,
    Stop,
    Streamed,
    Waiting,
    answer_type,
)
from tuiperf.processes.environment import Role, process_environment

POLL_S = 0.05
CANCEL_GRACE_S = 1.0  # a cancel not answered within this is answered by killing the process
READY_TIMEOUT_S = 120.0  # importing JAX and the frameworks on a cold machine
# An interpreter says it started (before importing JAX) within the run's time limit, but never less
# than this: Python, numpy and tuiperf's protocol took 1.5-4 s on a busy machine (2 cores, load 17).
START_FLOOR_S = 15.0
LOG_CAP_BYTES = 5 << 20  # per log file; beyond it the output is dropped (and still drained)
LOG_FILES_KEPT = 20
TAIL_LINES = 20


@dataclass(frozen=True)
class Ended:
    """It exited by itself (``code``) or was killed by a signal (a negative ``code``), as Popen says."""

    code: int | None


@dataclass(frozen=True)
class TimedOut:
    """It was silent for longer than the request's time limit, and was killed."""

    seconds: float


@dataclass(frozen=True)
class NeverStarted:
    """Its Python did not start running tuiperf within the time limit, and was killed."""

    seconds: float


@dataclass(frozen=True)
class IgnoredCancel:
    """It did not answer a cancel within the grace period, and was killed."""

    grace_s: float


StopReason = Ended | TimedOut | NeverStarted | IgnoredCancel


def describe_stop(reason: StopReason) -> str:
    """The reason as the end of a sentence about the process ("... was killed by SIGSEGV")."""
    match reason:
        case Ended(code):
            return exit_description(code)
        case TimedOut(seconds):
            return f"did not return within {seconds:g} s"
        case NeverStarted(seconds):
            return f"did not start within {seconds:g} s"
        case IgnoredCancel(grace_s):
            return f"did not stop within {grace_s:g} s of the cancel and was stopped"


class ProcessStopped(TuiperfError):
    """The process ended or was stopped before it answered; ``reason`` says why, ``how`` in words."""

    title = "Measuring process stopped"

    def __init__(self, reason: StopReason, *, stderr_tail: str = "") -> None:
        super().__init__(describe_stop(reason))
        self.reason, self.stderr_tail = reason, stderr_tail

    @property
    def how(self) -> str:
        return self.message

    @property
    def cancelled(self) -> bool:
        return isinstance(self.reason, IgnoredCancel)

    @property
    def timed_out(self) -> float | None:
        """The time limit it outlasted once it was ready (a call or a compile that did not return), else None."""
        return self.reason.seconds if isinstance(self.reason, TimedOut) and self.reason.seconds > 0 else None

    @property
    def crashed(self) -> bool:
        """It ended by itself or by a signal (not stopped by us: a timeout, a cancel)."""
        return isinstance(self.reason, Ended)


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


class MeasuringProcess:
    """One measuring or loading process (``python -m tuiperf.measuring.serve``)."""

    def __init__(
        self, role: Role = "measuring", cpu_devices: int = 1, python: str | None = None, import_path: str | None = None
    ) -> None:
        """``python``: another environment's interpreter (``import_path`` makes this tuiperf importable there)."""
        parent_end, child_end = socket.socketpair()
        self._shared_file = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the process
        self._shared_file.truncate(SHARED_SIZE)
        env = process_environment(role, cpu_devices=cpu_devices, import_path=import_path)
        self.cpu_devices = cpu_devices  # host devices it was started with: fixed for its life
        self.log_path = _new_log_path()
        self.process = subprocess.Popen(
            [
                python or sys.executable,
                "-m",
                "tuiperf.measuring.serve",
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
        self.started = False  # its Python runs tuiperf (Started)
        self.ready = False  # ... and has imported JAX (Ready)
        self.dispatch: str | None = None  # fixed by its first run
        self.scenario_key: tuple[str, str] | None = None  # (path, sha256) of the one file it imported
        self.runs = 0  # runs answered
        self.idle_mb: float | None = None  # its size when first reused: after one run and its clean-up

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def silence_limit(self, timeout_s: float | None) -> tuple[float | None, StopReason]:
        """How long the process may stay silent now, and the reason given when it does longer: until its
        Python starts, the run's time limit (at least START_FLOOR_S); then until JAX is imported,
        READY_TIMEOUT_S; then the run's time limit."""
        if not self.started:
            limit = READY_TIMEOUT_S if timeout_s is None else min(READY_TIMEOUT_S, max(timeout_s, START_FLOOR_S))
            return limit, NeverStarted(limit)
        if not self.ready:
            return READY_TIMEOUT_S, TimedOut(READY_TIMEOUT_S)
        return timeout_s, TimedOut(timeout_s if timeout_s is not None else 0.0)

    def request(
        self,
        request: Asks[R],
        on_event: Callable[[Event], None] | None = None,
        cancel: threading.Event | Shared | None = None,
        timeout_s: float | None = None,
        on_wait: Callable[[Waiting], bool] | None = None,
    ) -> R:
        """Send one request and wait for its answer; raise :class:`ProcessStopped` if there is none.
        ``on_wait``: a lockstep child waits for its turn; this returns when the child may go on (True)
        or must stop sampling, and the child is told so. Time spent waiting is not the child's silence."""
        self.shared.set_cancel(False)  # cleared before the request: a cancel that follows is never lost
        self.shared.set_turn(-1)
        self.shared.set_point(-1)
        self._send(request)
        last = time.monotonic()
        cancelled_at: float | None = None
        while True:
            now = time.monotonic()
            if cancel is not None and cancel.is_set() and cancelled_at is None:
                self.shared.set_cancel(True)
                cancelled_at = now
            if cancelled_at is not None and now - cancelled_at > CANCEL_GRACE_S:
                self.kill()
                raise ProcessStopped(IgnoredCancel(CANCEL_GRACE_S))
            limit, reason = self.silence_limit(timeout_s)
            if limit is not None and now - last > limit:
                self.kill()
                tail = self.log.text() if isinstance(reason, NeverStarted) else ""  # what its Python said
                raise ProcessStopped(reason, stderr_tail=tail)
            try:
                message = wire.answer_of(self.conn.recv_bytes()) if self.conn.poll(POLL_S) else None
            except (EOFError, OSError):
                message = None
                self.process.wait(5)
            except wire.Unreadable:
                self.kill()  # it says something this tuiperf does not understand: it cannot go on
                raise
            if message is None:
                if not self.alive:
                    raise ProcessStopped(Ended(self.process.wait()), stderr_tail=self.log.text())
                continue
            last = time.monotonic()
            answer: Answer = message
            match answer:
                case Started():
                    self.started = True
                case Ready():
                    self.started = self.ready = True
                case Streamed(event):
                    if on_event is not None:
                        on_event(event)
                case Waiting():
                    go = on_wait(answer) if on_wait is not None else True
                    if cancel is not None and cancel.is_set():
                        self.shared.set_cancel(True)
                        cancelled_at = cancelled_at or time.monotonic()
                    self._send(Proceed(go))
                    last = time.monotonic()
                case Refused():
                    raise answer.exception()
                case Reply():
                    expected = answer_type(request)
                    if not isinstance(answer, expected):
                        raise TuiperfError(f"{type(request).__name__} was answered by a {type(answer).__name__}")
                    return answer

    def _send(self, message: Request | Asks[R]) -> None:
        try:
            self.conn.send_bytes(wire.encode(message))
        except (OSError, BrokenPipeError):
            self.process.wait(5)
            raise ProcessStopped(Ended(self.process.poll()), stderr_tail=self.log.text()) from None

    def turn(self) -> int:
        return self.shared.turn()

    def point(self) -> int:
        """The sweep point (index) the child said it was at, -1 when it said none."""
        return self.shared.point()

    def kill(self) -> None:
        """Kill the process, its descendants and everything in its group (a scenario that forks leaves
        no orphan: a daemon that left the group is still the process's descendant, as it reaps orphans;
        :mod:`tuiperf.common.lifeline`)."""
        if self.alive:
            lifeline.kill_tree(self.process.pid)
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
                self.conn.send_bytes(wire.encode(Stop()))
                self.process.wait(1.0)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
        self.conn.close()
