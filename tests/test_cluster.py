"""Cluster runs (--cluster N): measuring processes forming one JAX cluster over loopback, sampling in
lockstep; and what happens when one of them dies or hangs, when the coordinator's port is taken, when a
variant's shardings do not fit the mesh or asks for more devices than the cluster has."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tuiperf.common.errors import ParamError
from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.processes.cluster import coordinator_address, port_free
from tuiperf.processes.runner import ProcessRunner

# A global array over every process's devices; a jitted sum of it is a collective (an all-reduce across
# the processes). In process 1 only, after its first dozen calls (so: while sampling), the call can die
# or hang, as a process of a real cluster might.
SCENARIO = """
import os, signal, time
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P
from tuiperf import Bench, Choice, Scenario, devices, mesh

scenario = Scenario(
    title="cluster probe",
    question="Do N processes sample a global array in lockstep?",
    params=dict(fault=Choice("none", choices=("none", "die", "hang"))),
)

@scenario.setup
def build(p):
    return np.arange(32.0, dtype=np.float32).reshape(8, 4)

def faulty(p, fn):
    calls = [0]
    def call(x):
        calls[0] += 1
        if jax.process_index() == 1 and calls[0] > 19:
            if p.fault == "die":
                os.kill(os.getpid(), signal.SIGKILL)
            if p.fault == "hang":
                time.sleep(600)
        return fn(x)
    return call

def total(x):
    return (x * 2).sum()

@scenario.variant("sharded-sum", reference=True)
def _(p, ctx):
    m = mesh((len(devices()),), ("d",))
    return Bench(faulty(p, jax.jit(total)), jax.device_put(ctx, NamedSharding(m, P("d"))), eager=True)

@scenario.variant("replicated-sum")
def _(p, ctx):
    m = mesh((len(devices()),), ("d",))
    return Bench(jax.jit(total), jax.device_put(ctx, NamedSharding(m, P())))

@scenario.variant("rows-do-not-fit")
def _(p, ctx):
    m = mesh((len(devices()),), ("d",))
    return Bench(jax.jit(total), jax.device_put(np.ones((6, 4), np.float32), NamedSharding(m, P("d"))))

@scenario.variant("mesh-of-one-process")
def _(p, ctx):
    return Bench(jax.jit(total), jax.device_put(ctx, NamedSharding(mesh((1,), ("d",)), P())))

@scenario.variant("mesh-too-large")
def _(p, ctx):
    return Bench(jax.jit(total), jax.device_put(ctx, NamedSharding(mesh((8,), ("d",)), P("d"))))
"""


@pytest.fixture
def scenario_dir(tmp_path: Path) -> Path:
    (tmp_path / "cluster_probe.py").write_text(SCENARIO)
    return tmp_path


STARTED: list[int] = []  # the pids of every cluster process a test started


@pytest.fixture(autouse=True)
def record_cluster_processes(monkeypatch):
    import tuiperf.processes.cluster as cluster

    class Recorded(cluster.MeasuringProcess):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            STARTED.append(self.process.pid)

    STARTED.clear()
    monkeypatch.setattr(cluster, "MeasuringProcess", Recorded)


def still_running(pids: list[int]) -> list[str]:
    """Which of ``pids`` ``ps`` still lists, zombies aside."""
    if not pids:
        return []
    listed = subprocess.run(
        ["ps", "-o", "pid=,stat=", "-p", ",".join(map(str, pids))], capture_output=True, text=True, check=False
    )
    return [line.strip() for line in listed.stdout.splitlines() if line.split()[1:2] != ["Z"]]


def cluster_run(
    scenario_dir: Path, fault: str = "none", variants: list[str] | None = None, *, alone: bool = True, **settings
):
    runner = ProcessRunner([str(scenario_dir)])
    try:
        quick = RunSettings(samples=20, profile=False, devices=2, cluster=2, **settings)
        request = RunRequest(scenario="cluster-probe", params={"fault": fault}, variants=variants, settings=quick)
        result = runner.run(request)
        if alone:  # the run has returned: nothing of its cluster may be left running
            assert STARTED and still_running(STARTED) == []
        return result
    finally:
        runner.close()


@pytest.mark.slow
def test_two_processes_of_two_devices_sample_in_lockstep(scenario_dir):
    result = cluster_run(scenario_dir)
    assert result.cluster is not None and not result.partial
    assert (result.cluster.processes, result.cluster.devices_per_process) == (2, 2)
    assert result.cluster.samples_per_variant == 20 and result.device.count == 4
    assert result.options.cluster == 2 and result.options.devices == 2
    by_name = {v.name: v for v in result.variants}
    for name in ("sharded-sum", "replicated-sum"):
        variant = by_name[name]
        assert variant.status == "ok" and variant.sampling.stats is not None and variant.sampling.stats.n == 20
        assert (
            len(variant.sampling.process_medians_ns) == 2
            and variant.sampling.process_medians_ns[0] == variant.sampling.stats.median_ns
        )
        assert variant.sampling.slowest_share is not None and 0 <= variant.sampling.slowest_share < 1
        assert sum(variant.sampling.slowest_calls) == 20  # every call has one slowest process
    # outputs gathered from both processes agree (a global sum of the same array, two shardings)
    assert result.equivalence.checked == ["sharded-sum", "replicated-sum"] and not result.equivalence.mismatches
    # a sharding that does not fit the mesh, a mesh larger than the cluster: that variant fails alone
    misfit, too_large = by_name["rows-do-not-fit"], by_name["mesh-too-large"]
    assert misfit.status == "failed" and misfit.failure.phase == "compile"
    assert "cluster_probe.py:" in misfit.failure.error and "6" in misfit.failure.error
    assert by_name["mesh-of-one-process"].status == "failed"
    assert "asked for 1 devices in a cluster of 2 processes: a mesh spans every process" in (
        by_name["mesh-of-one-process"].failure.error
    )
    assert too_large.status == "failed"
    assert "asked for 8 devices, this run has 4: a cluster run has --cluster × --devices of them (2 × 2 here)" in (
        too_large.failure.error
    )


@pytest.mark.slow
def test_processes_started_by_two_tuiperfs_form_one_cluster(scenario_dir):
    """What two hosts would do, on loopback: each tuiperf starts its share of the cluster's processes."""
    import threading

    from tuiperf.processes.cluster import free_port

    coordinator = f"127.0.0.1:{free_port()}"
    results: dict[int, object] = {}

    def host(start: int) -> None:
        results[start] = cluster_run(
            scenario_dir,
            variants=["sharded-sum"],
            alone=False,
            coordinator=coordinator,
            cluster_start=start,
            cluster_local=1,
        )

    hosts = [threading.Thread(target=host, args=(start,)) for start in (0, 1)]
    for thread in hosts:
        thread.start()
    for thread in hosts:
        thread.join()
    assert len(STARTED) == 2 and still_running(STARTED) == []
    first, second = results[0], results[1]
    assert first.cluster.samples_of == 0 and second.cluster.samples_of == 1  # type: ignore[attr-defined]
    ours, theirs = first.variant("sharded-sum"), second.variant("sharded-sum")  # type: ignore[attr-defined]
    assert (
        ours.sampling.stats.median_ns == ours.sampling.process_medians_ns[0]
        and theirs.sampling.stats.median_ns == theirs.sampling.process_medians_ns[1]
    )
    assert ours.sampling.process_medians_ns == theirs.sampling.process_medians_ns  # both hold every process's figures
    assert ours.sampling.slowest_share == theirs.sampling.slowest_share


@pytest.mark.slow
def test_a_share_of_the_cluster_needs_the_coordinator_of_process_0(scenario_dir):
    with pytest.raises(ParamError, match="process 0 of this cluster runs on another host: give its address"):
        cluster_run(scenario_dir, cluster_start=1)
    with pytest.raises(ParamError, match="--cluster-start 1 and --cluster-local 2 go beyond the 2 processes"):
        cluster_run(scenario_dir, cluster_start=1, cluster_local=2, coordinator="127.0.0.1:1")


@pytest.mark.slow
def test_a_process_that_dies_stops_the_others_and_keeps_what_was_measured(scenario_dir):
    result = cluster_run(scenario_dir, "die", ["sharded-sum"], interleave="call")
    assert result.partial and result.crash is not None
    # process 0, waiting inside a collective for process 1, is stopped at once (not left to its timeout)
    assert result.crash.how == "was killed by SIGKILL (process 1 of the 2-process cluster; process 0 was stopped)"
    assert (result.error or "").startswith("the measuring process was killed by SIGKILL (process 1")
    assert result.crash.variant == "sharded-sum"
    kept = result.variant("sharded-sum")
    assert kept is not None and kept.sampling.samples_ns  # what process 0 had streamed


@pytest.mark.slow
def test_a_process_that_hangs_is_stopped_with_the_others(scenario_dir):
    result = cluster_run(scenario_dir, "hang", ["sharded-sum"], interleave="call", timeout_s=3.0)
    assert result.partial and result.crash is not None
    # a hang inside a collective silences every process: whichever was seen first is named
    assert result.crash.how.startswith("did not return within 3 s (process ")
    assert "of the 2-process cluster; process " in result.crash.how
    assert result.crash.variant == "sharded-sum"


def test_a_coordinator_port_in_use_is_a_clear_error_before_anything_starts():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert not port_free(port)
        with pytest.raises(ParamError, match=f"port {port} is in use here: choose another with --coordinator"):
            coordinator_address(f"127.0.0.1:{port}")
    with pytest.raises(ParamError, match="is not HOST:PORT"):
        coordinator_address("localhost")
    host, port_text = coordinator_address(None).rsplit(":", 1)  # default: loopback and a free port
    assert host == "127.0.0.1" and port_free(int(port_text))


def test_a_coordinator_that_cannot_listen_is_said_in_words():
    from tuiperf.contract.cluster import ClusterMember
    from tuiperf.measuring.cluster import join_error

    member = ClusterMember("127.0.0.1:4567", 2, 0)
    # what JAX 0.10.2 raises when the port was taken between the parent's check and process 0's start
    said = str(join_error("UNKNOWN: Failed to start RPC server", member))
    assert said.startswith("the coordinator could not listen on 127.0.0.1:4567 (the port is in use?)")
    assert "leave --coordinator out to pick a free one" in said
    other = str(join_error("DEADLINE_EXCEEDED: Deadline Exceeded\nRPC: /RegisterTask", member))
    assert other == (
        "process 0 of 2 could not join the cluster at 127.0.0.1:4567: DEADLINE_EXCEEDED: Deadline Exceeded "
        "RPC: /RegisterTask"
    )


@pytest.mark.slow
def test_a_cluster_does_not_combine_with_repeats_or_in_process(scenario_dir):
    from tuiperf.measuring.inprocess import InProcessRunner

    with pytest.raises(ParamError, match="--cluster and --processes do not combine"):
        cluster_run(scenario_dir, processes=2)
    with pytest.raises(ParamError, match="leave out --in-process"):
        InProcessRunner([str(scenario_dir)]).run(RunRequest(scenario="cluster-probe", settings=RunSettings(cluster=2)))


def test_figures_across_processes_are_read_call_by_call():
    from tuiperf.measuring.cluster import across_processes, samples_for_budget

    samples = np.array([[10.0, 10.0, 10.0, np.nan], [5.0, 20.0, 10.0, 8.0]])
    figures = across_processes(samples, np.array([3, 4]))
    assert figures.medians_ns == [10.0, 9.0]
    # calls 1-3, both processes: (slowest - fastest) / slowest = 0.5, 0.5, 0: the median is 0.5
    assert figures.slowest_share == 0.5
    assert figures.slowest_calls == [2, 1]  # a tie goes to the first
    assert samples_for_budget([1e6, 1e6], 50.0, budget_s=1.0) == 500
    assert samples_for_budget([1e9], 50.0, budget_s=0.1) == 3  # a few, however short the budget


def test_a_cluster_mesh_takes_as_many_devices_from_each_process():
    from types import SimpleNamespace

    from tuiperf.api import devices as run_devices
    from tuiperf.common.errors import ScenarioError

    cluster = [SimpleNamespace(id=i, process_index=i // 2) for i in range(4)]  # 2 processes x 2 devices
    run_devices.use_devices(cluster)
    run_devices.in_cluster(2)
    try:
        assert [d.id for d in run_devices.devices(2)] == [0, 2]
        assert [d.id for d in run_devices.devices(4)] == [0, 1, 2, 3]
        with pytest.raises(ScenarioError, match="ask for a multiple of 2"):
            run_devices.devices(3)
    finally:
        run_devices.use_devices([])
        run_devices.in_cluster(1)


@pytest.mark.slow
def test_a_cancel_stops_every_process_and_keeps_what_was_measured(scenario_dir):
    import threading

    from tuiperf.contract.events import SamplesAdded

    runner = ProcessRunner([str(scenario_dir)])
    cancel = threading.Event()

    def on_event(event: object) -> None:
        if isinstance(event, SamplesAdded):
            cancel.set()  # as soon as process 0 has streamed samples

    try:
        settings = RunSettings(samples=100_000, profile=False, devices=2, cluster=2, interleave="call")
        request = RunRequest(scenario="cluster-probe", variants=["sharded-sum"], settings=settings)
        result = runner.run(request, on_event, cancel)
        assert STARTED and still_running(STARTED) == []
    finally:
        runner.close()
    assert result.partial
    kept = result.variant("sharded-sum")
    assert kept is not None and kept.sampling.samples_ns and len(kept.sampling.samples_ns) < 100_000
