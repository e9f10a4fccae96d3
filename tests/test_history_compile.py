"""Compile time in the history (issue #53): a run measured with ``--measure compile`` listed with its compile
times, marked as such; a series of its own over runs and commits, never points of a per-call line; every
export of it (HTML included) carrying its compile figures."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import msgspec
import pytest

from tests import factories
from tests.test_by_commit import at_commit
from tests.test_compile_time import compile_sweep, with_stages
from tuiperf.cli import main
from tuiperf.results.by_commit import as_sweep, by_commit
from tuiperf.results.history import APPLICATION_ID, MIGRATIONS, History, trend
from tuiperf.results.html_page import page
from tuiperf.results.model import RunResult
from tuiperf.results.resultfile import encode


def compiled(result: RunResult, totals: dict[str, float]) -> RunResult:
    """``result`` measured with --measure compile: each variant's total compile median (ms) as given."""
    return with_stages(result, totals)


def pair(minute: int = 0, scenario: str = "s") -> tuple[RunResult, RunResult]:
    """A run that measured calls only, then one that measured compile time too (scan 30 ms, unrolled 60 ms)."""
    calls = factories.result(
        {"scan": factories.steady(1000.0), "unrolled": factories.steady(1200.0)}, scenario=scenario
    )
    compile_run = compiled(
        factories.result({"scan": factories.steady(1010.0), "unrolled": factories.steady(1190.0)}, scenario=scenario),
        {"scan": 30.0, "unrolled": 60.0},
    )
    return (
        msgspec.structs.replace(calls, started_at=f"2026-12-01T10:{minute:02d}:00+00:00"),
        msgspec.structs.replace(compile_run, started_at=f"2026-12-01T10:{minute + 1:02d}:00+00:00"),
    )


def stored(tmp_path: Path, *runs: RunResult) -> tuple[Path, list[int]]:
    path = tmp_path / "h.sqlite"
    with History(path) as history:
        return path, [history.add(run) for run in runs]


def test_a_compile_run_lists_with_its_compile_times_and_a_call_run_with_none(tmp_path: Path) -> None:
    calls, compile_run = pair()
    path, (call_id, compile_id) = stored(tmp_path, calls, compile_run)
    with History(path, readonly=True) as history:
        listed = {run.id: run for run in history.list()}
        only = history.list(measure="compile")
        assert history.count(measure="compile") == 1
    assert listed[call_id].compile_ms == {} and not listed[call_id].measured_compile
    figure = listed[compile_id].compile_ms["unrolled"]
    total = compile_run.variant("unrolled").stages.total
    assert (figure.median_ms, figure.low_ms, figure.high_ms) == (total.median_ms, *total.ci95_ms)
    assert listed[compile_id].medians["unrolled"] == compile_run.variant("unrolled").sampling.stats.median_ns
    assert [run.id for run in only] == [compile_id]
    assert listed[compile_id].compile_texts(", ")[1] == "unrolled 60.0 ms [58.8 ms–61.2 ms]"


def test_a_compile_sweep_lists_each_points_compile_times(tmp_path: Path) -> None:
    path, _ = stored(tmp_path, compile_sweep())
    with History(path, readonly=True) as history:
        [run] = history.list()
    assert [{name: f.median_ms for name, f in point.items()} for point in run.compile_points] == [
        {"scan": 30.0, "unrolled": 40.0},
        {"scan": 30.0, "unrolled": 160.0},
        {"scan": 30.0, "unrolled": 640.0},
    ]
    assert run.compile_texts(" · ")[2] == "steps=128: scan 30.0 ms · unrolled 640 ms"


def test_the_cli_listing_gives_compile_times_a_column_of_their_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls, compile_run = pair()
    path, _ = stored(tmp_path, calls)
    assert main(["--history", str(path), "history", "--width", "80"]) == 0
    assert "compile" not in capsys.readouterr().out  # a history of call runs lists as it did
    path, (_, compile_id) = stored(tmp_path / "b", calls, compile_run)
    assert main(["--history", str(path), "history", "--width", "80"]) == 0
    out = capsys.readouterr().out
    record = out[out.index(f"run {compile_id}\n") :]
    assert "compile time: trace + lower + compile, median of repeats [95 % CI]" in " ".join(out.split())
    assert "    medians scan 1.01 µs, unrolled 1.19 µs\n" in record
    assert "    compile time scan 30.0 ms [29.4 ms–30.6 ms],\n      unrolled 60.0 ms [58.8 ms–61.2 ms]" in record
    assert main(["--history", str(path), "history", "--measure", "compile", "--width", "200"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("run "))
    assert out.startswith("1 run measured with --measure compile in") and header.split()[-2:] == ["compile", "time"]


def test_a_history_older_than_compile_times_shows_them_read_only_and_fills_them_in_when_migrated(
    tmp_path: Path,
) -> None:
    path = tmp_path / "v3.sqlite"
    db = sqlite3.connect(path)
    for step in MIGRATIONS[:3]:
        db.executescript(step)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute("PRAGMA user_version = 3")
    for result in pair():
        db.execute(
            "INSERT INTO runs (scenario, started_at, device, dispatch, params, jax_version, status, source_sha256,"
            " document) VALUES ('s', ?, 'cpu:0', 'sync', '', '0.10.2', 'complete', '', ?)",
            (result.started_at, encode(result)),
        )
    db.commit()
    db.close()
    for readonly in (True, False):  # read as it is (from the documents), then migrated (the table filled)
        with History(path, readonly=readonly) as history:
            assert [sorted(run.compile_ms) for run in history.list()] == [["scan", "unrolled"], []]
            assert history.count(measure="compile") == 1
    with History(path, readonly=True) as history:
        assert history._db.execute("SELECT count(*) FROM compile_medians").fetchone() == (2,)


def test_a_trend_keeps_compile_times_a_series_apart_from_the_medians_per_call(tmp_path: Path) -> None:
    path, _ = stored(tmp_path, *pair())
    with History(path, readonly=True) as history:
        sweep = trend(history.list())
    assert sweep.medians_ns["scan"] == [pytest.approx(1000.0), pytest.approx(1010.0)]  # per call, both runs
    assert sweep.compile_ms == {"scan": [None, 30.0], "unrolled": [None, 60.0]}  # the compile run's alone


def compile_commits() -> list[tuple[int, RunResult]]:
    """Three commits, each measured with --measure compile: unrolled's compile steps up 2x at bbbbb."""
    runs = []
    for i, (commit, unrolled) in enumerate((("aaaaa", 40.0), ("bbbbb", 80.0), ("ccccc", 80.5)), 1):
        runs.append(
            (
                i,
                compiled(
                    at_commit(commit, {"scan": 1000.0, "unrolled": 1200.0}, i), {"scan": 30.0, "unrolled": unrolled}
                ),
            )
        )
    return runs


def test_by_commit_marks_a_compile_step_apart_from_the_calls() -> None:
    commits = by_commit(compile_commits())
    assert [c.compile["unrolled"].median_ns for c in commits] == [40e6, 80e6, 80.5e6]
    assert [c.compile["unrolled"].step for c in commits] == [None, pytest.approx(2.0), None]
    assert all(m.step is None for c in commits for m in c.variants.values())  # the calls did not move
    sweep = as_sweep(commits)
    assert sweep.compile_ms["unrolled"] == [40.0, 80.0, 80.5] and sweep.medians_ns["unrolled"][0] == 1200.0


def test_history_by_commit_measure_compile_prints_compile_times_per_commit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "h.sqlite"
    with History(path) as history:
        for _, result in compile_commits():
            history.add(result)
    assert main(["--history", str(path), "history", "--by-commit", "s", "--measure", "compile", "--width", "120"]) == 0
    out = capsys.readouterr().out
    assert "s: compile time (trace + lower + compile, repeated) by commit (3 commits" in " ".join(out.split())
    row = next(line for line in out.splitlines() if line.startswith("bbbbbbbbbb") and "unrolled" in line)
    assert "80.0 ms" in row and "78.4 ms – 81.6 ms" in row and "▲ +100.0 %" in row
    assert main(["--history", str(path), "history", "--by-commit", "s", "--width", "120"]) == 0
    out = capsys.readouterr().out
    assert "compile" not in out and "1.20 µs" in out  # the medians per call, as before


def test_the_html_page_carries_the_runs_compile_times_each_points_and_by_commit() -> None:
    runs = compile_commits()
    text = page(runs[-1][1], by_commit(runs))
    assert "<h2>Compile time</h2>" in text and "<td>80.5 ms [78.9 ms – 82.1 ms]</td>" in text
    assert "<h2>Compile time by commit</h2>" in text and "▲ +100.0 %" in text
    sweep_page = page(compile_sweep())
    assert "<h2>Compile time, sweep over steps (3 points)</h2>" in sweep_page
    assert "steps=128: 640 ms [627 ms – 653 ms]" in sweep_page  # the last point's tip in its plot
    assert "Compile time" not in page(factories.result({"a": factories.steady(1000.0)}))


def test_a_grids_markdown_gives_every_cells_compile_time() -> None:
    from tests.test_compile_time import document, with_stages
    from tuiperf.results.export import markdown

    base = factories.grid({"scan": [10.0] * 4, "unrolled": [12.0] * 4}, ("steps", (8, 32)), ("size", (4, 64)))
    points = [with_stages(p, {"scan": 30.0, "unrolled": 5.0 * p.params["steps"]}) for p in base.points]
    header = factories.header(params={"steps": 8, "size": 4})
    grid = document.sweep_result("steps", [8, 32], points, header, duration_s=4.0, columns=("size", [4, 64]))
    text = markdown(grid)
    assert "### Compile time over `steps` × `size`" in text
    assert "| `steps=32, size=64` | 30.0 ms [29.4 ms–30.6 ms] | 160 ms [157 ms–163 ms] |" in text


def test_by_commit_follows_the_newest_single_run_when_the_newest_run_is_a_sweep(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sweep stored last (the loop-compile sweep of this issue's note) left `--by-commit` with no run:
    its setting, a sweep's, matched no single run."""
    single = at_commit("aaaaa", {"a": 1000.0}, 1)
    sweep = msgspec.structs.replace(
        factories.sweep({"a": [1.0, 2.0]}, values=(1, 2), scenario="s"), started_at="2026-12-01T11:00:00+00:00"
    )
    path, _ = stored(tmp_path, single, sweep)
    assert main(["--history", str(path), "history", "--by-commit", "s", "--width", "120"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("s by commit (1 commit,") and "aaaaaaaaaa" in out
