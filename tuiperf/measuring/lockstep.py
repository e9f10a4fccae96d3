"""Lockstep with other measuring processes (one per Python environment, see
:mod:`tuiperf.processes.lockstep`): a run stops at each gate (:class:`~tuiperf.contract.protocol.Gate`)
and asks whether, and when, it may go on.

Alone, it may until its own rule says sampling is done. In lockstep, :meth:`Lockstep.wait` returns
when the parent lets this process through: only one process of the run computes at a time, so drift
on the machine hits every environment alike, round by round.
"""

from __future__ import annotations

from typing import Protocol

from tuiperf.contract.protocol import Gate


class Lockstep(Protocol):
    def wait(self, gate: Gate, done: bool = False) -> bool:
        """Block until this process may pass ``gate``; False: stop sampling (every environment is done,
        or the run was cancelled)."""
        ...


class Alone:
    """A run that shares the machine with no other measuring process of its own."""

    def wait(self, gate: Gate, done: bool = False) -> bool:
        return not done  # nobody else to wait for: done (converged, or the budget spent) ends sampling


ALONE = Alone()
