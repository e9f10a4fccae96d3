"""Shared fixtures. Tests run on the CPU in synchronous dispatch, so repeated runs agree."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

if os.environ.get("TUIPERF_GPU_TESTS") != "1":  # scripts/gpu_check.sh runs tests/test_gpu.py on the GPU
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
# Runs are not stored in the user's history (the history tests give their own database).
os.environ["TUIPERF_HISTORY"] = "off"
# Nor the machine's process-spread calibration (tests that need one write their own).
os.environ["TUIPERF_CALIBRATION"] = "off"
# The user's own scenario folder is never read by the tests (each test that needs one makes it).
os.environ["TUIPERF_USER_SCENARIOS"] = str(Path(__file__).parent / "fixtures" / "no-user-scenarios")

FIXTURES = Path(__file__).parent / "fixtures" / "scenarios"


@pytest.fixture(scope="session")
def fixture_dir() -> str:
    return str(FIXTURES)


@pytest.fixture(scope="session", autouse=True)
def sync_dispatch():
    """JAX's dispatch mode is fixed by a process's first computation: make it sync before any test."""
    from tuiperf.measuring.inprocess import set_dispatch

    set_dispatch("sync")


@pytest.fixture(scope="session")
def runner(fixture_dir):
    from tuiperf.measuring.inprocess import InProcessRunner

    return InProcessRunner([fixture_dir])
