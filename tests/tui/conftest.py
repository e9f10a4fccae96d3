"""Fixtures for the TUI tests; the helpers themselves live in tui_helpers.py."""

from __future__ import annotations

import json
from importlib.metadata import version
from typing import Any

import pytest
from tui_helpers import FIXTURE, SCENARIOS, CachedCatalogRunner, FakeRunner, fast_app

# The snapshots (tests/tui/__snapshots__) pin Textual's exact rendering, which changes between its
# releases; at any other version of the supported range they are skipped, saying why, and every
# other TUI test runs (scripts/test_versions.sh lowest|newest).
SNAPSHOTS_TAKEN_WITH = "8.2.8"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    installed = version("textual")
    if installed == SNAPSHOTS_TAKEN_WITH:
        return
    skip = pytest.mark.skip(reason=f"snapshots were taken with Textual {SNAPSHOTS_TAKEN_WITH}, this is {installed}")
    for item in items:
        if "snap_compare" in getattr(item, "fixturenames", ()):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def no_registered_environments(monkeypatch, tmp_path_factory):
    """The app lists the Python environments `tuiperf env` registered in the user's data folder: an
    empty one here, so that every test and snapshot sees ``current`` alone whatever this machine has."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data")))


@pytest.fixture(scope="session")
def saved() -> dict[str, Any]:
    """The fixture written by scripts/make_tui_fixture.py, results typed."""
    import msgspec

    from tuiperf.contract.catalog import Catalog
    from tuiperf.results.model import DeviceInfo, RunResult

    raw = json.loads(FIXTURE.read_text())
    return {
        **raw,
        "catalog": msgspec.convert(raw["catalog"], Catalog),
        "result": msgspec.convert(raw["result"], RunResult),
        "sweep": msgspec.convert(raw["sweep"], RunResult),
        "devices": msgspec.convert(raw["devices"], list[DeviceInfo]),
    }


@pytest.fixture(scope="session")
def scenario_dirs() -> list[str]:
    return [str(SCENARIOS)]


@pytest.fixture(scope="session")
def tui_runner() -> CachedCatalogRunner:
    return CachedCatalogRunner()


@pytest.fixture
def fake_runner(saved) -> FakeRunner:
    return FakeRunner(saved)


@pytest.fixture
def make_app(tui_runner, scenario_dirs, tmp_path):
    def make(**kwargs: Any):
        kwargs.setdefault("screenshots_dir", tmp_path / "shots")
        return fast_app(kwargs.pop("runner", tui_runner), scenario_dirs, **kwargs)

    return make
