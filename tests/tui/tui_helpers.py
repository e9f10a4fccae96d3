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
        from tuiperf.measuring.inprocess import InProcessRunner

        self.inner = InProcessRunner()
        self._catalog: dict[str, Any] | None = None
        self._devices: list[dict[str, Any]] | None = None

    def catalog(self, scenario_dirs=None):
        if self._catalog is None:
            self._catalog = self.inner.catalog(scenario_dirs)
        return copy.deepcopy(self._catalog)

    def cached_catalog(self, scenario_dirs=None):
        return None

    def devices(self):
        if self._devices is None:
            self._devices = self.inner.devices()
        return list(self._devices)

    def run(self, request, on_event=None, cancel=None):
        return self.inner.run(request, on_event, cancel)

    def close(self) -> None:
        pass


class FakeRunner:
    """Replays the saved fixture: catalog, devices and the result, with events; or raises.

    ``gates``: one threading.Event per run to come; a run waits on its gate before returning, so a
    test can decide when each run ends.
    """

    def __init__(self, saved: dict[str, Any], fail: Exception | None = None) -> None:
        self.saved = saved
        self.fail = fail
        self.requests: list[Any] = []
        self.gates: list[Any] = []

    def catalog(self, scenario_dirs=None):
        return copy.deepcopy(self.saved["catalog"])

    def cached_catalog(self, scenario_dirs=None):
        return None

    def devices(self):
        return copy.deepcopy(self.saved["devices"])

    def run(self, request, on_event=None, cancel=None):
        from tuiperf.contract.events import Progress, RunStarted, SamplesAdded, VariantFinished

        self.requests.append(request)
        gate = self.gates.pop(0) if self.gates else None
        if self.fail is not None:
            raise self.fail
        result = copy.deepcopy(self.saved["sweep" if request.sweep else "result"])
        emit = on_event or (lambda e: None)
        shown = result.shown
        emit(RunStarted(request.scenario, [v.name for v in shown.variants], "cpu:0", request.settings.dispatch))
        for v in shown.variants:
            emit(SamplesAdded(v.name, list(v.sampling.samples_ns)))
            emit(Progress(0.5, 0.1, 0.1, {v.name: v.sampling.stats.median_ns if v.sampling.stats else 0.0}, {}))
            emit(VariantFinished(v))
        if gate is not None:
            gate.wait(30)
        return result

    def close(self) -> None:
        pass


async def wait_until(pilot: Any, condition: Callable[[], Any], timeout: float = 30.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        await pilot.pause(0.05)


async def ready(pilot: Any, scenario: str | None = "tiny-sin") -> Any:
    """Wait for the catalog and the panels, (optionally) select a scenario and wait for its form; the
    main screen."""
    app = pilot.app
    main = app.main
    await wait_until(pilot, lambda: main.catalog is not None and main.panels_ready, what="catalog and panels")
    if scenario:
        assert main.setup.select(scenario)
        await wait_until(
            pilot,
            lambda: main.setup.scenario and main.setup.scenario.id == scenario and main.setup.form.specs,
            what="scenario form",
        )
        await pilot.pause()
    return main


async def run_to_end(pilot: Any, key: str | None = "r") -> Any:
    """Press ``key`` (or not) and wait for the run's end event; the main screen."""
    main = pilot.app.main
    if key:
        await pilot.press(key)
    await main.runs.wait_for_end(60)
    await pilot.pause()
    return main


def record_notifications(app: Any) -> list[str]:
    """Every notification the app shows from now on, as "title: message" (through the public
    ``App.notify``, which screens and widgets call too)."""
    shown: list[str] = []
    notify = app.notify

    def recording(message: str, *, title: str = "", **kwargs: Any) -> None:
        shown.append(f"{title}: {message}")
        notify(message, title=title, **kwargs)

    app.notify = recording
    return shown


def fast_app(runner: Any, scenario_dirs: list[str], screenshots_dir: Any = "screenshots", **launch: Any):
    from tuiperf.contract.options import RunSettings
    from tuiperf.tui.app import TuiperfApp
    from tuiperf.tui.launch import LaunchOptions

    names = set(RunSettings.__struct_fields__)
    settings = {"samples": 200, "budget_s": 0.3, **{k: launch.pop(k) for k in list(launch) if k in names}}
    launch["settings"] = RunSettings(**settings)
    return TuiperfApp(
        runner, scenario_dirs=scenario_dirs, screenshots_dir=screenshots_dir, launch=LaunchOptions(**launch)
    )


def sync(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run an async test body with asyncio (no async pytest plugin needed)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return asyncio.run(fn(*args, **kwargs))

    return wrapper


async def open_stored(pilot, run_id, shown=lambda main: main.result is not None, on_rows=None):
    """Through the history screen, as a user does: list every scenario's runs, enter on ``run_id``, and
    wait until ``shown(main)``; ``on_rows(app)`` is called while the rows are on screen."""
    app = pilot.app
    main = app.main
    await pilot.press("escape", "h")
    screen = app.screen
    screen.query_one("#history-filter").value = ""
    await wait_until(pilot, lambda: any(r.id == run_id for r in screen.runs), what="every scenario's runs")
    if on_rows is not None:
        on_rows(app)
    table = screen.query_one("#history-table")
    table.move_cursor(row=[r.id for r in screen.runs].index(run_id))
    table.focus()
    await pilot.press("enter")
    await wait_until(pilot, lambda: app.screen is main and shown(main), what="the stored run shown")
    await pilot.pause()
    return main
