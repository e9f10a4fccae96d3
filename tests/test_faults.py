"""Faults and hostile input around the measuring processes: nothing crashes, hangs, orphans or lies."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tuiperf.common import lifeline
from tuiperf.contract.catalog import decode, encode
from tuiperf.contract.events import SamplesAdded
from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.processes.process import LOG_CAP_BYTES
from tuiperf.processes.runner import ProcessRunner
from tuiperf.results.model import Failure

HOSTILE = Path(__file__).parent / "fixtures" / "hostile"


@pytest.fixture(scope="module")
def hostile_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    for path in HOSTILE.glob("*.py"):
        shutil.copy(path, folder / path.name)
    os.mkfifo(folder / "fifo.py")
    (folder / "loop.py").symlink_to(folder / "loop.py")
    return folder


@pytest.fixture(scope="module")
def hostile_catalog(hostile_dir, tmp_path_factory):
    markers = tmp_path_factory.mktemp("markers")
    os.environ["TUIPERF_HOSTILE_MARKERS"] = str(markers)
    runner = ProcessRunner([str(hostile_dir)], load_timeout_s=3)
    try:
        yield runner, runner.catalog(), markers
    finally:
        runner.close()


EXPECTED = {
    "exits_os.py": "exited with status 1 at import",
    "exits_sys.py": "called sys.exit(3) at import",
    "segfaults.py": "was killed by SIGSEGV at import",
    "hangs.py": "did not finish importing within 3 s",
    "closes_fds.py": "RuntimeError: closed my stdout and stderr",
    "bad_str.py": "Unprintable: (its message could not be shown)",
    "fifo.py": "skipped: a FIFO, not a regular .py file",
    "loop.py": "a symlink loop",
    "a_b.py": "ImportError: broken a_b",
    "a-b.py": "ImportError: broken a-b",
}


@pytest.mark.slow
def test_every_misbehaving_file_is_reported_with_its_reason_and_the_rest_still_loads(hostile_catalog):
    _, catalog, _ = hostile_catalog
    errors = {Path(b.path).name: b.error for b in catalog.broken}
    for name, reason in EXPECTED.items():
        assert reason in errors.get(name, ""), (name, errors.get(name))
    ids = {s.id for s in catalog.scenarios}
    assert {"dispatch-floor", "mlp-closure-vs-argument", "prints", "spins"} <= ids  # built-ins and good files
    assert len({b.id for b in catalog.broken}) == len(catalog.broken)  # a_b and a-b kept apart
    assert decode(encode(catalog)) == catalog  # plain data, and it reads back


@pytest.mark.slow
def test_a_run_imports_only_its_own_scenario(hostile_catalog):
    runner, _, markers = hostile_catalog
    result = runner.run(RunRequest(scenario="dispatch-floor", settings=RunSettings(samples=20, profile=False)))
    assert result.measured and not result.partial
    measuring_pid = runner._measuring.process.pid
    importers = {int(p.name.split("-")[1]) for p in markers.iterdir()}
    assert importers and measuring_pid not in importers  # only the loader imported spins.py


@pytest.mark.slow
def test_list_survives_the_folder_and_prints_valid_json(hostile_dir):
    env = {**os.environ, "TUIPERF_HOSTILE_MARKERS": "/tmp", "TUIPERF_IMPORT_TIMEOUT": "3"}
    done = subprocess.run(
        [sys.executable, "-m", "tuiperf", "list", "--json", "--scenarios", str(hostile_dir)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    listing = json.loads(done.stdout)  # nothing printed at import reached stdout
    assert "dispatch-floor" in {s["id"] for s in listing["scenarios"]}


@pytest.fixture
def faults_runner(fixture_dir):
    runner = ProcessRunner([fixture_dir])
    yield runner
    runner.close()


@pytest.mark.slow
def test_a_hung_variant_is_stopped_by_the_timeout_and_named(faults_runner):
    request = RunRequest(
        scenario="faults",
        variants=["ok", "hangs"],
        params={"hang_after": "12"},
        # 5 s, not 1: the limit covers the set-up's compiles too, which took over a second on a loaded machine
        settings=RunSettings(samples=200, profile=False, timeout_s=5.0),
    )
    started = time.monotonic()
    result = faults_runner.run(request)
    assert time.monotonic() - started < 90
    # It fails alone, named with the limit; a fresh process measured the other (tests/test_isolation.py).
    assert not result.partial and result.crash is None
    hung = result.variant("hangs")
    assert hung is not None and hung.status == "failed"
    assert hung.failure == Failure(
        error="did not finish within --timeout 5 s (raise it with --timeout)", phase="sample"
    )
    assert len(result.variant("ok").sampling.samples_ns) == 200
    again = faults_runner.run(
        RunRequest(scenario="faults", variants=["ok"], settings=RunSettings(samples=10, profile=False))
    )
    assert again.measured and not again.partial  # a fresh process took over


@pytest.mark.slow
def test_cancel_stops_a_hung_variant_within_seconds(faults_runner):
    cancel = threading.Event()

    def on_event(event):
        if isinstance(event, SamplesAdded) and event.variant == "ok":
            cancel.set()

    request = RunRequest(
        scenario="faults",
        variants=["ok", "hangs"],
        params={"hang_after": "12"},
        settings=RunSettings(samples=200, profile=False, timeout_s=None),
    )
    started = time.monotonic()
    result = faults_runner.run(request, on_event, cancel)
    assert time.monotonic() - started < 30
    assert result.partial and result.error is None and "cancelled" in result.warnings[0]


@pytest.mark.slow
def test_a_crash_names_the_variant_the_phase_and_the_signal(fixture_dir):
    runner = ProcessRunner([fixture_dir])
    try:
        request = RunRequest(
            scenario="tiny",
            variants=["jax.jit", "flaky"],
            params={"abort_after": "30"},
            settings=RunSettings(samples=2000, profile=False),
        )
        result = runner.run(request)
    finally:
        runner.close()
    # the crashed variant fails alone (a fresh process measured the other: tests/test_isolation.py)
    flaky = result.variant("flaky")
    assert flaky is not None and flaky.failure == Failure(
        error="crashed the measuring process: was killed by SIGABRT", phase="sample"
    )
    assert result.crash is None and not result.partial
    assert len(result.variant("jax.jit").sampling.samples_ns) == 2000


@pytest.mark.slow
def test_a_chatty_variant_cannot_fill_the_disk(faults_runner):
    result = faults_runner.run(
        RunRequest(
            scenario="faults",
            variants=["chatty"],
            params={"chatty": "true"},
            settings=RunSettings(samples=10, profile=False),
        )
    )
    assert result.measured
    log = faults_runner._measuring.log_path
    faults_runner.close()
    assert LOG_CAP_BYTES <= log.stat().st_size <= LOG_CAP_BYTES + 200


HANGING_RUN = """
import sys
from tuiperf.cli import main
sys.exit(main(["run", "faults", "--scenarios", sys.argv[1], "--set", "hang_after=5", "--variants", "hangs",
               "--samples", "100", "--timeout", "none", "--no-profile"]))
"""


# `python -m tuiperf` with Ctrl-C as a terminal delivers it: a child inherits an ignored SIGINT, and
# an earlier test in the same pytest worker may leave SIGINT and SIGQUIT ignored (seen: SigIgn 0x1006).
WITH_A_TERMINALS_SIGINT = (
    "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('tuiperf', run_name='__main__', alter_sys=True)"
)


def wait_for_hang(cli: subprocess.Popen, marker: Path) -> None:
    deadline = time.monotonic() + 240
    while not marker.exists():
        assert cli.poll() is None, "the CLI ended before its variant hung"
        assert time.monotonic() < deadline, "the variant never hung"
        time.sleep(0.2)


def children_of(pid: int) -> list[int]:
    return [int(p) for p in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()]


@pytest.mark.slow
def test_killing_the_cli_leaves_no_measuring_process_behind(fixture_dir, tmp_path):
    marker = tmp_path / "hung"
    cli = subprocess.Popen(
        [sys.executable, "-c", HANGING_RUN, fixture_dir],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "TUIPERF_HANG_MARKER": str(marker)},
    )
    wait_for_hang(cli, marker)
    children = children_of(cli.pid)
    assert children, "the CLI started no measuring process"
    cli.send_signal(signal.SIGKILL)
    cli.wait()
    deadline = time.monotonic() + 10
    alive = children
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [
            pid
            for pid in children
            if Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]
        ]
    assert alive == []


@pytest.mark.slow
def test_ctrl_c_stops_a_hung_cli_run_and_prints_what_was_measured(fixture_dir, tmp_path):
    out, marker = tmp_path / "partial.json", tmp_path / "hung"
    cli = subprocess.Popen(
        [
            sys.executable,
            "-c",
            WITH_A_TERMINALS_SIGINT,
            "run",
            "faults",
            "--scenarios",
            fixture_dir,
            "--set",
            "hang_after=40",
            "--variants",
            "ok,hangs",
            "--samples",
            "1000",
            "--timeout",
            "none",
            "--no-profile",
            "--json",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TUIPERF_HANG_MARKER": str(marker), "PYTHONFAULTHANDLER": "1"},
    )
    wait_for_hang(cli, marker)
    started = time.monotonic()
    cli.send_signal(signal.SIGINT)
    try:
        stdout, stderr = cli.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # where it is stuck: faulthandler prints every thread on SIGABRT
        masks = [line for line in Path(f"/proc/{cli.pid}/status").read_text().splitlines() if line.startswith("Sig")]
        cli.send_signal(signal.SIGABRT)
        stdout, stderr = cli.communicate(timeout=30)
        raise AssertionError(f"the CLI did not end within 60 s of its Ctrl-C ({masks}):\n{stderr[-6000:]}") from None
    assert cli.returncode == 130, stderr
    assert time.monotonic() - started < 15
    assert "PARTIAL RESULT" in stdout and "ok" in stdout
    from tuiperf.results import resultfile

    assert resultfile.load(out).partial


@pytest.mark.slow
def test_a_cancel_the_measuring_process_does_not_answer_is_stored_as_a_cancel(fixture_dir, tmp_path, monkeypatch):
    from tuiperf.results.history import status_of

    marker = tmp_path / "hung"
    monkeypatch.setenv("TUIPERF_HANG_MARKER", str(marker))
    cancel = threading.Event()

    def cancel_once_hung() -> None:  # the variant sleeps in a call: the process cannot stop within 1 s
        deadline = time.monotonic() + 120
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        cancel.set()

    runner = ProcessRunner([fixture_dir])
    waiter = threading.Thread(target=cancel_once_hung)
    waiter.start()
    try:
        settings = RunSettings(samples=200, profile=False)
        request = RunRequest(
            scenario="faults", variants=["ok", "hangs"], params={"hang_after": "12"}, settings=settings
        )
        result = runner.run(request, None, cancel)
    finally:
        waiter.join()
        runner.close()
    assert marker.exists() and result.partial
    assert result.crash is None and result.error is None and status_of(result) == "partial"
    assert result.warnings[0].startswith("partial result: the run was cancelled"), result.warnings
    assert "did not stop within 1 s of the cancel" in result.warnings[0]
    hung = result.variant("hangs")
    assert hung.failure is None or "crash" not in hung.failure.error
    assert not any("crash" in w for w in result.warnings), result.warnings


@pytest.mark.slow
def test_what_a_scenario_forks_is_stopped_with_its_measuring_process(tmp_path, monkeypatch):
    markers = tmp_path / "markers"
    markers.mkdir()
    monkeypatch.setenv("TUIPERF_FORK_MARKERS", str(markers))
    folder = Path(__file__).parent / "fixtures" / "forks"
    runner = ProcessRunner([str(folder)], load_timeout_s=30)
    try:
        catalog = runner.catalog()
        assert "forks" in [s.id for s in catalog.scenarios]
        result = runner.run(
            RunRequest(scenario="forks", settings=RunSettings(samples=5, profile=False, dispatch="sync"))
        )
        assert result.variant("abs").sampling.stats is not None
        deadline = time.monotonic() + 30
        while len(list(markers.glob("*.pid"))) < 2 and time.monotonic() < deadline:  # the loader's, the run's
            time.sleep(0.05)
        forked = [int(p.stem) for p in markers.glob("*.pid")]
        assert len(forked) == 2 and all(lifeline.running(pid) for pid in forked)
    finally:
        runner.close()
    deadline = time.monotonic() + 10
    while any(lifeline.running(pid) for pid in forked) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(lifeline.running(pid) for pid in forked)


@pytest.mark.slow
def test_a_base_exception_in_a_variant_fails_that_variant_alone_and_names_it():
    folder = Path(__file__).parent / "fixtures" / "base_exceptions"
    runner = ProcessRunner([str(folder)], load_timeout_s=30)
    try:
        names = ["healthy", "exit-when-built", "interrupt-when-built", "escape-when-called", "also-healthy"]
        result = runner.run(
            RunRequest(
                scenario="raises", variants=names, settings=RunSettings(samples=50, profile=False, dispatch="sync")
            )
        )
    finally:
        runner.close()
    assert result.crash is None and not result.partial
    assert (
        result.variant("healthy").sampling.stats is not None
        and result.variant("also-healthy").sampling.stats is not None
    )
    failures = {v.name: v.failure.error for v in result.variants if v.failure}
    assert "SystemExit: 3" in failures["exit-when-built"]
    assert "KeyboardInterrupt" in failures["interrupt-when-built"]
    assert "Escape: out of here" in failures["escape-when-called"]


@pytest.mark.slow
def test_a_timeout_names_the_variant_that_was_running():
    folder = Path(__file__).parent / "fixtures" / "base_exceptions"
    runner = ProcessRunner([str(folder)], load_timeout_s=30)
    variants = ["healthy", "hangs-when-profiled"]
    try:
        result = runner.run(
            RunRequest(
                scenario="raises", variants=variants, settings=RunSettings(samples=20, timeout_s=3.0, dispatch="sync")
            )
        )
    finally:
        runner.close()
    # It fails alone, in the phase it hung in, and the limit is named (tests/test_isolation.py).
    assert result.crash is None and not result.partial
    hung = result.variant("hangs-when-profiled")
    assert hung is not None and hung.status == "failed"
    assert hung.failure == Failure(
        error="did not finish within --timeout 3 s (raise it with --timeout)", phase="profile"
    )
    assert result.variant("healthy").measured
