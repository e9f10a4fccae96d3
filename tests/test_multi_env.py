"""One run over several Python environments: processes started from each interpreter, taking turns.

The second environment is a venv of the same Python that sees this environment's packages through a
``.pth`` file: no download, yet a different interpreter path, which each process reports."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tuiperf.common.errors import PythonEnvError
from tuiperf.contract import options
from tuiperf.contract.protocol import ANALYSE, SAMPLE, START
from tuiperf.contract.request import RunRequest
from tuiperf.processes import python_envs
from tuiperf.processes.lockstep import Schedule
from tuiperf.processes.multi_env import run_in_environments
from tuiperf.results.environments import changes

FIXTURES = Path(__file__).parent / "fixtures"


def make_venv(folder: Path, *, with_packages: bool) -> Path:
    """A venv of this Python; ``with_packages``: it sees this environment's site-packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    if with_packages:
        site = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        Path(site, "this-environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


@pytest.fixture(scope="module")
def environments(tmp_path_factory):
    """``current``, ``other`` (same packages) and ``old`` (same packages; the fixture scenario behaves
    as an older version there), plus ``bare`` (no jax)."""
    root = tmp_path_factory.mktemp("envs")
    made = {name: make_venv(root / f"env-{name}", with_packages=name != "bare") for name in ("other", "old", "bare")}
    return {name: python_envs.PythonEnv(name=name, python=str(python)) for name, python in made.items()}


def request(scenario: str, **params) -> RunRequest:
    return RunRequest(
        scenario,
        params=params,
        scenario_dirs=[str(FIXTURES / "environments")],
        scenario_path=str(FIXTURES / "environments" / "versions.py"),
        settings=options.parsed({"samples": 40, "interleave": "call", "profile": False, "timeout_s": 60}),
    )


@pytest.mark.envs
def test_samples_come_from_each_interpreter_and_rounds_alternate(environments):
    schedule_seen: list[Schedule] = []
    envs = [python_envs.current(), environments["other"]]

    def make_schedule(count, cancel):
        schedule_seen.append(Schedule(count, cancel))
        return schedule_seen[0]

    result = run_in_environments(request("versions"), envs, make_schedule=make_schedule)

    assert [e.env.executable for e in result.environments] == [sys.executable, environments["other"].python]
    for env in ("current", "other"):
        same = result.variant(f"same @ {env}")
        assert same is not None and same.environment == env and same.sampling.stats.n == 40
    turns = schedule_seen[0].turns
    sampling = [(index, key[2]) for index, key in turns if key[1] == SAMPLE]
    rounds = [r for _, r in sampling]
    assert rounds == sorted(rounds)  # every process takes round r before anyone takes round r + 1
    for r in set(rounds):
        assert sorted(i for i, rr in sampling if rr == r) == [0, 1]  # ... and both take it
    assert [i for i, _ in sampling[:4]] == [0, 1, 1, 0]  # who goes first rotates with the round
    starts = [i for i, key in turns if key[1] == START]
    assert starts == [0, 1] and turns.index((1, (0, START, 0))) < turns.index((0, (0, SAMPLE, 0)))
    assert [key[1] for _, key in turns[-2:]] == [ANALYSE, ANALYSE]
    rows = {row.variant: row for row in changes(result)}
    assert set(rows) == {"same", "newer-api", "changed-result"}
    assert all(row.reference == "current" and row.environment == "other" for row in rows.values())


@pytest.mark.envs
def test_each_environment_keeps_its_own_failures_and_the_others_finish(environments):
    envs = [python_envs.current(), environments["old"], environments["bare"]]
    result = run_in_environments(request("versions", crash=True), envs)

    by_name = {e.name: e for e in result.environments}
    assert by_name["current"].error is None
    assert by_name["old"].error is None  # its crashed variant failed alone; a fresh process measured the rest
    assert "its Python has no msgspec, which measuring needs" in by_name["bare"].error
    assert result.variant("changed-result @ current").measured
    crashed = result.variant("changed-result @ old")
    assert (
        crashed.status == "failed" and crashed.failure.error == "crashed the measuring process: was killed by SIGKILL"
    )
    assert result.variant("same @ old").measured
    failed = result.variant("newer-api @ old")
    assert failed.status == "failed" and "newer_api" in failed.failure.error
    assert result.variant("newer-api @ current").measured


@pytest.mark.envs
def test_a_version_that_changes_the_result_is_a_finding(environments):
    envs = [python_envs.current(), environments["old"]]
    result = run_in_environments(request("versions"), envs)

    found = [m for m in result.equivalence.mismatches if m.a == "changed-result @ old"]
    assert [(m.b, m.quantity) for m in found] == [("changed-result @ current", "output values")]
    assert "max relative difference 1" in found[0].detail
    assert any("changed-result @ old does not compute the same result" in w for w in result.warnings)
    assert not [m for m in result.equivalence.mismatches if m.a == "same @ old"]


def test_an_unknown_environment_is_refused_before_anything_starts(tmp_path, monkeypatch):
    from tuiperf.processes.runner import ProcessRunner

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    runner = ProcessRunner()
    try:
        with pytest.raises(PythonEnvError, match=r"no environment .nope.*known: current"):
            runner.run(RunRequest("versions", environments=["current", "nope"]))
    finally:
        runner.close()


def test_a_ratio_says_whether_its_interval_covers_process_spread():
    """No constant "process floor": an interval that includes this machine's process-to-process spread
    stands alone; one that does not (no calibration, or stored before) says so, in the ratio's unit."""
    from tuiperf.results.environments import EnvironmentChange
    from tuiperf.results.model import Interval

    versions = ["jax 0.7.2 → 0.10.2"]
    honest = Interval(covers="rounds and processes", processes="calibrated")
    small = EnvironmentChange("mlp", "old", "new", 0.985, (0.98, 0.99), 1e-9, versions)
    large = EnvironmentChange("mlp", "old", "new", 0.5, (0.48, 0.52), 1e-9, versions, honest)
    assert small.sentence() == (
        "jax 0.7.2 → 0.10.2: mlp 1.5 % faster in these two processes, undecided [95 % CI 1.0–2.0 %, "
        "one process each: process-to-process spread not included]"
    )
    assert large.sentence() == "jax 0.7.2 → 0.10.2: mlp 2× as fast [95 % CI 1.92–2.08×, p < 1e-6]"
    assert large.sentence(with_versions=False) == "mlp 2× as fast [95 % CI 1.92–2.08×, p < 1e-6]"
