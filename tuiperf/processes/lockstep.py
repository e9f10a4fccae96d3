"""Turns between the measuring processes of one run over several Python environments.

Each process runs the whole measurement itself but stops before each stage (``Waiting``: its set-up
and compile, each sampling round, its analysis) until :meth:`Schedule.wait` gives it the turn. One
process computes at a time, so no environment's timing shares the CPU with another's, and the turn
goes to the process waiting at the earliest stage: every process sets up before any samples, and
each sampling round is taken by every environment before the next round starts (who goes first
rotates with the round), so slow drift on the machine hits every environment alike. Sampling stops
for all at once: when every process's own rule (converged, budget) says done, or on cancel.
"""

from __future__ import annotations

import threading

from tuiperf.contract.protocol import SAMPLE, Gate

CANCEL_POLL_S = 0.05


class Schedule:
    """The turns of ``count`` processes (by index); thread-safe, one thread per process calls in."""

    def __init__(self, count: int, cancel: threading.Event | None = None) -> None:
        self.count = count
        self.cancel = cancel or threading.Event()
        self._lock = threading.Condition()
        self._waiting: dict[int, Gate] = {}
        self._done: dict[int, bool] = {}
        self._finished: set[int] = set()
        self._granted: int | None = None  # the process whose turn it is
        self._running: int | None = None  # ... and that has not yet reported back
        self._decisions: dict[Gate, bool] = {}  # one go/stop per stage, for every process
        self.turns: list[tuple[int, Gate]] = []  # (process, key) in the order given

    def wait(self, index: int, key: Gate, done: bool = False) -> bool:
        """Process ``index`` waits at gate ``key``; returns when it may go on (True) or must stop sampling."""
        with self._lock:
            self._waiting[index] = key
            self._done[index] = done
            if self._running == index:
                self._running = None
            self._schedule()
            while self._granted != index:
                if self.cancel.is_set():
                    self._waiting.pop(index, None)
                    return False
                self._lock.wait(CANCEL_POLL_S)
            self._granted = None
            del self._waiting[index]
            self._running = index
            return self._decisions[key] and not self.cancel.is_set()

    def finished(self, index: int) -> None:
        """Process ``index`` answered, failed or died: it takes no more turns."""
        with self._lock:
            self._finished.add(index)
            self._waiting.pop(index, None)
            if self._running == index:
                self._running = None
            if self._granted == index:
                self._granted = None
            self._schedule()

    def _decide(self, key: Gate) -> bool:
        """A sampling round goes ahead unless every process waiting for it is done; decided once, when
        the first of them takes its turn, so that all take the round or none does."""
        if key not in self._decisions:
            if key.kind != SAMPLE:
                self._decisions[key] = True
            else:
                self._decisions[key] = not all(self._done[i] for i, k in self._waiting.items() if k == key)
        return self._decisions[key]

    def _schedule(self) -> None:
        """Give the turn when nobody runs: to the earliest stage, rotating who goes first each round."""
        if self._running is not None or self._granted is not None:
            return
        alive = [i for i in range(self.count) if i not in self._finished]
        if not alive or any(i not in self._waiting for i in alive):
            return  # one is still starting up (or running without having said so): wait for it
        chosen = min(alive, key=lambda i: (self._waiting[i], (i - self._waiting[i].round) % self.count))
        self._decide(self._waiting[chosen])
        self._granted = chosen
        self.turns.append((chosen, self._waiting[chosen]))
        self._lock.notify_all()
