"""`tuiperf trace`: a profiler trace of steady-state calls is written, and bad requests are refused."""

import pytest

from tuiperf.common.errors import ParamError
from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.measuring.trace import trace


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
