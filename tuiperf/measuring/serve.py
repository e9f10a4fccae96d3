"""The child side of a measuring (or loading) process: ``python -m tuiperf.measuring.serve``.

The parent (:mod:`tuiperf.processes.runner`) starts it with a socket for requests and a small shared file
for the cancel flag and the index of the variant being sampled; its stdout and stderr are a pipe the
parent drains into a log, so nothing a scenario prints reaches the caller's terminal or JSON.

Started, it imports JAX and the frameworks at once (a spare process is then ready when needed) but
initialises no JAX backend, so the dispatch mode can still be chosen by its first run. It ignores
Ctrl-C (the parent decides when to stop), dies with its parent, and takes along whatever a scenario
forked, daemons that left its process group included (:mod:`tuiperf.common.lifeline`).

Protocol (:mod:`tuiperf.contract.protocol`): the parent sends one ``Request``; the child answers with
any number of ``Streamed`` events, then the request's own ``Reply`` or ``Refused`` (naming the error's
class, so the parent raises the same one), as msgspec's msgpack (:mod:`tuiperf.contract.wire`). A
note that is not data is sent as text; a run is never lost to it.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING

from tuiperf.common import lifeline
from tuiperf.common.errors import InternalError, TuiperfError
from tuiperf.common.memory import resident_mb
from tuiperf.contract import wire
from tuiperf.contract.events import Event, PhaseChanged, RunStarted
from tuiperf.contract.protocol import (
    ROLE_VARIABLE,
    Answer,
    Described,
    DescribeFile,
    DeviceList,
    Gate,
    ListDevices,
    Measure,
    Measured,
    MeasuredInLockstep,
    MeasureInCluster,
    MeasureInLockstep,
    Memory,
    Proceed,
    R,
    Ready,
    Refused,
    Replies,
    Reply,
    Request,
    Shared,
    Size,
    Started,
    Stop,
    Streamed,
    Waiting,
)
from tuiperf.contract.request import RunRequest
from tuiperf.results.outputs import OutputDigest

if TYPE_CHECKING:
    from tuiperf.measuring.context import Hooks
    from tuiperf.measuring.lockstep import Lockstep


def safe_send(conn: Connection, message: Answer) -> None:
    """Send ``message``; if it holds something that is not data, send the best text version of it instead."""
    try:
        conn.send_bytes(wire.encode(message))
    except (wire.Unsendable, RecursionError) as exc:
        from tuiperf.common.text import one_line

        match message:
            case Streamed():
                return  # a live update is not worth a failure
            case Reply():  # a result holding an object that is not data: send it as text
                try:
                    conn.send_bytes(wire.encode(as_plain(message)))
                    return
                except Exception:  # noqa: BLE001 - then say why it could not be sent
                    pass
        error = InternalError(one_line(f"the answer could not be sent: {exc}", 300))
        conn.send_bytes(wire.encode(Refused.of(error)))


def as_plain(reply: R) -> R:
    """A reply with every object in it that is not plain data replaced by its text."""
    import msgspec

    from tuiperf.common.text import inert

    return msgspec.convert(msgspec.to_builtins(reply, enc_hook=inert), type(reply))


class TakingTurns:
    """The child's side of a run in lockstep (:mod:`tuiperf.measuring.lockstep`): say where it waits, then
    wait for the parent's ``Proceed`` on the request socket."""

    def __init__(self, conn: Connection, shared: Shared) -> None:
        self.conn, self.shared = conn, shared

    def wait(self, gate: Gate, done: bool = False) -> bool:
        safe_send(self.conn, Waiting(gate, done))
        while True:
            try:
                message = wire.request_of(self.conn.recv_bytes())
            except (EOFError, OSError):
                os._exit(0)  # the parent is gone: nothing is waiting for this run any more
            match message:
                case Proceed(go=go):
                    return go and not self.shared.is_set()
                case Stop():
                    os._exit(0)
                case _:
                    continue


class Server:
    """Answers one request at a time, each with its own reply."""

    def __init__(self, conn: Connection, shared: Shared) -> None:
        self.conn, self.shared = conn, shared

    def describe_file(self, request: DescribeFile) -> Described:
        from tuiperf.contract.catalog import LoadError
        from tuiperf.measuring.loading import describe_file

        described = describe_file(Path(request.path))
        if isinstance(described, LoadError):
            return Described(error=described)
        return Described(scenario=described)

    def list_devices(self) -> DeviceList:
        from tuiperf.measuring.env import list_devices

        return DeviceList(list_devices())

    def memory(self) -> Size:  # served after the last run's clean-up: requests are in order
        return Size(resident_mb())

    def hooks(
        self, run: RunRequest, lockstep: Lockstep | None = None, digests: dict[str, OutputDigest] | None = None
    ) -> Hooks:
        """Events to the parent, the variant running (its index among the run's variants, in the
        shared file, so that a crash can be blamed on it) and the sweep point it is at, the cancel flag."""
        from tuiperf.measuring.context import Hooks
        from tuiperf.measuring.lockstep import ALONE

        names: list[str] = list(run.variants or [])  # as the parent knows them until RunStarted says
        shared = self.shared

        def emit(event: Event) -> None:
            match event:
                case RunStarted(variants=variants):
                    names[:] = variants
                    shared.set_point(-1)  # the parent counts the points started, until a turn says
                case PhaseChanged(variant=variant):  # the variant it names is the one running now (a
                    # profile or a guard after sampling must not leave the last sampled one named)
                    shared.set_turn(names.index(variant) if variant in names else -1)
            safe_send(self.conn, Streamed(event))

        def on_turn(variant: str | None, point: int | None) -> None:
            shared.set_turn(names.index(variant) if variant in names else -1)
            if point is not None:
                shared.set_point(point)

        return Hooks(emit, shared, on_turn, lockstep or ALONE, digests)

    def reply(self, request: Request) -> Replies:
        from tuiperf.contract import options
        from tuiperf.measuring.inprocess import measure_here

        if isinstance(request, Measure | MeasureInCluster | MeasureInLockstep):
            options.check(request.request.settings)  # once, as it arrives: the steps that measure trust it
        match request:
            case DescribeFile():
                return self.describe_file(request)
            case ListDevices():
                return self.list_devices()
            case Memory():
                return self.memory()
            case Measure(run):
                return Measured(measure_here(run, self.hooks(run)))
            case MeasureInCluster(run, member):  # one process of a cluster run (--cluster N)
                from tuiperf.measuring.cluster import measure_in_cluster

                return Measured(measure_in_cluster(run, member, self.hooks(run)))
            case MeasureInLockstep(run):  # one of several Python environments
                digests: dict[str, OutputDigest] = {}
                result = measure_here(run, self.hooks(run, TakingTurns(self.conn, self.shared), digests))
                return MeasuredInLockstep(result, digests)
        raise InternalError(f"unknown request {type(request).__name__}")

    def answer(self, request: Request) -> None:
        """Answer one request: its reply, or the error it raised (as its own class)."""
        from tuiperf.measuring.loading import describe_error

        try:
            reply = self.reply(request)
        except TuiperfError as exc:
            safe_send(self.conn, Refused.of(exc))
        except Exception as exc:  # noqa: BLE001 - anything else is a bug, reported with its type
            safe_send(self.conn, Refused.of(InternalError(describe_error(exc))))
        else:
            safe_send(self.conn, reply)
        finally:
            self.shared.set_turn(-1)
            self.shared.set_point(-1)
        if isinstance(request, Measure | MeasureInCluster | MeasureInLockstep):
            from tuiperf.measuring.execute import forget_compiled

            forget_compiled()  # after the answer: the caller does not wait for the clean-up


def serve(conn: Connection, shared: Shared) -> None:
    server = Server(conn, shared)
    while True:
        try:
            request: Request = wire.request_of(conn.recv_bytes())
        except (EOFError, OSError):
            return
        except wire.Unreadable as exc:  # said, and the next request is read
            safe_send(conn, Refused.of(exc))
            continue
        if isinstance(request, Stop):
            return
        server.answer(request)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conn", type=int, required=True)
    parser.add_argument("--shared", type=int, required=True)
    parser.add_argument("--parent", type=int, required=True)
    args = parser.parse_args()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    lifeline.guard_lifetime(parent=args.parent)  # dies with the parent; takes what it forks along
    conn = Connection(args.conn)
    # Its Python runs: the rest is importing JAX (see READY_TIMEOUT_S).
    conn.send_bytes(wire.encode(Started(os.getpid())))
    shared = Shared(args.shared)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import jax
    import jax.numpy  # noqa: F401

    # The frameworks are imported before "ready" so that a scenario's first import or run does not
    # pay for them; a process that only lists devices never needs them.
    frameworks = () if os.environ.get(ROLE_VARIABLE) == "devices" else ("equinox", "flax.linen", "flax.nnx", "optax")
    for module in frameworks:
        try:
            __import__(module)
        except Exception:  # noqa: BLE001 - an optional framework may be missing
            pass
    conn.send_bytes(wire.encode(Ready(os.getpid())))
    serve(conn, shared)
    lifeline.kill_descendants()  # the request loop ended: whatever a scenario left running goes too
    sys.stdout.flush()


if __name__ == "__main__":
    main()
