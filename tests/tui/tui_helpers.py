"""Helpers for the TUI tests (used by conftest.py and the test modules): an in-process runner that
loads the catalog once, a fake runner that replays a saved result (snapshots, failure paths), and
helpers to wait on app state and to run async test bodies."""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _cairo_works() -> bool:
    try:
        import cairosvg  # noqa: F401 - needs the system cairo library too
    except Exception:  # noqa: BLE001
        return False
    return True


HAS_CAIRO = _cairo_works()  # PNGs are written only with the optional cairosvg (the png/test extras)
HERE = Path(__file__).parent
SCENARIOS = HERE / "scenarios"
FIXTURE = HERE / "fixtures" / "tiny_sin.json"


class CachedCatalogRunner:
    """InProcessRunner whose catalog is loaded once per session (the built-in scenarios import
    equinox and flax, which is slow the first time)."""

    def __init__(self) -> None:
        from tuiperf.core.inprocess import InProcessRunner

        self.inner = InProcessRunner()
        self._catalog: dict[str, Any] | None = None
        self._devices: list[dict[str, Any]] | None = None

    def catalog(self, scenario_dirs=None):
        if self._catalog is None:
            self._catalog = self.inner.catalog(scenario_dirs)
        return copy.deepcopy(self._catalog)

    def devices(self):
        if self._devices is None:
            self._devices = self.inner.devices()
        return list(self._devices)

    def run(self, request, on_event=None, cancel=None):
        return self.inner.run(request, on_event, cancel)

    def close(self) -> None:
        pass


class FakeRunner:
    """Replays the saved fixture: catalog, devices and the result, with events; or raises."""

    def __init__(self, saved: dict[str, Any], fail: Exception | None = None) -> None:
        self.saved = saved
        self.fail = fail
        self.requests: list[Any] = []

    def catalog(self, scenario_dirs=None):
        return copy.deepcopy(self.saved["catalog"])

    def devices(self):
        return copy.deepcopy(self.saved["devices"])

    def run(self, request, on_event=None, cancel=None):
        from tuiperf.core.events import Progress, RunFinished, RunStarted, SamplesAdded, VariantFinished

        self.requests.append(request)
        if self.fail is not None:
            raise self.fail
        result = copy.deepcopy(self.saved["sweep" if request.sweep else "result"])
        emit = on_event or (lambda e: None)
        shown = result.shown
        emit(RunStarted(request.scenario, [v.name for v in shown.variants], "cpu:0", request.dispatch))
        for v in shown.variants:
            emit(SamplesAdded(v.name, list(v.samples_ns)))
            emit(Progress(0.5, 0.1, 0.1, {v.name: v.stats.median_ns if v.stats else 0.0}, {}))
            emit(VariantFinished(v))
        emit(RunFinished(result))
        return result

    def close(self) -> None:
        pass


async def wait_until(pilot: Any, condition: Callable[[], Any], timeout: float = 30.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        await pilot.pause(0.05)


async def ready(pilot: Any, scenario: str | None = "tiny-sin") -> None:
    """Wait for the catalog and (optionally) select a scenario and wait for its form."""
    app = pilot.app
    await wait_until(pilot, lambda: app.catalog is not None, what="catalog")
    if scenario:
        assert app.query_one("ScenarioList").select(scenario)
        await wait_until(
            pilot,
            lambda: app.scenario and app.scenario["id"] == scenario and app.query_one("ParamForm").specs,
            what="scenario form",
        )
        await pilot.pause()


def fast_app(runner: Any, scenario_dirs: list[str], **kwargs: Any):
    from tuiperf.tui.app import TuiperfApp

    kwargs.setdefault("samples", 200)
    kwargs.setdefault("budget_s", 0.3)
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, **kwargs)
    return app


def sync(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run an async test body with asyncio (no async pytest plugin needed)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return asyncio.run(fn(*args, **kwargs))

    return wrapper
