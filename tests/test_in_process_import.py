"""`tuiperf run --in-process` imports in the caller's process, where an import that loops cannot be
interrupted: the run's file is found first as every other run finds it (the catalog cache, else a
loader process with a time limit per file), so a file of the folder that loops at import, the run's
own included, is one line and exit 2, and the run's process imports its own file alone."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def looping_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    shutil.copy(FIXTURES / "hostile" / "hangs.py", folder / "hangs.py")  # `while True: pass` at import
    shutil.copy(FIXTURES / "scenarios" / "tiny.py", folder / "tiny.py")
    return folder


def _run_in_process(scenario: str, folder: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TUIPERF_IMPORT_TIMEOUT": "2", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    argv = ["run", scenario, "--in-process", "--scenarios", str(folder), "--samples", "3", "--no-profile"]
    # timeout: only a safety net (before the fix this hung for good)
    return subprocess.run(
        [sys.executable, "-m", "tuiperf", *argv], capture_output=True, text=True, timeout=120, env=env
    )


def test_a_scenario_file_that_loops_at_import_is_one_line_in_process(looping_folder: Path, tmp_path: Path) -> None:
    done = _run_in_process("hangs", looping_folder, tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        f"tuiperf: {looping_folder / 'hangs.py'}: did not finish importing within 2 s"
    ], done.stderr


def test_a_run_in_process_imports_its_own_file_only(looping_folder: Path, tmp_path: Path) -> None:
    done = _run_in_process("tiny", looping_folder, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Tiny\n")  # measured: the looping file was never imported here
