"""Taking turns with other measuring processes (one per Python environment, see
:mod:`tuiperf.processes.lockstep`): a run asks before each stage whether, and when, it may go on.

Alone, it may until its own rule says sampling is done. In lockstep, :meth:`Turns.wait` returns when
the parent gives this process its turn: only one process of the run computes at a time, so drift on
the machine hits every environment alike, round by round.
"""

from __future__ import annotations

from typing import Protocol


class Turns(Protocol):
    def wait(self, key: tuple[int, int, int], done: bool = False) -> bool:
        """Block until it is this process's turn at ``key`` (see ``contract.protocol.Waiting``); False:
        stop sampling (every environment is done, or the run was cancelled)."""
        ...


class Alone:
    """A run that shares the machine with no other measuring process of its own."""

    def wait(self, key: tuple[int, int, int], done: bool = False) -> bool:
        return not done  # nobody else to wait for: done (converged, or the budget spent) ends sampling


ALONE = Alone()
