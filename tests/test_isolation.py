"""A variant that crashes its measuring process fails alone: a fresh process measures the others, in
plain runs, sweeps and runs over environments; restarts are bounded and said. And a Python that never
starts is given the run's time limit, not a fixed two minutes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuiperf.common.errors import TuiperfError, UnknownScenario
from tuiperf.contract.events import Event, PhaseChanged, RunFailed
from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import ResolvedRequest, RunRequest
from tuiperf.processes import python_envs
from tuiperf.processes.isolation import MAX_RESTARTS, Attempt, isolating
from tuiperf.processes.multi_env import run_in_environments
from tuiperf.processes.runner import ProcessRunner
from tuiperf.results import document
from tuiperf.results.document import RunHeader
from tuiperf.results.environments import base_name
from tuiperf.results.model import Crash, DeviceInfo, Failure, RunOptions, RunResult, ScenarioRef

SEGFAULT = "crashed the measuring process: was killed by SIGSEGV"


def crashing_request(fixture_dir: str, **settings: object) -> RunRequest:
    return RunRequest(
        scenario="faults",
        variants=["ok", "segfaults"],
        params={"segfault": "true"},
        scenario_dirs=[fixture_dir],
        settings=RunSettings(samples=20, profile=False, **settings),  # type: ignore[arg-type]
    )


def assert_crashed_alone(result: RunResult) -> None:
    assert [base_name(v) for v in result.variants] == ["ok", "segfaults"]
    ok, crashed = result.variants
    assert ok.measured and len(ok.sampling.samples_ns) == 20
    assert crashed.status == "failed" and crashed.failure == Failure(error=SEGFAULT, phase="compile")


def run_by_runner(fixture_dir: str, request: RunRequest) -> RunResult:
    runner = ProcessRunner([fixture_dir])
    try:
        return runner.run(request)
    finally:
        runner.close()


def test_a_variant_that_segfaults_fails_alone_and_the_others_are_measured(fixture_dir: str) -> None:
    runner = ProcessRunner([fixture_dir])
    events: list[Event] = []
    try:
        result = runner.run(crashing_request(fixture_dir), events.append)
    finally:
        runner.close()
    assert not result.partial and result.crash is None and result.error is None
    assert_crashed_alone(result)
    assert result.options.variants == ["ok", "segfaults"]
    assert result.warnings[0].startswith("segfaults crashed the measuring process and failed")
    assert f"(1 restart, at most {MAX_RESTARTS})" in result.warnings[0]
    assert not any(isinstance(e, RunFailed) for e in events)
    assert any(isinstance(e, PhaseChanged) and "measuring the others in a fresh one" in e.message for e in events)


@pytest.mark.parametrize("order", ["sequential", "interleaved"])
def test_every_point_of_a_sweep_is_measured_without_the_crashed_variant(fixture_dir: str, order: str) -> None:
    request = crashing_request(fixture_dir, sweep_order=order)
    request.sweep = ("hang_after", ["0", "1"])
    result = run_by_runner(fixture_dir, request)
    assert result.sweep is not None and not result.partial and len(result.points) == 2
    for point in result.points:
        assert_crashed_alone(point)
    assert result.sweep.medians_ns["segfaults"] == [None, None] and result.sweep.slopes["segfaults"] is None


def test_each_environment_measures_the_others_again_in_a_fresh_process(fixture_dir: str) -> None:
    result = run_in_environments(crashing_request(fixture_dir), [python_envs.current()])
    assert_crashed_alone(result)
    assert result.environments[0].crash is None and result.environments[0].error is None


def test_the_callers_request_is_left_as_it_was(fixture_dir: str) -> None:
    request = crashing_request(fixture_dir)
    request.variants = ["ok"]
    runner = ProcessRunner([fixture_dir])
    try:
        runner.run(request)
    finally:
        runner.close()
    assert request.scenario_path is None and request.variants == ["ok"]


def test_the_scenario_is_resolved_before_anything_is_measured(fixture_dir: str) -> None:
    # resolve() was a step inside run(): now what measures takes only a ResolvedRequest
    request = RunRequest(scenario="faults", scenario_dirs=[fixture_dir])
    runner = ProcessRunner([fixture_dir])
    try:
        resolved = runner.resolve(request)
        assert isinstance(resolved, ResolvedRequest) and runner.resolve(resolved) is resolved
        assert resolved.scenario_path == str(Path(fixture_dir) / "faults.py")
        assert resolved.variants is not None and {"ok", "segfaults"} <= set(resolved.variants)
        with pytest.raises(UnknownScenario, match="no scenario 'nope'"):
            runner.resolve(RunRequest(scenario="nope"))
        assert runner._measuring is None and runner._spare is None  # nothing started to measure yet
    finally:
        runner.close()
    assert request.scenario_path is None and request.variants is None
    with pytest.raises(ValueError, match="names the file"):
        ResolvedRequest(scenario="faults")


def test_restarts_are_bounded_and_the_last_crash_ends_the_run() -> None:
    """Every attempt crashes in its first variant: a fresh process for each of MAX_RESTARTS, then the
    run stops as a crash always did, with the variants that crashed before it failed in their place."""
    names = [f"v{i}" for i in range(MAX_RESTARTS + 3)]
    asked: list[list[str]] = []

    def attempt(request: RunRequest, fresh: bool) -> Attempt:
        variants = list(request.variants or names)
        asked.append(variants)
        crash = Crash(how="was killed by SIGSEGV", variant=variants[0], phase="sample")
        header = RunHeader(scenario=ScenarioRef(id="s"), params={}, device=DeviceInfo(id="cpu:0"), options=RunOptions())
        partial = document.after_crash(header, [], {}, variants, crash, duration_s=0.0)
        return Attempt(partial, crash, variants)

    result = isolating(attempt, RunRequest("s", variants=names), None)
    assert len(asked) == MAX_RESTARTS + 1 and asked[-1] == names[MAX_RESTARTS:]
    assert result is not None and result.crash is not None and result.crash.variant == names[MAX_RESTARTS]
    assert [v.name for v in result.variants] == names
    assert [v.failure.error for v in result.variants[:MAX_RESTARTS] if v.failure] == [SEGFAULT] * MAX_RESTARTS
    assert f"({MAX_RESTARTS} restarts, at most {MAX_RESTARTS})" in result.warnings[0]


def test_a_python_that_never_starts_holds_the_run_for_its_time_limit_not_two_minutes(
    fixture_dir: str, tmp_path: Path
) -> None:
    hangs = tmp_path / "python"
    hangs.write_text("#!/bin/sh\nexec sleep 3600\n")
    hangs.chmod(0o755)
    request = crashing_request(fixture_dir, timeout_s=1.0)
    with pytest.raises(TuiperfError, match=r"hangs: its measuring process did not start within 15 s"):
        run_in_environments(request, [python_envs.PythonEnv(name="hangs", python=str(hangs))])


def test_an_interleaved_sweep_of_every_variant_blames_the_one_that_crashed(fixture_dir: str) -> None:
    # No variants named (the command line's default): the crash comes before any point's RunStarted.
    request = crashing_request(fixture_dir, sweep_order="interleaved")
    request.variants = None
    request.sweep = ("hang_after", ["0", "1000000"])
    result = run_by_runner(fixture_dir, request)
    assert result.sweep is not None and not result.partial and len(result.points) == 2
    for point in result.points:
        assert [base_name(v) for v in point.variants] == ["ok", "hangs", "chatty", "segfaults"]
        assert all(v.measured for v in point.variants[:3])
        assert point.variants[3].status == "failed" and point.variants[3].failure.error == SEGFAULT
    assert request.variants is None
