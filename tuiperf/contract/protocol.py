"""The contract between a parent and its measuring process: the messages both ways, and a small
shared file, mapped by both: the parent raises the cancel flag; the child records the index of
the variant it is sampling and of the sweep point it is at, so that a crash or a timeout can be
attributed to them.
"""

from __future__ import annotations

import enum
import mmap
from typing import Generic, NamedTuple, TypeVar, cast, get_args

import msgspec

from tuiperf.common.errors import TuiperfError, error_class
from tuiperf.contract.catalog import LoadError, ScenarioEntry
from tuiperf.contract.cluster import ClusterMember
from tuiperf.contract.events import Event
from tuiperf.contract.request import RunRequest
from tuiperf.results.model import DeviceInfo, RunResult
from tuiperf.results.outputs import OutputDigest

# The device allocator settings a measuring process is started with (see processes.environment) and
# that every result records.
# What a process was started for ("loader", "devices" or "measuring"): one that only lists devices
# imports no framework before it answers.
ROLE_VARIABLE = "TUIPERF_PROCESS_ROLE"
ALLOCATOR_VARIABLES = ("XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_ALLOCATOR")

# Shared file layout: byte 0 the cancel flag, bytes 4..8 the index of the variant sampled (-1: none),
# bytes 8..12 the index of the point of a sweep or grid it belongs to (-1: not said).
SHARED_SIZE = 12
CANCEL, TURN, POINT = 0, 4, 8


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

    def set_point(self, index: int) -> None:
        self.map[POINT : POINT + 4] = index.to_bytes(4, "little", signed=True)

    def point(self) -> int:
        return int.from_bytes(self.map[POINT : POINT + 4], "little", signed=True)


# -- the messages ------------------------------------------------------------------------------------
# The parent sends one request at a time. A request that ``Asks[R]`` is answered by any number of
# Streamed events (and, in lockstep, Waiting), then exactly one R or a Refused; Proceed and Stop are
# not answered. Each side matches on the class, so a misspelt verb is a type error, not a silently
# ignored string. Messages are msgspec tagged Structs of typed data, sent as msgspec's msgpack and
# decoded into their classes (:mod:`tuiperf.contract.wire`).


class Reply(msgspec.Struct, tag=True, frozen=True):
    """The answer to one request (each request's own class)."""


R = TypeVar("R", bound=Reply)


class Asks(msgspec.Struct, Generic[R], frozen=True):
    """A request answered by one ``R``."""


class Described(Reply, frozen=True):
    """A scenario file described, or why it cannot be used (exactly one of the two)."""

    scenario: ScenarioEntry | None = None
    error: LoadError | None = None

    @property
    def entry(self) -> ScenarioEntry | LoadError:
        entry = self.scenario or self.error
        if entry is None:
            raise ValueError("a description names a scenario or an error")
        return entry


class DeviceList(Reply, frozen=True):
    devices: list[DeviceInfo]


class Size(Reply, frozen=True):
    mb: float | None  # None where the system does not say


class Measured(Reply, frozen=True):
    result: RunResult


class MeasuredInLockstep(Reply, frozen=True):
    result: RunResult
    digests: dict[str, OutputDigest]  # each measured variant's output, to compare across environments


class DescribeFile(Asks[Described], tag=True, frozen=True):
    """Import one scenario file and describe it (a ScenarioEntry, or the LoadError saying why not)."""

    path: str


class ListDevices(Asks[DeviceList], tag=True, frozen=True):
    """Every JAX device."""


class Memory(Asks[Size], tag=True, frozen=True):
    """The child's resident size in MB, after the last clean-up."""


class Measure(Asks[Measured], tag=True, frozen=True):
    """Run a request alone; events stream back, then its result."""

    request: RunRequest


class MeasureInCluster(Asks[Measured], tag=True, frozen=True):
    """Run a request as one process of a JAX cluster (``--cluster N``): join it, then make the same
    calls as every other process (:mod:`tuiperf.measuring.cluster`)."""

    request: RunRequest
    member: ClusterMember


class MeasureInLockstep(Asks[MeasuredInLockstep], tag=True, frozen=True):
    """Run a request in lockstep with other processes (one per Python environment): at each gate (start,
    each sampling round, the analysis) the child sends ``Waiting`` and waits for ``Proceed``; the answer
    carries each variant's output so that outputs can be compared across environments."""

    request: RunRequest


class Proceed(msgspec.Struct, tag=True, frozen=True):
    """Sent while a child in lockstep waits: pass the gate (``go``), or stop sampling (``go=False``)."""

    go: bool = True


class Stop(msgspec.Struct, tag=True, frozen=True):
    """End the child politely (no answer)."""


Request = DescribeFile | ListDevices | Memory | Measure | MeasureInCluster | MeasureInLockstep | Proceed | Stop


def answer_type(request: Asks[R]) -> type[R]:
    """The class that answers ``request`` (the ``R`` of its ``Asks[R]``)."""
    for base in getattr(type(request), "__orig_bases__", ()):
        for argument in get_args(base):
            if isinstance(argument, type) and issubclass(argument, Reply):
                return cast("type[R]", argument)
    raise TypeError(f"{type(request).__name__} is answered by nothing")


class Started(msgspec.Struct, tag=True, frozen=True):
    """Sent first, as soon as the child's Python runs tuiperf (before it imports JAX): an interpreter
    that never says it is held for no longer than the run's time limit."""

    pid: int


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


Replies = Described | DeviceList | Size | Measured | MeasuredInLockstep  # every request's answer
Answer = Started | Ready | Streamed | Waiting | Refused | Replies
