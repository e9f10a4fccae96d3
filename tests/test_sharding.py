"""Sharded programs on 1, 2 and 4 CPU devices: each case runs in a fresh process started with that many
host devices (the device count is fixed when JAX starts), through the same run as any scenario."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import json, sys
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
from tuiperf.api.scenario import Bench
from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.measuring.inprocess import InProcessRunner, set_dispatch
from tuiperf.measuring.prepare import place_inputs
from tuiperf.measuring.timing import blocker_for

set_dispatch("sync")
n = len(jax.devices())
mesh = Mesh(np.array(jax.devices()), ("d",))
sharded = jax.device_put(jnp.ones((4 * n, 2)), NamedSharding(mesh, P("d")))
elsewhere = jax.device_put(jnp.ones(3), jax.devices()[-1])
bench = Bench(lambda a, b: a, sharded, elsewhere)
warnings = place_inputs(bench, jax.devices()[0])
out = jax.jit(lambda a: a * 2, out_shardings=NamedSharding(mesh, P("d")))(bench.args[0])
blocker_for(out)(out)
tiny = dict(devices=n, batch=4 * n, width=4, hidden=4 * n)
quick = RunSettings(samples=5, profile=False, devices=n)
result = InProcessRunner().run(RunRequest(scenario="sharded-step", params=tiny, settings=quick))
print(json.dumps(dict(
    placed_devices=len(bench.args[0].sharding.device_set),
    moved_to=str(list(bench.args[1].devices())[0]),
    warnings=warnings,
    shards_ready=all(s.data.is_ready() for s in out.addressable_shards),
    shards=len(out.addressable_shards),
    count=result.device.count,
    statuses={v.name: v.status for v in result.variants},
    errors={v.name: v.failure.error for v in result.variants if v.failure},
    mismatches=[(m.a, m.quantity) for m in result.equivalence.mismatches],
    notes=list(result.equivalence.notes),
    checked=result.equivalence.checked,
    memory_devices={v.name: v.program.memory.devices for v in result.variants if v.program.memory},
)))
"""


def run_with_devices(n: int) -> dict:
    env = {**os.environ, "JAX_NUM_CPU_DEVICES": str(n), "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 4])  # one device, and several (2 took as long and decided nothing new)
def test_sharded_variants_are_measured_on_n_devices(n):
    seen = run_with_devices(n)
    # a sharded input keeps its sharding; a single-device input elsewhere is committed to the run's device
    assert seen["placed_devices"] == n and seen["moved_to"] == "cpu:0"
    assert seen["shards"] == n and seen["shards_ready"]
    assert seen["count"] == n
    assert set(seen["statuses"].values()) == {"ok"}, seen["errors"]
    # gathered outputs (loss and weights after three steps) agree with the one-device step; XLA's FLOPs
    # may differ (collectives; the replicated step computes everything n times): a note, not a mismatch
    assert len(seen["checked"]) == 5 and seen["mismatches"] == []
    assert all("FLOPs" in note for note in seen["notes"]), seen["notes"]
    assert any(note.startswith("replicated-jax.jit") for note in seen["notes"]) == (n > 1), seen["notes"]
    assert seen["memory_devices"]["data-parallel-jax.jit"] == n and seen["memory_devices"]["one-device"] == 1


def test_a_mesh_larger_than_the_run_is_a_clear_error():
    from tuiperf.api import devices as run_devices
    from tuiperf.common.errors import ScenarioError

    run_devices.use_devices(["cpu:0", "cpu:1"])
    try:
        assert run_devices.devices(2) == ["cpu:0", "cpu:1"]
        with pytest.raises(ScenarioError, match="asked for 4 devices, this run has 2: run with --devices 4"):
            run_devices.devices(4)
    finally:
        run_devices.use_devices([])
