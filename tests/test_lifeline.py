"""No process is left behind (tuiperf/common/lifeline.py): a daemon a scenario starts at import (forked,
``setsid``, forked again: out of the process group the parent kills) is gone after `tuiperf check` and
after `tuiperf run`; a loader or measuring process whose parent is SIGKILLed exits and takes its
daemons along; one started from a thread that has ended lives on.

Each test runs tuiperf in subprocesses; a daemon that survives is killed by the test itself."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuiperf.common import lifeline

pytestmark = pytest.mark.slow

DAEMONS = Path(__file__).parent / "fixtures" / "daemons"
GONE_WITHIN_S = 10.0


def _still_running(pids: list[int]) -> list[int]:
    """Those of ``pids`` still running after GONE_WITHIN_S (none, as soon as none is)."""
    deadline = time.monotonic() + GONE_WITHIN_S
    while any(lifeline.running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if lifeline.running(pid)]


def _started(markers: Path) -> list[int]:
    return [int(p.stem) for p in markers.glob("*.pid")]


@pytest.fixture
def markers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Where the fixture's daemons write their pids; any still running at the end is killed."""
    folder = tmp_path / "markers"
    folder.mkdir()
    monkeypatch.setenv("TUIPERF_DAEMON_MARKERS", str(folder))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # no catalog cached elsewhere
    try:
        yield folder
    finally:
        for pid in _started(folder):
            if lifeline.running(pid):
                os.kill(pid, signal.SIGKILL)


def _tuiperf(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tuiperf", *argv], capture_output=True, text=True, timeout=300, env=os.environ.copy()
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="orphans are held by a Linux subreaper")
def test_a_daemon_started_at_import_is_gone_after_check(markers: Path) -> None:
    done = _tuiperf("check", str(DAEMONS / "daemon.py"))
    assert done.returncode == 0, done.stdout + done.stderr
    started = _started(markers)
    assert len(started) == 2, started  # the loader's import and the measuring process's
    assert _still_running(started) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="orphans are held by a Linux subreaper")
def test_a_daemon_started_at_import_is_gone_after_a_run(markers: Path) -> None:
    done = _tuiperf("run", "daemon", "--scenarios", str(DAEMONS), "--samples", "1", "--budget", "0.01", "--no-profile")
    assert done.returncode == 0, done.stdout + done.stderr
    started = _started(markers)
    assert len(started) == 2, started  # the loader's import and the measuring process's
    assert _still_running(started) == []


PARENT = textwrap.dedent(
    """
    import sys, threading, time
    from tuiperf.contract.protocol import DescribeFile, Memory
    from tuiperf.processes.process import MeasuringProcess

    started = []

    def start():  # as the app does: from a worker thread, which ends while the process is kept
        child = MeasuringProcess(role="loader")
        child.request(DescribeFile(sys.argv[1]), timeout_s=240)  # imports the file: starts a daemon
        started.append(child)

    thread = threading.Thread(target=start)
    thread.start()
    thread.join()
    time.sleep(1.0)
    child = started[0]
    child.request(Memory(), timeout_s=60)  # still there after the thread that started it ended
    print(child.process.pid, flush=True)
    time.sleep(600)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="orphans are held by a Linux subreaper")
def test_a_process_outlives_the_thread_that_started_it_and_dies_with_its_sigkilled_parent(
    markers: Path, tmp_path: Path
) -> None:
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    parent = subprocess.Popen(
        [sys.executable, str(script), str(DAEMONS / "daemon.py")], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert parent.stdout is not None
        line = parent.stdout.readline()  # the parent's own time limits bound this (240 + 60 s)
        if not line.strip().isdigit():
            parent.kill()
            _, err = parent.communicate(timeout=10)
            pytest.fail(f"the parent did not get its process going: {err.decode()[-2000:]}")
        child = int(line)
        daemons = _started(markers)
        assert lifeline.running(child) and len(daemons) == 1 and lifeline.running(daemons[0])
        parent.kill()  # SIGKILL: the parent has no chance to stop anything
        parent.wait(10)
        assert _still_running([child, *daemons]) == []
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(10)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="orphans are held by a Linux subreaper")
def test_a_sigterm_to_a_loader_process_takes_its_daemon_along_and_it_still_dies_by_sigterm(markers: Path) -> None:
    from tuiperf.contract.protocol import DescribeFile
    from tuiperf.processes.process import MeasuringProcess

    child = MeasuringProcess(role="loader")
    try:
        child.request(DescribeFile(str(DAEMONS / "daemon.py")), timeout_s=240)
        daemons = _started(markers)
        assert len(daemons) == 1 and lifeline.running(daemons[0])
        child.process.send_signal(signal.SIGTERM)
        assert child.process.wait(30) == -signal.SIGTERM  # as the parent tells a process stopped so
        assert _still_running(daemons) == []
    finally:
        child.close()
