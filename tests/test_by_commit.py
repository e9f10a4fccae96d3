"""Runs by commit: a result's git state, medians per commit, and the commit where a step is marked."""

from __future__ import annotations

import subprocess
from pathlib import Path

import msgspec
import pytest

from tests import factories
from tuiperf.cli import main
from tuiperf.results.by_commit import by_commit
from tuiperf.results.history import History
from tuiperf.results.machine import Watch
from tuiperf.results.model import RunResult, Source
from tuiperf.results.source import source_of


def at_commit(commit: str, medians: dict[str, float], minute: int, dirty: bool = False) -> RunResult:
    result = factories.result({name: factories.steady(m) for name, m in medians.items()}, scenario="s")
    assert result.env is not None
    env = msgspec.structs.replace(result.env, source=Source(commit=commit * 8, branch="main", dirty=dirty))
    return msgspec.structs.replace(result, env=env, started_at=f"2026-12-01T10:{minute:02d}:00+00:00")


def series() -> list[tuple[int, RunResult]]:
    """Five commits; "a" steps up by 20 % at ccccc and stays; "b" does not move (within its intervals)."""
    a = {"aaaaa": 1000.0, "bbbbb": 1001.0, "ccccc": 1200.0, "ddddd": 1201.0, "eeeee": 1200.0}
    return [(i, at_commit(c, {"a": m, "b": 500.0}, i)) for i, (c, m) in enumerate(a.items(), 1)]


def test_a_step_at_one_commit_is_marked_there_alone() -> None:
    commits = by_commit(series())
    assert [c.commit[:5] for c in commits] == ["aaaaa", "bbbbb", "ccccc", "ddddd", "eeeee"]
    steps = [(c.commit[:5], name, round(m.step, 3)) for c in commits for name, m in c.variants.items() if m.step]
    assert steps == [("ccccc", "a", round(1200 / 1001, 3))]
    c = commits[2].variants["a"]
    assert c.low_ns <= 1200.0 <= c.high_ns and c.runs == 1


def test_runs_at_one_commit_are_one_point_and_a_dirty_tree_is_its_own() -> None:
    runs = [
        (1, at_commit("aaaaa", {"a": 1000.0}, 1)),
        (2, at_commit("aaaaa", {"a": 1010.0}, 2)),
        (3, at_commit("aaaaa", {"a": 1300.0}, 3, dirty=True)),
        (4, at_commit("aaaaa", {"a": 1020.0}, 4)),
    ]
    commits = by_commit(runs)
    assert [(c.label, c.run_ids) for c in commits] == [("aaaaaaaaaa", (1, 2, 4)), ("aaaaaaaaaa*", (3,))]
    clean = commits[0].variants["a"]
    assert clean.median_ns == pytest.approx(1010.0) and clean.runs == 3
    assert clean.low_ns < 1000.0 and clean.high_ns > 1020.0  # the span of the three runs' intervals
    assert commits[1].variants["a"].step == pytest.approx(1300.0 / 1010.0)


def test_history_by_commit_prints_the_commits_and_marks_the_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "h.sqlite"
    with History(path) as history:
        for _, result in series():
            history.add(result)
        history.add(factories.result({"a": factories.steady(900.0)}, scenario="s"))  # no commit: left out
    assert main(["history", "--history", str(path), "--by-commit", "s", "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert "s by commit (5 commits, oldest first; 1 step beyond the 95 % intervals" in out
    step_lines = [line for line in out.splitlines() if "▲" in line or "▼" in line]
    assert len(step_lines) == 1 and step_lines[0].startswith("cccccccccc") and "+19.9 %" in step_lines[0]


def test_history_by_commit_counts_one_commit_in_the_singular(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "h.sqlite"
    with History(path) as history:
        history.add(series()[0][1])
    assert main(["history", "--history", str(path), "--by-commit", "s", "--width", "200"]) == 0
    assert "s by commit (1 commit, oldest first; no steps beyond" in capsys.readouterr().out


@pytest.mark.slow
def test_a_result_made_in_a_git_repository_holds_its_commit_and_dirty_flag(tmp_path: Path) -> None:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(tmp_path), *args], capture_output=True, text=True, check=True).stdout

    git("init", "-q", "-b", "trunk")
    scenario = tmp_path / "my_scenario.py"
    scenario.write_text("scenario = None\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    commit = git("rev-parse", "HEAD").strip()

    clean = Watch(str(scenario)).finish(factories.result({"a": [1.0] * 10}))
    assert clean.env is not None and clean.env.source == Source(commit, "trunk", False, str(tmp_path.resolve()))
    scenario.write_text("scenario = 1\n")
    dirty = Watch(str(scenario)).finish(factories.result({"a": [1.0] * 10}))
    assert dirty.env is not None and dirty.env.source is not None and dirty.env.source.dirty
    assert source_of(tmp_path.parent / "not-a-folder" / "x.py") is None
