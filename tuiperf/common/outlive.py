"""End this process when another one ends, however it ends (a SIGKILL included).

No signal reaches a child when its parent is killed, and a shell between the two (textual-serve
starts each explorer through ``sh -c``) may keep a parent alive that is not the one that matters. So
the process that matters is named by its pid and watched from a daemon thread: on Linux through a
pidfd (readable when that process ends; immune to the pid being reused once it is open), elsewhere by
polling whether the pid still exists.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable

POLL_S = 0.25


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, someone else's
        return True
    return True


def wait_for_end(pid: int) -> None:
    """Return once ``pid`` has ended."""
    try:
        descriptor = os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux, an old kernel, or already gone
        while alive(pid):
            time.sleep(POLL_S)
        return
    try:
        select.select([descriptor], [], [])
    finally:
        os.close(descriptor)


def children(pid: int | None = None) -> list[int]:
    """The live children of ``pid`` (this process by default), where /proc lists them (Linux)."""
    pid = os.getpid() if pid is None else pid
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as listing:
                found += [int(word) for word in listing.read().split()]
        except OSError:
            continue
    return found


def kill_children() -> None:
    """SIGKILL this process's children (their own watch ends theirs)."""
    import signal

    for child in children():
        try:
            os.kill(child, signal.SIGKILL)
        except OSError:
            pass


def end_with(pid: int, before_exit: Callable[[], None] | None = None) -> threading.Thread:
    """Watch ``pid`` from a daemon thread; when it ends, run ``before_exit`` and leave at once
    (``os._exit``: the process that read our output is gone, nothing is left to say goodbye to)."""

    def watch() -> None:
        wait_for_end(pid)
        try:
            if before_exit is not None:
                before_exit()
        finally:
            os._exit(0)

    thread = threading.Thread(target=watch, name=f"end-with-{pid}", daemon=True)
    thread.start()
    return thread
