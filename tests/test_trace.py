"""`tuiperf trace`: a profiler trace of steady-state calls is written, and bad requests are refused."""

import pytest

from tuiperf.common.errors import ParamError
from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.measuring.trace import trace


@pytest.mark.slow
def test_a_trace_of_steady_state_calls_is_written(fixture_dir, tmp_path):
    request = RunRequest(
        scenario="tiny", params={"size": "4"}, scenario_dirs=[fixture_dir], settings=RunSettings(dispatch="sync")
    )
    files = trace(request, "jax.jit", tmp_path / "traces", calls=5)
    assert files and files[0].name.startswith("perfetto") and files[0].stat().st_size > 0
    assert all(path.is_relative_to(tmp_path / "traces") for path in files)


def test_an_unknown_variant_or_no_calls_is_refused(fixture_dir, tmp_path):
    request = RunRequest(scenario="tiny", scenario_dirs=[fixture_dir], settings=RunSettings(dispatch="sync"))
    with pytest.raises(ParamError, match="unknown variant 'nope'"):
        trace(request, "nope", tmp_path)
    with pytest.raises(ParamError, match="at least 1"):
        trace(request, "jax.jit", tmp_path, calls=0)


def _gpu_trace(calls: list[tuple[float, float]], kernels: list[tuple[float, float]]) -> dict:
    """A trace shaped like JAX's on a GPU: a host process with the marked calls, a device process with kernels."""
    events: list[dict] = [
        {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/host:CPU"}},
        {"ph": "M", "pid": 2, "name": "process_name", "args": {"name": "/device:GPU:0"}},
    ]
    events += [{"ph": "X", "pid": 1, "tid": 1, "ts": s, "dur": e - s, "name": "tuiperf_call"} for s, e in calls]
    events += [{"ph": "X", "pid": 2, "tid": 7, "ts": s, "dur": e - s, "name": "fusion"} for s, e in kernels]
    return {"traceEvents": events}


def test_device_activity_tells_host_bound_from_device_bound():
    from tuiperf.results.device_activity import activity

    calls = [(0.0, 100.0), (200.0, 300.0), (400.0, 500.0)]
    short = [(s + 10, s + 30) for s, _ in calls] + [(s + 50, s + 70) for s, _ in calls]  # 40 of 100 µs busy
    found, _ = activity(_gpu_trace(calls, short))
    assert found is not None and found.bound == "host-bound"
    assert (found.calls, found.busy_us, found.kernels_per_call, found.gap_us, found.lead_in_us) == (3, 40, 2, 20, 10)
    assert abs(found.busy_share - 0.4) < 1e-9 and found.devices == ("/device:GPU:0",)
    long = [(s + 5, s + 95) for s, _ in calls] + [(s + 80, s + 99) for s, _ in calls]  # overlapping streams
    found, _ = activity(_gpu_trace(calls, long))
    assert found is not None and found.bound == "device-bound" and found.busy_us == 94 and found.kernels_per_call == 1


def test_device_activity_does_not_apply_to_a_cpu_trace(fixture_dir, tmp_path):
    from tuiperf.results.device_activity import activity, load_trace

    request = RunRequest(
        scenario="tiny", params={"size": "4"}, scenario_dirs=[fixture_dir], settings=RunSettings(dispatch="sync")
    )
    files = trace(request, "jax.jit", tmp_path / "traces", calls=3)
    recorded = load_trace(files[0])
    marked = [e for e in recorded["traceEvents"] if e.get("name") == "tuiperf_call" and e.get("ph") == "X"]
    assert len(marked) == 3  # every call's window is in the trace
    found, why = activity(recorded)
    assert found is None and why.startswith("does not apply")
