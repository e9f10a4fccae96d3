"""The contract between a parent and its measuring process: the messages both ways, and a small
shared file, mapped by both: the parent raises the cancel flag; the child records the index of
the variant it is sampling, so that a crash can be attributed to it.
"""

from __future__ import annotations

import enum
import mmap
from typing import Any, NamedTuple

import msgspec

from tuiperf.common.errors import TuiperfError, error_class
from tuiperf.contract.cluster import ClusterMember
from tuiperf.contract.events import Event
from tuiperf.contract.request import RunRequest

# The device allocator settings a measuring process is started with (see processes.environment) and
# that every result records.
# What a process was started for ("loader", "devices" or "measuring"): one that only lists devices
# imports no framework before it answers.
ROLE_VARIABLE = "TUIPERF_PROCESS_ROLE"
ALLOCATOR_VARIABLES = ("XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_ALLOCATOR")

# Shared file layout: byte 0 the cancel flag, bytes 4..8 the index of the variant sampled (-1: none).
SHARED_SIZE = 8
CANCEL, TURN = 0, 4


class Shared:
    """The parent's and child's view of the shared file (cheap to read and write between samples)."""

    def __init__(self, fd: int) -> None:
        self.map = mmap.mmap(fd, SHARED_SIZE)

    def is_set(self) -> bool:  # what the measuring code expects of a cancel flag
        return self.map[CANCEL] != 0

    def set_cancel(self, value: bool) -> None:
        self.map[CANCEL] = 1 if value else 0

    def set_turn(self, index: int) -> None:
        self.map[TURN : TURN + 4] = index.to_bytes(4, "little", signed=True)

    def turn(self) -> int:
        return int.from_bytes(self.map[TURN : TURN + 4], "little", signed=True)


# -- the messages ------------------------------------------------------------------------------------
# The parent sends one Request at a time; the child answers with any number of Streamed events, then
# one Answered or Refused. Each side matches on the class, so a misspelt verb is a type error, not a
# silently ignored string. Messages are msgspec tagged Structs, pickled through the socket: their
# payloads (the request's raw parameter values, a result's notes) may hold any Python object.


class DescribeFile(msgspec.Struct, tag=True, frozen=True):
    """Import one scenario file and describe it (a ScenarioEntry, or the LoadError saying why not)."""

    path: str


class ListDevices(msgspec.Struct, tag=True, frozen=True):
    """Every JAX device (a list of DeviceEntry)."""


class Memory(msgspec.Struct, tag=True, frozen=True):
    """The child's resident size in MB (None where the system does not say), after the last clean-up."""


class Measure(msgspec.Struct, tag=True, frozen=True):
    """Run a request; events stream back, then the RunResult.

    ``lockstep``: the process takes turns with others (one per Python environment): before each
    stage (start, each sampling round, the analysis) it sends ``Waiting`` and waits for ``Proceed``;
    the answer is then ``(RunResult, {variant: OutputDigest})`` so that outputs can be compared across
    environments. ``cluster``: as one process of a JAX cluster (``--cluster N``), sampling in lockstep
    with the others."""

    request: RunRequest
    lockstep: bool = False
    cluster: ClusterMember | None = None


class Proceed(msgspec.Struct, tag=True, frozen=True):
    """Sent while a lockstep child waits: take the turn (``go``), or stop sampling (``go=False``)."""

    go: bool = True


class Stop(msgspec.Struct, tag=True, frozen=True):
    """End the child politely (no answer)."""


Request = DescribeFile | ListDevices | Memory | Measure | Proceed | Stop


class Ready(msgspec.Struct, tag=True, frozen=True):
    """Sent once, when the child has imported JAX and the frameworks."""

    pid: int


class Streamed(msgspec.Struct, tag=True, frozen=True):
    """One event of a run in progress."""

    event: Event


class GateKind(enum.IntEnum):
    """What a run is about to do at a gate, in the order a run goes through them."""

    START = 0  # set up and compile
    SAMPLE = 1  # one sampling round
    ANALYSE = 2  # breakdown, profile, guard


START, SAMPLE, ANALYSE = GateKind.START, GateKind.SAMPLE, GateKind.ANALYSE


class Gate(NamedTuple):
    """Where a run in lockstep stops until the parent lets it through (ordered: the earliest first).

    ``point``: the pass (a sequential sweep's point; 0 for a single pass or an interleaved sweep, which
    is one pass over every point). ``round``: the sampling round; at START and ANALYSE of an interleaved
    sweep, the point it prepares or analyses."""

    point: int
    kind: GateKind
    round: int


class Waiting(msgspec.Struct, tag=True, frozen=True):
    """A child in lockstep has ended its turn and waits at ``gate``. ``done``: its own rule
    (converged, budget) would stop sampling here."""

    gate: Gate
    done: bool = False


class Answered(msgspec.Struct, tag=True, frozen=True):
    """The request's value (its type is the request's: see each request's docstring)."""

    value: Any


class Refused(msgspec.Struct, tag=True, frozen=True):
    """The request failed with a TuiperfError (``error`` names its class) or a bug (``InternalError``)."""

    error: str
    title: str
    message: str
    where: str | None = None

    @classmethod
    def of(cls, exc: TuiperfError) -> Refused:
        return cls(error=type(exc).__name__, title=exc.title, message=exc.message, where=exc.where)

    def exception(self) -> TuiperfError:
        """The same error, as the same TuiperfError subclass, to raise in the parent."""
        error = error_class(self.error)(self.message, where=self.where)
        if error.title != self.title:  # an instance whose title was set (or an unknown class)
            error.title = self.title
        return error


Answer = Ready | Streamed | Waiting | Answered | Refused
