"""A variant that crashes its measuring process fails alone: a fresh process measures the others, in
plain runs, sweeps and runs over environments; restarts are bounded and said. And a Python that never
starts is given the run's time limit, not a fixed two minutes."""

from __future__ import annotations

import threading
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


@pytest.mark.slow
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
    assert any(isinstance(e, PhaseChanged) and "measuring the rest in a fresh process" in e.message for e in events)


@pytest.mark.slow
@pytest.mark.parametrize("order", ["sequential", "interleaved"])
def test_every_point_of_a_sweep_is_measured_without_the_crashed_variant(fixture_dir: str, order: str) -> None:
    request = crashing_request(fixture_dir, sweep_order=order)
    request.sweep = ("hang_after", ["0", "1"])
    result = run_by_runner(fixture_dir, request)
    assert result.sweep is not None and not result.partial and len(result.points) == 2
    for point in result.points:
        assert_crashed_alone(point)
    assert result.sweep.medians_ns["segfaults"] == [None, None] and result.sweep.slopes["segfaults"] is None


@pytest.mark.slow
def test_each_environment_measures_the_others_again_in_a_fresh_process(fixture_dir: str) -> None:
    result = run_in_environments(crashing_request(fixture_dir), [python_envs.current()])
    assert_crashed_alone(result)
    assert result.environments[0].crash is None and result.environments[0].error is None


@pytest.mark.slow
def test_the_callers_request_is_left_as_it_was(fixture_dir: str) -> None:
    request = crashing_request(fixture_dir)
    request.variants = ["ok"]
    runner = ProcessRunner([fixture_dir])
    try:
        runner.run(request)
    finally:
        runner.close()
    assert request.scenario_path is None and request.variants == ["ok"]


@pytest.mark.slow
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
        left_out = {gone.variant for gone in request.left_out}
        variants = [n for n in request.variants or names if n not in left_out]
        asked.append(variants)
        crash = Crash(how="was killed by SIGSEGV", variant=variants[0], phase="sample")
        header = RunHeader(scenario=ScenarioRef(id="s"), params={}, device=DeviceInfo(id="cpu:0"), options=RunOptions())
        partial = document.after_crash(header, [], {}, names, crash, duration_s=0.0)
        return Attempt(partial, crash, names)

    result = isolating(attempt, RunRequest("s", variants=names), None)
    assert len(asked) == MAX_RESTARTS + 1 and asked[-1] == names[MAX_RESTARTS:]
    assert result is not None and result.crash is not None and result.crash.variant == names[MAX_RESTARTS]
    assert [v.name for v in result.variants] == names
    assert [v.failure.error for v in result.variants[:MAX_RESTARTS] if v.failure] == [SEGFAULT] * MAX_RESTARTS
    assert f"({MAX_RESTARTS} restarts, at most {MAX_RESTARTS})" in result.warnings[0]


def test_a_cancelled_run_is_never_measured_again() -> None:
    """The user cancels while a variant hangs; the process killed after the cancel read as a crash, and
    a fresh one, no longer told to stop, measured the hung variant again for ever (the CLI ignored
    its Ctrl-C). After a cancel, the first attempt's result is the run's."""
    cancel = threading.Event()
    asked: list[RunRequest] = []

    def attempt(request: RunRequest, fresh: bool) -> Attempt:
        asked.append(request)
        cancel.set()  # the user pressed Ctrl-C while this process ran
        crash = Crash(how="was killed by SIGKILL", variant="hangs", phase="sample")
        header = RunHeader(scenario=ScenarioRef(id="s"), params={}, device=DeviceInfo(id="cpu:0"), options=RunOptions())
        partial = document.after_crash(header, [], {}, ["ok", "hangs"], crash, duration_s=0.0)
        return Attempt(partial, crash, ["ok", "hangs"])

    result = isolating(attempt, RunRequest("s", variants=["ok", "hangs"]), None, cancel.is_set)
    assert len(asked) == 1 and result is not None and result.crash is not None


@pytest.mark.slow
def test_a_python_that_never_starts_holds_the_run_for_its_time_limit_not_two_minutes(
    fixture_dir: str, tmp_path: Path
) -> None:
    hangs = tmp_path / "python"
    hangs.write_text("#!/bin/sh\nexec sleep 3600\n")
    hangs.chmod(0o755)
    request = crashing_request(fixture_dir, timeout_s=1.0)
    with pytest.raises(TuiperfError, match=r"hangs: its measuring process did not start within 15 s"):
        run_in_environments(request, [python_envs.PythonEnv(name="hangs", python=str(hangs))])


@pytest.mark.slow
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


# -- a timeout, a crash at one point, a crash in one of several processes ------------------------------
TIMEOUT_S = 5.0
TIMED_OUT = f"did not finish within --timeout {TIMEOUT_S:g} s at size=3 (raise it with --timeout)"


def sweep_of_sizes(fixture_dir: str, order: str, variants: list[str], **params: str) -> RunRequest:
    request = RunRequest(
        scenario="faults",
        variants=variants,
        params=params,
        scenario_dirs=[fixture_dir],
        settings=RunSettings(samples=10, profile=False, timeout_s=TIMEOUT_S, sweep_order=order),  # type: ignore[arg-type]
    )
    request.sweep = ("size", ["1", "2", "3"])
    return request


@pytest.mark.slow
@pytest.mark.parametrize("order", ["sequential", "interleaved"])
def test_a_sweep_whose_largest_point_times_out_measures_every_other_point_and_variant(
    fixture_dir: str, order: str
) -> None:
    # 'hangs' never finishes being built at size 3 (a compile past --timeout): it fails there alone.
    result = run_by_runner(fixture_dir, sweep_of_sizes(fixture_dir, order, ["ok", "hangs"], slow_from="3"))
    assert result.sweep is not None and len(result.points) == 3
    assert not result.partial and result.crash is None and result.error is None
    assert result.params["slow_from"] == 3  # the header keeps its parameters
    for point in result.points:
        assert point.variant("ok") is not None and point.variant("ok").measured  # type: ignore[union-attr]
    small, medium, large = (point.variant("hangs") for point in result.points)
    assert small is not None and small.measured and medium is not None and medium.measured
    assert large is not None and large.status == "failed" and large.failure == Failure(error=TIMED_OUT, phase="compile")
    assert result.sweep.medians_ns["hangs"][:2] != [None, None] and result.sweep.medians_ns["hangs"][2] is None
    assert any(TIMED_OUT in w for w in result.warnings)
    assert not any("crash" in w for w in result.warnings)


@pytest.mark.slow
@pytest.mark.parametrize("order", ["sequential", "interleaved"])
def test_a_crash_in_one_cell_of_a_grid_loses_only_that_cell(fixture_dir: str, order: str) -> None:
    request = sweep_of_sizes(fixture_dir, order, ["ok", "segfaults"])
    request.sweep, request.grid = ("size", ["1", "2"]), ("segfault_at", ["0", "2"])
    result = run_by_runner(fixture_dir, request)
    assert result.sweep is not None and len(result.points) == 4
    assert not result.partial and result.crash is None
    for point in result.points:
        assert point.variant("ok") is not None and point.variant("ok").measured  # type: ignore[union-attr]
        crashed = point.variant("segfaults")
        assert crashed is not None
        if point.params["size"] == 2 and point.params["segfault_at"] == 2:
            assert crashed.status == "failed" and crashed.failure.error == SEGFAULT
        else:
            assert crashed.measured, point.params


@pytest.mark.slow
def test_a_variant_that_crashed_one_of_three_processes_is_reported_from_the_other_two(
    fixture_dir: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TUIPERF_SEGFAULT_ONCE", str(tmp_path / "crashed-once"))
    request = RunRequest(
        scenario="faults",
        variants=["ok", "segfaults"],
        scenario_dirs=[fixture_dir],
        settings=RunSettings(samples=10, profile=False, processes=3),
    )
    result = run_by_runner(fixture_dir, request)
    assert (tmp_path / "crashed-once").exists()
    ok, crashed = result.variants
    assert ok.measured and len(ok.sampling.process_medians_ns) == 3 and len(ok.sampling.samples_ns) == 30
    assert crashed.measured and len(crashed.sampling.process_medians_ns) == 2 and len(crashed.sampling.samples_ns) == 20
    assert any(w.startswith("segfaults: measured in 2 of 3 processes") for w in result.warnings)


@pytest.mark.slow
def test_the_command_line_names_the_limit_and_how_to_raise_it(
    fixture_dir: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from tuiperf.cli import main

    argv = ["run", "faults", "--scenarios", fixture_dir, "--variants", "ok,hangs", "--set", "slow_from=3"]
    argv += ["--sweep", "size=2,3", "--samples", "10", "--no-profile", "--timeout", f"{TIMEOUT_S:g}"]
    main(argv)
    out = " ".join(capsys.readouterr().out.split())  # the report wraps its lines
    assert TIMED_OUT in out
    assert "params: " in out and "params: none" not in out
    assert "crash" not in out


def test_a_set_up_that_outlasts_the_limit_at_one_point_leaves_out_every_variant_there_only() -> None:
    """No variant owns a point's set-up: all of them fail there, and the run goes on at the others;
    past the last point is the sequential sweep's drift check, which measures the first again."""
    header = RunHeader(scenario=ScenarioRef(id="s"), params={}, device=DeviceInfo(id="cpu:0"), options=RunOptions())
    asked: list[RunRequest] = []

    def attempt(request: RunRequest, fresh: bool) -> Attempt:
        asked.append(request)
        if len(asked) == 1:
            crash = Crash(how="did not return within 5 s", variant=None, phase="setup")
            return Attempt(
                document.after_crash(header, [], {}, ["a", "b"], crash, duration_s=0.0), crash, ["a", "b"], 1, 5.0
            )
        if len(asked) == 2:
            crash = Crash(how="was killed by SIGSEGV", variant="b", phase="sample")
            return Attempt(
                document.after_crash(header, [], {}, ["a", "b"], crash, duration_s=0.0), crash, ["a", "b"], 2
            )
        return Attempt(document.run_result(header, [], duration_s=0.0), None, ["a", "b"])

    request = RunRequest("s", variants=["a", "b"], sweep=("n", [1, 2]))
    result = isolating(attempt, request, None)
    assert [(g.point, g.variant, g.phase) for g in asked[-1].left_out] == [
        (1, "a", "setup"),
        (1, "b", "setup"),
        (0, "b", "sample"),
    ]
    assert asked[-1].left_out[0].error == "did not finish within --timeout 5 s at n=2 (raise it with --timeout)"
    assert result is not None and result.warnings[0].startswith(
        "a, b at n=2 (its set-up) did not finish within --timeout 5 s (raise it with --timeout); "
        "b at n=1 crashed the measuring process and failed there"
    )
    assert "(2 restarts, at most 4)" in result.warnings[0] and request.left_out == []
