"""The measuring process: results cross the pipe, cancellation works, a crash is survived."""

import os
import threading
from pathlib import Path

import pytest

from tuiperf.common.errors import ParamError
from tuiperf.contract.events import RunFailed, SamplesAdded
from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.processes.runner import ProcessRunner


@pytest.fixture(scope="module")
def worker(fixture_dir):
    runner = ProcessRunner([fixture_dir])
    yield runner
    runner.close()


@pytest.mark.slow
def test_catalog_devices_and_a_run(worker):
    catalog = worker.catalog()
    assert {"tiny", "unfair", "dispatch-floor"} <= {s.id for s in catalog.scenarios}
    assert worker.devices()[0].id == "cpu:0"
    doc = worker.run(
        RunRequest(
            scenario="tiny", variants=["jax.jit"], settings=RunSettings(samples=20, dispatch="sync", profile=False)
        )
    )
    assert doc.variants[0].ok and len(doc.variants[0].sampling.samples_ns) == 20
    assert doc.env is not None and doc.env.dispatch == "sync"


def test_user_errors_cross_the_pipe_with_their_message(worker):
    with pytest.raises(ParamError, match="size: 0 is below the minimum 1") as info:
        worker.run(RunRequest(scenario="tiny", params={"size": 0}, settings=RunSettings(dispatch="sync")))
    assert info.value.title == ParamError.title


def test_cancel_stops_the_worker_run(worker):
    cancel = threading.Event()

    def on_event(event):
        if isinstance(event, SamplesAdded):
            cancel.set()

    doc = worker.run(
        RunRequest(
            scenario="tiny", variants=["jax.jit"], settings=RunSettings(budget_s=60, dispatch="sync", profile=False)
        ),
        on_event,
        cancel,
    )
    assert doc.partial and doc.variants[0].sampling.samples_ns


@pytest.mark.slow
def test_a_crash_fails_its_variant_alone_and_the_worker_restarts(worker):
    events = []
    request = RunRequest(
        scenario="tiny",
        variants=["jax.jit", "flaky"],
        params={"abort_after": 20_000},
        settings=RunSettings(samples=40_000, budget_s=60, dispatch="sync", profile=False),
    )
    doc = worker.run(request, events.append)
    assert not doc.partial and doc.crash is None  # the crash is the variant's, not the run's
    kept = {v.name: v for v in doc.variants}
    assert kept["flaky"].status == "failed" and "SIGABRT" in kept["flaky"].failure.error
    assert kept["jax.jit"].measured and len(kept["jax.jit"].sampling.samples_ns) == 40_000  # measured again, whole
    assert "flaky crashed the measuring process and failed" in doc.warnings[0]
    assert not [e for e in events if isinstance(e, RunFailed)]
    assert doc.env is not None
    again = worker.run(
        RunRequest(
            scenario="tiny", variants=["jax.jit"], settings=RunSettings(samples=10, dispatch="sync", profile=False)
        )
    )
    assert again.variants[0].ok and not again.partial


@pytest.mark.slow
def test_switching_dispatch_mode_restarts_the_worker(fixture_dir):
    runner = ProcessRunner([fixture_dir])
    try:
        doc = runner.run(
            RunRequest(
                scenario="tiny", variants=["jax.jit"], settings=RunSettings(samples=5, dispatch="async", profile=False)
            )
        )
        assert doc.env is not None and doc.env.dispatch == "async"
    finally:
        runner.close()


def _three_runs(runner: ProcessRunner) -> tuple[list[int], list[list[str]]]:
    """The measuring process's pid before each of three runs of one file, and each run's warnings."""
    pids, warnings = [], []
    for _ in range(3):
        doc = runner.run(
            RunRequest(
                scenario="tiny", variants=["jax.jit"], settings=RunSettings(samples=5, dispatch="sync", profile=False)
            )
        )
        assert doc.variants[0].ok
        assert runner._measuring is not None
        pids.append(runner._measuring.process.pid)
        warnings.append(doc.warnings)
    return pids, warnings


@pytest.mark.slow
def test_a_measuring_process_is_kept_until_it_outgrows_the_limit_and_the_run_after_says_so(fixture_dir):
    """The first reuse takes the process's size as its baseline; past the limit it is replaced, and
    the run measured in the new one says why (times differ more between processes than runs)."""
    kept = ProcessRunner([fixture_dir])  # the default limit: one process for all three
    try:
        pids, warnings = _three_runs(kept)
        assert len(set(pids)) == 1 and not any("fresh process" in w for ws in warnings for w in ws)
        assert kept._measuring is not None and kept._measuring.runs == 3 and kept._measuring.idle_mb is not None
    finally:
        kept.close()
    retired = ProcessRunner([fixture_dir], retire_growth_mb=-1e9)  # any size is too much growth
    try:
        pids, warnings = _three_runs(retired)
        assert pids[0] == pids[1] != pids[2]  # run 2 set the baseline; run 3 found it grown
        assert not any("fresh process" in w for w in warnings[0] + warnings[1])
        note = next(w for w in warnings[2] if "fresh process" in w)
        assert "over 2 runs" in note and "limit -1e+09 MB" in note
    finally:
        retired.close()


STARTS_UNDER_CAPTURED_STDERR = r"""
import io, sys
class CapturedStream(io.StringIO):  # what Textual installs while an app runs: no real file descriptor
    def fileno(self):
        return -1
def main():
    sys.stdout, sys.stderr = CapturedStream(), CapturedStream()
    from tuiperf.processes.runner import ProcessRunner
    runner = ProcessRunner()
    try:
        count = len(runner.catalog().scenarios)
    finally:
        runner.close()
    sys.__stdout__.write(f"{count}\n")
if __name__ == "__main__":
    main()
"""


@pytest.mark.slow
def test_worker_starts_while_stdio_is_captured(tmp_path):
    """Regression: under Textual the start failed with "bad value(s) in fds_to_keep"."""
    import subprocess
    import sys

    script = tmp_path / "start_under_capture.py"
    script.write_text(STARTS_UNDER_CAPTURED_STDERR)
    root = str(Path(__file__).resolve().parent.parent)  # this checkout's tuiperf, not an installed one
    env = {**os.environ, "PYTHONPATH": root}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) >= 6


@pytest.mark.slow
def test_three_processes_report_three_medians_and_their_spread(fixture_dir, tmp_path, capsys):
    from tuiperf.cli import main
    from tuiperf.results import resultfile

    out = tmp_path / "p.json"
    code = main(
        [
            "run",
            "tiny",
            "--scenarios",
            fixture_dir,
            "--variants",
            "jax.jit,eqx.filter_jit",
            "--samples",
            "30",
            "--processes",
            "3",
            "--no-profile",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    result = resultfile.load(out)
    for variant in result.measured:
        assert len(variant.sampling.process_medians_ns) == 3 and variant.sampling.stats.n == 90  # pooled samples
    printed = capsys.readouterr().out
    assert "between 3 measuring processes" in printed and "% above fastest" in printed


def test_a_log_removed_by_another_tuiperf_meanwhile_does_not_stop_a_start(tmp_path, monkeypatch):
    from tuiperf.processes import process as worker

    monkeypatch.setattr(worker, "user_log_dir", lambda: tmp_path)
    for i in range(worker.LOG_FILES_KEPT + 2):
        (tmp_path / f"worker-{i:02d}.log").write_text("")
        os.utime(tmp_path / f"worker-{i:02d}.log", (1000 + i, 1000 + i))
    listed = [*tmp_path.glob("worker-*.log"), tmp_path / "worker-gone.log"]  # listed, then removed
    monkeypatch.setattr(type(tmp_path), "glob", lambda self, pattern: iter(listed))
    new = worker._new_log_path()
    assert new.parent == tmp_path and not new.exists()
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == [f"worker-{i:02d}.log" for i in range(3, worker.LOG_FILES_KEPT + 2)]  # the oldest went
