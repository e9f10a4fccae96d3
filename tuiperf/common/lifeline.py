"""A process's lifetime bounded by its parent's, and its descendants' by its own.

A scenario file runs arbitrary code at import in a loader or measuring process: it may fork, and its
forked copy may ``setsid`` (a daemon), so that killing the process's group no longer reaches it. And
the parent that started the process (the app, the CLI) may itself be killed, even by SIGKILL, which
leaves it no chance to clean up. This module is the child's side of both:

- **Descendants die with this process** (:func:`become_subreaper`, :func:`kill_descendants`). On
  Linux the process makes itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): a
  descendant orphaned by its own parent's exit (a double fork, a ``setsid`` daemon) is re-parented to
  this process instead of to init, so it stays in this process's tree, which is read from ``/proc``
  (each process's parent in ``/proc/<pid>/stat``). On a normal exit, on SIGTERM, when the request loop
  ends and when the parent dies, the whole tree is stopped (SIGSTOP, so nothing forks while it is
  collected) then killed (SIGKILL), and this process reaps what were its children. The parent's side
  kills the same tree from outside with :func:`kill_tree` before it kills the process itself
  (``MeasuringProcess.kill``): a process that is SIGKILLed cannot clean up, but while it lives every
  orphan of its tree is its descendant.
- **This process ends with another one** (:func:`end_with`): an explorer that ``tuiperf serve``
  started (through a shell) ends with the server, watched through a pidfd (readable once that process
  ends; immune to pid reuse once open), elsewhere by polling whether the pid exists.
- **This process dies with its parent** (:func:`exit_with_parent`): a daemon thread polls
  ``os.getppid()`` every half second; when it changes from the parent the process started with (the
  parent died, however: a SIGKILL included), it runs the caller's clean-up, kills its descendants and
  leaves with ``os._exit``.

Why these and not the alternatives: ``PR_SET_PDEATHSIG`` fires when the *thread* that started the
child ends, not the process, and the UI starts measuring processes from worker threads and reuses
them after those threads end; it also says nothing of grandchildren. A cgroup (systemd scope) holds
every descendant whatever it does, but needs a delegated cgroup tree that a user's shell, a container
or a CI runner does not always give, so it is not something tuiperf can count on. The subreaper needs
no privilege and holds the orphans a ``setsid`` makes; what it cannot hold is a descendant that leaves
the tree by other means (started by another process through a daemon manager such as ``systemd-run``,
or ptrace tricks).

Where this is not Linux there is no subreaper and no ``/proc``: the parent watch still makes this
process exit with its parent, but children that detached themselves (``setsid``, a double fork) may
remain after it; those that stay in its process group are still killed with the group by the parent.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable

PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>
POLL_S = 0.5  # how often the parent watch looks at os.getppid()
PARENT_GONE_STATUS = 70  # the exit status when the parent died (EX_SOFTWARE)
KILL_DEADLINE_S = 2.0  # the longest :func:`kill_descendants` keeps collecting and reaping

Cleanup = Callable[[], None]


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux); whether it now is."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _parents() -> dict[int, int]:
    """Every live process's parent, from /proc (empty where there is none); zombies are left out."""
    parents: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return parents
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()  # the name in (...) may hold anything
        except OSError:
            continue  # it ended while the list was read
        if len(fields) > 1 and fields[0] not in (b"Z", b"X"):
            parents[int(name)] = int(fields[1])
    return parents


def descendants(pid: int | None = None) -> list[int]:
    """The live descendants of ``pid`` (default: this process), parents before their children."""
    root = os.getpid() if pid is None else pid
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    found: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(0), []):
            if child != root and child not in found:
                found.append(child)
                todo.append(child)
    return found


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signum)


def _frozen_tree(root: int, deadline: float) -> list[int]:
    """Stop every descendant of ``root`` (SIGSTOP), looking again until no new one appears: a stopped
    process cannot fork, so what was collected is the whole tree."""
    frozen: list[int] = []
    while time.monotonic() < deadline:
        new = [pid for pid in descendants(root) if pid not in frozen]
        if not new:
            break
        for pid in new:
            _signal(pid, signal.SIGSTOP)
        frozen.extend(new)
    return frozen


def _reap(deadline: float) -> None:
    """Collect the exit status of this process's children that have ended (the zombies its
    subreaping gives it included), waiting until ``deadline`` for those still dying (all of them
    were just killed) to end too."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # no child left
        if pid == 0:
            if time.monotonic() >= deadline:
                return
            time.sleep(0.01)


def kill_descendants(deadline_s: float = KILL_DEADLINE_S) -> int:
    """Kill every descendant of this process (stopped first, then SIGKILL) and reap its children; how
    many there were. Never raises; gives up after ``deadline_s``."""
    deadline = time.monotonic() + deadline_s
    killed: list[int] = []
    try:
        while time.monotonic() < deadline:
            tree = _frozen_tree(os.getpid(), deadline)
            if not tree:
                break
            for pid in tree:
                _signal(pid, signal.SIGKILL)
            killed.extend(tree)
            _reap(deadline)
        _reap(0.0)  # and the zombies of earlier deaths
    except Exception:  # noqa: BLE001 - a clean-up on the way out must not stop the way out
        pass
    return len(killed)


def kill_tree(pid: int) -> None:
    """Kill ``pid`` and every descendant of it (from another process: the parent's side). The process
    is stopped first, so that it neither forks nor reaps while its tree is collected."""
    deadline = time.monotonic() + KILL_DEADLINE_S
    _signal(pid, signal.SIGSTOP)
    try:
        tree = _frozen_tree(pid, deadline)
    except Exception:  # noqa: BLE001 - the process itself is still killed
        tree = []
    for member in [pid, *tree]:
        _signal(member, signal.SIGKILL)


def _run(cleanup: Cleanup | None) -> None:
    if cleanup is not None:
        with contextlib.suppress(Exception):
            cleanup()


def exit_with_parent(
    on_exit: Cleanup | None = None, *, parent: int | None = None, poll_s: float = POLL_S
) -> threading.Thread:
    """Exit this process when its parent dies, however it dies (a SIGKILL included).

    A daemon thread compares ``os.getppid()`` with ``parent`` (default: the parent now) every
    ``poll_s``; when they differ it calls ``on_exit()`` (its exceptions ignored), kills this process's
    descendants and ends the process with ``os._exit(PARENT_GONE_STATUS)``. A ``parent`` that is
    already gone when this is called ends the process at the first poll. Returns the thread."""
    expected = os.getppid() if parent is None else parent

    def watch() -> None:
        while os.getppid() == expected:
            time.sleep(poll_s)
        _run(on_exit)
        kill_descendants()
        os._exit(PARENT_GONE_STATUS)

    thread = threading.Thread(target=watch, name="tuiperf-parent-watch", daemon=True)
    thread.start()
    return thread


def wait_for_end(pid: int) -> None:
    """Return once ``pid`` has ended (a pidfd on Linux, else polling whether it exists)."""
    try:
        descriptor = os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux, an old kernel, or already gone
        while running(pid):
            time.sleep(POLL_S)
        return
    try:
        select.select([descriptor], [], [])
    finally:
        os.close(descriptor)


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process: a zombie (ended, its status not yet collected) is not; where
    there is no /proc, whether the pid exists at all."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] not in (b"Z", b"X")
    except FileNotFoundError:
        return False
    except OSError:  # no /proc here
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, someone else's
        return True
    return True


def end_with(pid: int, on_exit: Cleanup | None = None) -> threading.Thread:
    """Exit this process when ``pid`` ends, however it ends: a daemon thread waits for it, then calls
    ``on_exit()``, kills this process's descendants and leaves with ``os._exit(0)`` (the process that
    read our output is gone; nothing is left to say goodbye to). Returns the thread."""

    def watch() -> None:
        wait_for_end(pid)
        _run(on_exit)
        kill_descendants()
        os._exit(0)

    thread = threading.Thread(target=watch, name=f"tuiperf-end-with-{pid}", daemon=True)
    thread.start()
    return thread


def guard_lifetime(on_exit: Cleanup | None = None, *, parent: int | None = None) -> bool:
    """Everything this module does, for a process tuiperf started (a loader or measuring process):
    reap and kill its orphaned descendants (:func:`become_subreaper`) on a normal exit (``atexit``)
    and on SIGTERM (then die by SIGTERM, as the parent expects), and exit with its parent
    (:func:`exit_with_parent`; ``parent``: the pid it was started by, default the parent now).
    ``on_exit`` runs first in each case. Call it from the main thread, first thing. Returns whether
    orphans are held (Linux); where not, detached descendants may remain."""
    held = become_subreaper()

    def at_exit() -> None:
        _run(on_exit)
        kill_descendants()

    atexit.register(at_exit)

    def on_term(signum: int, frame: object) -> None:
        at_exit()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    with contextlib.suppress(ValueError):  # not the main thread: atexit and the parent watch remain
        signal.signal(signal.SIGTERM, on_term)
    exit_with_parent(on_exit, parent=parent)
    return held
