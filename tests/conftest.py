"""Shared fixtures. Tests run on the CPU in synchronous dispatch, so repeated runs agree."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types
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
# A project of its own that uses the pytest plugin, run by tests/test_pytest_plugin.py in a copy.
collect_ignore = ["plugin_project"]
TUI_TESTS = Path(__file__).parent / "tui"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: twice as many workers as CPUs. Many slow tests mostly wait (a measuring process
    starting, a --timeout running out, Chromium loading), and more workers fill that time: the whole
    suite took 8 min 21 s with 2 workers on 2 cores, 7 min 52 s with 3 (2026-12-07, idle); with this
    batch's tests, 8 min 28 s with 3 and 7 min 56 s with 4 (and the app fuzz at 100 results, not 200)."""
    return max(2, (os.cpu_count() or 1) * 2)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test under tests/tui is a ``tui`` test (the layers: pyproject.toml's markers)."""
    for item in items:
        if TUI_TESTS in item.path.parents:
            item.add_marker(pytest.mark.tui)


@pytest.fixture(scope="session")
def fixture_dir() -> str:
    return str(FIXTURES)


class _SyncDispatchOnImport(importlib.abc.MetaPathFinder):
    """JAX's dispatch mode is fixed by a process's first computation: it is made sync the moment JAX is
    imported, in whichever test first needs it, so that a test that needs no JAX does not import it."""

    def find_spec(self, name: str, path: object, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if name != "jax":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module: types.ModuleType) -> None:
            load(module)
            from tuiperf.measuring.inprocess import set_dispatch

            set_dispatch("sync")

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if "jax" in sys.modules:  # imported before the tests were collected (a plugin): set it now
    from tuiperf.measuring.inprocess import set_dispatch

    set_dispatch("sync")
else:
    sys.meta_path.insert(0, _SyncDispatchOnImport())


@pytest.fixture(scope="session")
def runner(fixture_dir):
    from tuiperf.measuring.inprocess import InProcessRunner

    return InProcessRunner([fixture_dir])
