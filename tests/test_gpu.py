"""Checks that need a GPU: run by scripts/gpu_check.sh on a GPU machine (TUIPERF_GPU_TESTS=1), skipped
everywhere else, CI included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(os.environ.get("TUIPERF_GPU_TESTS") != "1", reason="needs a GPU (scripts/gpu_check.sh)"),
]
GPU_FIXTURES = str(Path(__file__).parent / "fixtures" / "gpu")


@pytest.fixture
def gpu_runner(fixture_dir):
    from tuiperf.processes.runner import ProcessRunner

    runner = ProcessRunner([fixture_dir, GPU_FIXTURES])
    yield runner
    runner.close()


def test_a_gpu_run_is_recorded_as_async_with_device_memory(gpu_runner):
    result = gpu_runner.run(
        RunRequest(scenario="tiny", device="gpu", settings=RunSettings(samples=50, profile=False, dispatch="sync"))
    )
    assert result.device.platform in ("gpu", "cuda", "rocm")
    assert result.options.dispatch == "async" and result.env is not None and result.env.dispatch == "async"
    assert any("always dispatched asynchronously" in w for w in result.warnings)
    assert result.memory is not None and (result.memory.device_peak_bytes_in_use or 0) > 0
    plain = result.variant("jax.jit")
    assert plain is not None and plain.program.memory is not None and plain.program.memory.arguments == 2 * 8 * 4


def test_a_variant_out_of_device_memory_fails_alone(gpu_runner):
    result = gpu_runner.run(RunRequest(scenario="oom", device="gpu", settings=RunSettings(samples=20, profile=False)))
    fits, too_big = result.variant("fits"), result.variant("too-big")
    assert fits is not None and fits.measured
    assert too_big is not None and too_big.status == "failed"
    error = too_big.failure.error if too_big.failure else ""
    assert "RESOURCE_EXHAUSTED" in error or "memory" in error.lower()


def test_a_gpu_trace_says_how_busy_the_device_was(fixture_dir, tmp_path):
    from tuiperf.measuring.trace import trace
    from tuiperf.results.device_activity import activity, load_trace

    request = RunRequest(scenario="tiny", device="gpu", params={"size": "4096"}, scenario_dirs=[fixture_dir])
    files = trace(request, "jax.jit", tmp_path, calls=20)
    found, why = activity(load_trace(files[0]))
    assert found is not None, why
    assert found.calls == 20 and 0 < found.busy_share <= 1 and found.kernels_per_call >= 1
