"""A cluster run seen from the parent (``--cluster N``): N measuring processes that form one JAX cluster.

The parent picks the coordinator's address (127.0.0.1 and a free port, or the user's ``--coordinator
HOST:PORT``, checked free here since process 0 listens on it), starts N fresh measuring processes with
``--devices`` host devices each, and sends each the run with its member record
(:class:`~tuiperf.contract.cluster.ClusterMember`); the measuring side (:mod:`tuiperf.measuring.cluster`)
joins the cluster and samples in lockstep. Process 0's events are the run's progress and its result the
run's result (it holds every process's medians).

Several hosts: ``--cluster-start`` and ``--cluster-local`` say which of the cluster's processes start
here (by default all); a tuiperf on each host starts its share with the same ``--cluster`` and
``--coordinator`` (process 0's host). Each keeps the result of the first process it started: every
process's result holds every process's medians.

Faults: the processes of a cluster wait for each other inside every collective, so one that dies,
hangs (silent past ``--timeout``) or fails stops all: the others are stopped (a cancel, then a kill of
each process group), what process 0 had streamed is kept as a partial result, and nothing is left
running. The processes are never reused: JAX's distributed runtime starts once per process.
"""

from __future__ import annotations

import errno
import socket
import threading
import time
from collections.abc import Callable

from tuiperf.common.errors import ClusterError, InternalError, ParamError, TuiperfError, WorkerCrashed
from tuiperf.contract import options, wire
from tuiperf.contract.cluster import ClusterMember
from tuiperf.contract.events import Event, RunFailed
from tuiperf.contract.protocol import MeasureInCluster, Stop
from tuiperf.contract.request import RunRequest
from tuiperf.processes.process import MeasuringProcess, ProcessStopped
from tuiperf.processes.tracking import StreamTracker
from tuiperf.results.model import RunResult

STOP_WAIT_S = 1.0  # after the run, how long the processes get to leave the cluster before being killed
POLL_S = 0.05


def _probe(port: int) -> int | None:
    """Bind ``port`` (0: any) on every interface, as JAX's coordinator does (``[::]``, else IPv4), and
    let go at once: the port bound, or None when it is taken."""
    for family, host in ((socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")):
        try:
            with socket.socket(family, socket.SOCK_STREAM) as probe:
                probe.bind((host, port))
                return int(probe.getsockname()[1])
        except OSError as exc:
            if family == socket.AF_INET6 and exc.errno in (errno.EAFNOSUPPORT, errno.EADDRNOTAVAIL):
                continue  # no IPv6 here: ask IPv4
            return None
    return None


def port_free(port: int) -> bool:
    """Whether ``port`` can be listened on here."""
    return _probe(port) is not None


def free_port() -> int:
    """A port nothing listens on now (the system's choice)."""
    port = _probe(0)
    if port is None:
        raise ParamError("no free port to run a cluster's coordinator on", where="coordinator")
    return port


def coordinator_address(asked: str | None, listens_here: bool = True) -> str:
    """Where the cluster's coordinator listens: ``asked`` (HOST:PORT; its port free here when process 0
    starts here), else 127.0.0.1 and a free port."""
    if asked is None:
        if not listens_here:
            raise ParamError(
                "process 0 of this cluster runs on another host: give its address with --coordinator HOST:PORT",
                where="coordinator",
            )
        return f"127.0.0.1:{free_port()}"
    host, colon, port = asked.rpartition(":")
    if not colon or not host or not (port.isascii() and port.isdigit()) or not 0 < int(port) < 65536:
        raise ParamError(f"{asked!r} is not HOST:PORT (e.g. 127.0.0.1:12345)", where="coordinator")
    if listens_here and not port_free(int(port)):
        raise ParamError(
            f"port {port} is in use here: choose another with --coordinator HOST:PORT, or leave --coordinator "
            "out to pick a free one",
            where="coordinator",
        )
    return asked


def run_cluster(
    request: RunRequest, on_event: Callable[[Event], None] | None = None, cancel: threading.Event | None = None
) -> RunResult:
    """Measure ``request`` in ``settings.cluster`` processes forming one JAX cluster (see the module)."""
    settings = request.settings
    options.check_combination(settings)
    ids = started_here(settings.cluster, settings.cluster_start, settings.cluster_local)
    coordinator = coordinator_address(settings.coordinator, listens_here=ids[0] == 0)
    streamed = StreamTracker(request, on_event)
    stop = threading.Event()  # set when the user cancels or any process fails: every process stops
    outcomes: list[RunResult | TuiperfError | None] = [None] * len(ids)
    failed_at: list[float] = [float("inf")] * len(ids)
    children: list[MeasuringProcess] = []
    try:
        children = [MeasuringProcess(cpu_devices=settings.devices) for _ in ids]

        def ask(index: int) -> None:
            member = ClusterMember(coordinator=coordinator, processes=settings.cluster, process_id=ids[index])
            try:
                outcomes[index] = (
                    children[index]
                    .request(
                        MeasureInCluster(request, member),
                        streamed.track if index == 0 else None,
                        stop,
                        settings.timeout_s,
                    )
                    .result
                )
                return
            except TuiperfError as exc:
                outcomes[index] = exc
            except Exception as exc:  # noqa: BLE001 - a bug here must still stop the others
                outcomes[index] = InternalError(f"{type(exc).__name__}: {exc}")
            failed_at[index] = time.monotonic()
            stop.set()

        threads = [threading.Thread(target=ask, args=(i,), name=f"tuiperf-cluster-{i}") for i in range(len(ids))]
        for thread in threads:
            thread.start()
        while any(thread.is_alive() for thread in threads):
            time.sleep(POLL_S)
            if cancel is not None and cancel.is_set():
                stop.set()
        for thread in threads:
            thread.join()
    finally:
        close_all(children)
    return outcome(request, coordinator, ids, outcomes, failed_at, streamed, children, cancel)


def started_here(processes: int, start: int, local: int | None) -> list[int]:
    """The ids of the cluster's processes this tuiperf starts (all of them unless the others run elsewhere)."""
    count = processes - start if local is None else local
    if start + count > processes or count < 1:
        raise ParamError(
            f"--cluster-start {start} and --cluster-local {count} go beyond the {processes} processes of --cluster",
            where="cluster",
        )
    return list(range(start, start + count))


def outcome(
    request: RunRequest,
    coordinator: str,
    ids: list[int],
    outcomes: list[RunResult | TuiperfError | None],
    failed_at: list[float],
    streamed: StreamTracker,
    children: list[MeasuringProcess],
    cancel: threading.Event | None,
) -> RunResult:
    """The first process's result; else what it streamed, marked partial, naming the process that
    stopped first (``ids``: the cluster's ids of the processes started here, in ``outcomes``' order)."""
    first = outcomes[0]
    if isinstance(first, RunResult):
        return first
    cause = min(range(len(outcomes)), key=lambda i: failed_at[i])
    error = outcomes[cause]
    assert isinstance(error, TuiperfError)
    if cancel is not None and cancel.is_set():
        return streamed.after_cancel("was cancelled; the processes of the cluster were stopped")
    if not isinstance(error, ProcessStopped) and streamed.header is None:
        raise error  # bad input every process saw alike (a parameter, a port): one clear line
    if streamed.header is None and ids[cause] == 0 and not port_free(int(coordinator.rpartition(":")[2])):
        # JAX sometimes crashes instead of raising when its coordinator cannot listen
        raise ClusterError(
            f"the coordinator could not listen on {coordinator}: the port was taken as the cluster started; "
            "run again, or choose another port with --coordinator HOST:PORT"
        )
    what = error.how if isinstance(error, ProcessStopped) else f"failed: {error}"
    how = (  # read after "the measuring process", as every crash's how
        f"{what} (process {ids[cause]} of the {request.settings.cluster}-process cluster; "
        + others_after(ids, outcomes, cause)
        + ")"
    )
    stderr_tail = error.stderr_tail if isinstance(error, ProcessStopped) else ""
    crash = streamed.crash(how, children[cause] if cause < len(children) else None, stderr_tail)
    partial = streamed.after_crash(crash)
    if streamed.forward is not None:
        streamed.forward(RunFailed(partial.error or crash.how, WorkerCrashed.title, partial))
    return partial


def others_after(ids: list[int], outcomes: list[RunResult | TuiperfError | None], cause: int) -> str:
    """How the other processes started here ended once one had stopped: stopped by us, or on their own."""
    said = []
    for index, ended in enumerate(outcomes):
        if index == cause:
            continue
        if isinstance(ended, ProcessStopped) and ended.cancelled:
            said.append(f"process {ids[index]} was stopped")
        elif isinstance(ended, RunResult):
            said.append(f"process {ids[index]} had finished")
        else:
            how = ended.how if isinstance(ended, ProcessStopped) else f"failed: {ended}"
            said.append(f"process {ids[index]} {how}")
    return ", ".join(said) or "no other process of the cluster runs here"


def close_all(children: list[MeasuringProcess]) -> None:
    """Ask every process to stop, give them :data:`STOP_WAIT_S` together, then kill each process group:
    nothing is left running, whatever state the cluster is in."""

    for child in children:
        if child.alive:
            try:
                child.conn.send_bytes(wire.encode(Stop()))
            except OSError:
                pass
    deadline = time.monotonic() + STOP_WAIT_S
    for child in children:
        while child.alive and time.monotonic() < deadline:
            time.sleep(POLL_S)
    for child in children:
        child.kill()
        child.conn.close()
