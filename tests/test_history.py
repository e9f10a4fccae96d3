"""The run history: round trip, migrations, concurrent and killed writers, files it must not touch."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import msgspec
import pytest
from factories import result, steady

from tuiperf.catalog.folders import scenario_files
from tuiperf.common.errors import TuiperfError
from tuiperf.results.history import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, History, HistoryError
from tuiperf.results.resultfile import encode


def test_a_stored_run_comes_back_whole_and_lists_with_its_medians(tmp_path):
    run = result({"jit": steady(1000.0), "eager": steady(9000.0)}, scenario="tiny", params={"size": 8})
    run = msgspec.structs.replace(run, started_at="2026-11-23T10:00:00+00:00")
    with History(tmp_path / "h.sqlite") as history:
        run_id = history.add(run)
        assert encode(history.get(run_id)) == encode(run)  # byte for byte: shown exactly as measured
        [row] = history.list()
        assert (row.id, row.scenario, row.params, row.dispatch, row.jax_version, row.status) == (
            run_id,
            "tiny",
            "size=8",
            "sync",
            "0.10.2",
            "complete",
        )
        assert row.medians == {
            "jit": run.variant("jit").sampling.stats.median_ns,
            "eager": run.variant("eager").sampling.stats.median_ns,
        }
        # in the run's order, as its compile times are listed: it read "eager …, jit …" (alphabetically)
        assert list(row.medians) == ["jit", "eager"] and row.median_texts(" · ") == ["jit 1.00 µs", "eager 9.00 µs"]


def test_listing_filters_by_scenario_and_date_and_prune_deletes(tmp_path):
    with History(tmp_path / "h.sqlite") as history:
        for day, scenario in ((1, "a"), (2, "b"), (3, "a")):
            run = msgspec.structs.replace(
                result({"v": steady(10.0)}, scenario=scenario), started_at=f"2026-11-0{day}T00:00:00+00:00"
            )
            history.add(run)
        assert [r.started_at[:10] for r in history.list(scenario="a")] == ["2026-11-03", "2026-11-01"]
        assert [r.scenario for r in history.list(since="2026-11-02")] == ["a", "b"]
        assert history.prune(before="2026-11-02") == 1 and len(history.list()) == 2
        assert history.prune(keep=1) == 1 and [r.started_at[:10] for r in history.list()] == ["2026-11-03"]
        remaining = history._db.execute("SELECT COUNT(*) FROM medians").fetchone()[0]
        assert remaining == 1  # the pruned runs' medians went with them (foreign keys)


def test_the_apps_filter_lists_the_runs_whose_scenario_id_holds_the_text_in_any_case(tmp_path):
    """The app's filter narrows as it is typed: "disp" lists dispatch-floor's runs (it listed none
    until the whole id was typed); % and _ are characters, not SQL patterns."""
    with History(tmp_path / "h.sqlite") as history:
        for scenario in ("dispatch-floor", "filter-jit-overhead", "my_model", "mymodel"):
            history.add(result({"v": steady(10.0)}, scenario=scenario))
        assert [r.scenario for r in history.list(matching="DISP")] == ["dispatch-floor"]
        assert {r.scenario for r in history.list(matching="-")} == {"dispatch-floor", "filter-jit-overhead"}
        assert [r.scenario for r in history.list(matching="y_m")] == ["my_model"]
        assert history.list(matching="%") == [] and len(history.list(matching="")) == 4


def test_an_older_schema_is_migrated_and_its_runs_kept(tmp_path):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(MIGRATIONS[0])
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute("PRAGMA user_version = 1")
    old = result({"v": steady(10.0)}, scenario="old")
    db.execute(
        "INSERT INTO runs (scenario, started_at, device, dispatch, params, jax_version, status, source_sha256,"
        " document) VALUES ('old', '2026-01-01', 'cpu:0', 'sync', '', '0.4', 'complete', '', ?)",
        (encode(old),),
    )
    db.commit()
    db.close()
    with History(path) as history:
        assert history._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        [row] = history.list()
        assert row.scenario == "old" and row.medians == {} and history.get(row.id).scenario.id == "old"


@pytest.mark.parametrize(
    "content, message",
    [
        (b"this is not a database at all, just some bytes" * 100, "not a readable tuiperf history"),
        ("other", "not a tuiperf history"),
        ("newer", "made by a newer tuiperf"),
    ],
)
def test_a_file_it_cannot_trust_is_reported_and_left_untouched(tmp_path, content, message):
    path = tmp_path / "h.sqlite"
    if content == "other":
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE notes (text TEXT)")
        db.commit()
        db.close()
    elif content == "newer":
        History(path).close()
        db = sqlite3.connect(path)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        db.commit()
        db.close()
    else:
        path.write_bytes(content)
    before = path.read_bytes()
    with pytest.raises(HistoryError, match=message):
        History(path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("made", ["empty file", "created, no schema yet"])
def test_a_history_being_created_reads_as_empty_not_as_someone_elses(tmp_path, made):
    """A reader (the browser test's poll, `tuiperf history`) that opens the file between the app's
    creating it and giving it its schema read "this file is not a tuiperf history" (CI, test_serve);
    so did a second writer (a test's poll, tests/tui/test_tui_history.py)."""
    path = tmp_path / "h.sqlite"
    if made == "empty file":
        path.write_bytes(b"")
    else:  # what the writer has done when the reader looks: the file exists, in WAL mode, without tables
        db = sqlite3.connect(path)
        db.execute("PRAGMA journal_mode = WAL")
        db.close()
    with History(path, readonly=True) as history:
        assert history.list() == []
    with History(path) as history:  # a second writer (two tuiperfs storing their first runs at once)
        assert history.list() == []
        history.add(result({"v": steady(10.0)}))
    with History(path, readonly=True) as history:
        assert len(history.list()) == 1
    foreign = tmp_path / "other.sqlite"
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE notes (text TEXT)")
    db.commit()
    db.close()
    with pytest.raises(HistoryError, match="not a tuiperf history"):
        History(foreign, readonly=True)


WRITER = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {tests!r})
    from factories import result, steady
    from tuiperf.results.history import History

    run = result({{"v": steady(10.0, n=2000)}}, scenario=sys.argv[2])
    with History(sys.argv[1]) as history:
        for _ in range(int(sys.argv[3])):
            history.add(run)
            print("added", flush=True)
    """
)


def writer(tmp_path, path, name, count):
    script = tmp_path / "writer.py"
    script.write_text(WRITER.format(tests=str(__import__("pathlib").Path(__file__).parent)))
    return subprocess.Popen(
        [sys.executable, str(script), str(path), name, str(count)], stdout=subprocess.PIPE, text=True
    )


@pytest.mark.slow
def test_two_processes_writing_at_once_both_succeed(tmp_path):
    path = tmp_path / "h.sqlite"
    History(path).close()
    first, second = writer(tmp_path, path, "first", 25), writer(tmp_path, path, "second", 25)
    assert first.wait(120) == 0 and second.wait(120) == 0
    with History(path) as history:
        runs = history.list()
    assert sorted(r.scenario for r in runs).count("first") == 25 and len(runs) == 50


def test_a_writer_killed_mid_write_leaves_a_consistent_database(tmp_path):
    path = tmp_path / "h.sqlite"
    History(path).close()
    proc = writer(tmp_path, path, "killed", 100_000)
    assert proc.stdout is not None
    for _ in range(5):  # it is writing now
        proc.stdout.readline()
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    time.sleep(0.05)
    with History(path) as history:
        assert history._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        runs = history.list()
        assert len(runs) >= 5 and all(r.medians == {"v": runs[0].medians["v"]} for r in runs)  # no half run
        history.add(result({"v": steady(10.0)}, scenario="after"))  # and it still takes new runs


def stored(tmp_path, *runs):
    path = tmp_path / "h.sqlite"
    with History(path) as history:
        ids = [history.add(run) for run in runs]
    return str(path), ids


def test_cli_lists_shows_and_compares_stored_runs_with_a_verdict(tmp_path, capsys):
    import json

    from tuiperf.cli import main

    old = result({"jit": steady(1000.0), "eager": steady(5000.0)}, scenario="tiny")
    new = result({"jit": steady(1200.0), "eager": steady(5000.0)}, scenario="tiny")
    path, (old_id, new_id) = stored(tmp_path, old, new)
    assert main(["--history", path, "history", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in listed] == [new_id, old_id] and listed[0]["medians"]["jit"] == pytest.approx(1200.0)
    assert main(["show", str(old_id), "--history", path, "--width", "100"]) == 0
    assert "1.00 µs" in capsys.readouterr().out
    # jit 20 % slower, eager unchanged: the gate at 10 % fails on jit only
    assert main(["compare", str(old_id), str(new_id), "--history", path, "--fail-above", "10", "--width", "100"]) == 1
    out, err = capsys.readouterr()
    assert "1.200" in out and "slower by more than 10 %: jit" in err and "eager" not in err.split("slower")[1]
    assert main(["compare", str(old_id), str(new_id), "--history", path, "--fail-above", "25"]) == 0


def test_exports_hold_every_sample_and_a_pasteable_report(tmp_path, capsys):
    from tuiperf.cli import main

    run = result({"jit": steady(1000.0, n=50), "eager": steady(2000.0, n=40)}, scenario="tiny", params={"size": 8})
    path, (run_id,) = stored(tmp_path, run)
    assert main(["export", str(run_id), "--format", "csv", "--history", path]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "run,point,variant,sample,ns,loops_per_sample" and len(lines) == 1 + 50 + 40
    assert lines[1].startswith(f"run {run_id},,jit,0,")
    out_file = tmp_path / "report.md"
    assert main(["export", str(run_id), "--history", path, "--out", str(out_file)]) == 0
    text = out_file.read_text()
    assert "`size=8`" in text and "| `jit` | 1.00 µs |" in text and "| `eager` | 2.00× |" in text
    assert "| jax | 0.10.2 |" in text and "| dispatch | sync |" in text
    assert main(["export", str(run_id), "--history", path, "--out", str(out_file)]) == 2  # never overwritten


def test_no_history_stores_nothing_and_says_so_for_run_ids(tmp_path, capsys):
    from tuiperf.cli import main

    assert main(["--no-history", "show", "3"]) == 2
    assert "history is turned off" in capsys.readouterr().err


TUIPERF_PACKAGES = [f"tuiperf.{p}" for p in ("common", "api", "results", "catalog", "contract", "measuring")]
TUIPERF_PACKAGES.append("tuiperf.processes")


@pytest.mark.slow
def test_the_exported_script_retimes_every_variant_without_tuiperf(runner, fixture_dir, tmp_path):
    from tuiperf.contract.options import RunSettings
    from tuiperf.contract.request import RunRequest
    from tuiperf.results.export import export

    for scenario, params in (("tiny", {"size": "4"}), ("steps", {})):
        run = runner.run(
            RunRequest(
                scenario=scenario, params=params, settings=RunSettings(samples=10, profile=False, dispatch="sync")
            )
        )
        script = tmp_path / f"{scenario}.py"
        script.write_text(export(run, "script", scenario_files=scenario_files([fixture_dir])))
        block = "import sys; sys.modules.update(dict.fromkeys(" + repr(TUIPERF_PACKAGES) + "));"
        block += "sys.argv = ['repro', '0.05']; "
        block += f"exec(compile(open({str(script)!r}).read(), 'repro', 'exec'), {{'__name__': '__main__'}})"
        done = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        lines = {line.split()[0]: line for line in done.stdout.splitlines()[2:]}
        for variant in run.variants:
            if variant.ok:
                assert variant.name in lines and ("µs" in lines[variant.name] or "ns" in lines[variant.name])


@pytest.mark.slow
def test_a_script_is_refused_when_the_scenario_file_changed_since_the_run(runner, tmp_path):
    import shutil

    from tuiperf.contract.options import RunSettings
    from tuiperf.contract.request import RunRequest
    from tuiperf.measuring.inprocess import InProcessRunner
    from tuiperf.results.repro import script

    folder = tmp_path / "mine"
    shutil.copytree(__import__("pathlib").Path(__file__).parent / "fixtures" / "scenarios", folder)
    run = InProcessRunner([str(folder)]).run(
        RunRequest(scenario="steps", settings=RunSettings(samples=5, profile=False, dispatch="sync"))
    )
    (folder / "steps.py").write_text((folder / "steps.py").read_text() + "\n# changed\n")
    with pytest.raises(TuiperfError, match="changed since this run"):
        script(run, scenario_files([str(folder)]))


def test_a_trend_lines_up_each_variant_across_runs_oldest_first(tmp_path):
    from tuiperf.results.history import trend

    runs = []
    for day, (jit, eager, jax_version) in enumerate(((1000.0, 5000.0, "0.9.0"), (800.0, None, "0.10.2")), start=1):
        samples = {"jit": steady(jit)} | ({"eager": steady(eager)} if eager else {})
        run = result(samples, scenario="tiny", packages={"jax": jax_version})
        runs.append(msgspec.structs.replace(run, started_at=f"2026-11-0{day}"))
    path, _ = stored(tmp_path, *runs)
    with History(path) as history:
        sweep = trend(history.list())  # listed newest first; the trend reads oldest first
    assert sweep.values == ["#1 jax 0.9.0", "#2 jax 0.10.2"]
    assert sweep.medians_ns["jit"] == [pytest.approx(1000.0), pytest.approx(800.0)]
    assert sweep.medians_ns["eager"] == [pytest.approx(5000.0), None]  # not measured in the second run


@pytest.mark.parametrize("date", ["now", "2026/11/20", "yesterday", "garbage", "2026-13-01", "", "2026-11-20x"])
def test_a_date_that_is_not_iso_is_refused_and_nothing_is_deleted(date, tmp_path, capsys):
    from tuiperf.cli import main

    path, _ = stored(tmp_path, result({"jit": steady(1000.0)}), result({"jit": steady(1000.0)}))
    assert main(["--history", path, "history", "--prune-before", date, "--yes"]) == 2
    assert "wants a date like 2026-11-01" in capsys.readouterr().err
    assert main(["--history", path, "history", "--since", date]) == 2
    with History(path) as history:
        assert len(history.list()) == 2


def test_prune_says_what_it_deletes_and_needs_yes_when_not_asked(tmp_path, capsys, monkeypatch):
    import io

    from tuiperf.cli import main

    runs = [
        msgspec.structs.replace(result({"v": steady(10.0)}), started_at=f"2026-11-0{d}T12:00:00+00:00")
        for d in (1, 2, 3)
    ]
    path, ids = stored(tmp_path, *runs)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # not a terminal: no one to ask
    assert main(["--history", path, "history", "--prune-before", "2026-11-03"]) == 2
    err = capsys.readouterr().err
    assert f"would delete 2 runs (started before 2026-11-03T00:00:00+00:00; ids {ids[0]}-{ids[1]})" in err
    assert "--yes" in err
    assert main(["--history", path, "history", "--prune-before", "2026-11-03", "--yes"]) == 0
    assert "deleted 2 runs" in capsys.readouterr().out
    with History(path) as history:
        assert [r.id for r in history.list()] == [ids[2]]


def test_reading_takes_no_lock_writes_nothing_and_works_on_a_read_only_file(tmp_path, capsys):
    import os
    import sqlite3

    from tuiperf.cli import main

    path, (run_id,) = stored(tmp_path, result({"jit": steady(1000.0)}, scenario="tiny"))
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")  # another program holds the write lock
    try:
        assert main(["--history", path, "history"]) == 0  # WAL: a reader does not wait
        assert main(["--history", path, "show", str(run_id)]) == 0
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    capsys.readouterr()
    before = Path(path).read_bytes()
    assert main(["--history", path, "history"]) == 0 and "tiny" in capsys.readouterr().out
    assert Path(path).read_bytes() == before  # not a byte of the database, not even its change counter
    for name in os.listdir(tmp_path):
        os.chmod(tmp_path / name, 0o444)
    os.chmod(tmp_path, 0o555)
    try:
        if not os.access(tmp_path, os.W_OK):  # (as root, permissions make nothing read-only)
            assert main(["--history", path, "history"]) == 0 and "tiny" in capsys.readouterr().out
    finally:
        os.chmod(tmp_path, 0o755)


@pytest.mark.slow
def test_a_locked_non_wal_history_is_named_busy(tmp_path, capsys):
    import sqlite3

    from tuiperf.cli import main

    path, _ = stored(tmp_path, result({"jit": steady(1000.0)}))
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = DELETE")
    db.execute("BEGIN EXCLUSIVE")
    try:
        assert main(["--history", path, "history"]) == 2
    finally:
        db.execute("ROLLBACK")
        db.close()
    assert "busy: another program holds a lock on the history" in capsys.readouterr().err
