"""Headless screenshots: run a scenario in the app without a terminal and save the screen as SVG.

``tuiperf screenshot ID --out FILE.svg`` calls :func:`take_screenshot`; ``scripts/screenshots.py``
uses it to regenerate the README's and the docs' pictures.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tuiperf.common.errors import TuiperfError
from tuiperf.contract.options import RunSettings
from tuiperf.tui.png import write_png

DEVICES_WAIT_S = 60.0  # the device list comes from a process that imports JAX: seconds on a small machine


def parse_size(size: str | tuple[int, int]) -> tuple[int, int]:
    """``"120x40"`` → ``(120, 40)``."""
    if isinstance(size, tuple):
        return size
    try:
        w, _, h = size.lower().partition("x")
        return int(w), int(h)
    except ValueError:
        raise TuiperfError(f"size must look like 120x40, got {size!r}") from None


def take_screenshot(
    runner: Any,
    scenario_id: str,
    out: str | Path,
    params: dict[str, Any] | None = None,
    tab: str | None = "histogram",
    size: str | tuple[int, int] = (160, 48),
    *,
    scenario_dirs: list[str] | tuple[str, ...] = (),
    sweep: tuple[str, list[Any]] | None = None,
    grid: tuple[str, list[Any]] | None = None,
    variants: list[str] | None = None,
    device: str | None = None,
    environments: list[str] | None = None,
    settings: RunSettings | None = None,
    png: bool | None = None,
    timeout_s: float = 600.0,
    log_scale: bool | None = None,
    outcome: dict[str, Any] | None = None,
) -> Path:
    """Run ``scenario_id`` in the app headless, show ``tab`` and save the screen to ``out`` (SVG).

    ``params`` are raw values (strings are parsed as on the command line); ``tab`` is one of
    histogram, breakdown, sweep, stats, profile, warnings. ``png``: also write ``out`` with .png
    (None: when cairosvg is installed). Returns the SVG's path. Pass a dict as ``outcome`` to get
    ``{"svg", "png" (path or None), "result" (the run's document), "error" ((title, message) or None)}``.
    Raises :class:`TuiperfError` when the scenario is unknown or the run failed without any result.
    """
    from tuiperf.tui.app import TuiperfApp
    from tuiperf.tui.launch import LaunchOptions
    from tuiperf.tui.widgets.histogram import LatencyHistogram

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    width, height = parse_size(size)
    launch = LaunchOptions(
        scenario=scenario_id,
        params=dict(params or {}),
        autorun=sweep is None,
        sweep=sweep,
        grid=grid,
        variants=variants,
        device=device,
        environments=list(environments or []),
        settings=settings or RunSettings(),
        errors_as_dialogs=False,
    )
    app = TuiperfApp(runner, scenario_dirs=scenario_dirs, screenshots_dir=out.parent, launch=launch)
    outcome = {} if outcome is None else outcome
    outcome.update({"svg": None, "png": None, "result": None, "error": None})

    async def pilot_fn(pilot: Any) -> None:
        try:
            await pilot.pause()
            main = app.main
            await main.runs.wait_for_end(timeout_s)
            deadline = time.monotonic() + DEVICES_WAIT_S
            while not main.feed.have_devices and time.monotonic() < deadline:
                await pilot.pause(0.05)  # the header counts the devices once listed (a short run ends first)
            if log_scale is not None:
                main.query_one(LatencyHistogram).set_log(log_scale)
            main.action_show_tab(tab or "histogram")
            app.clear_notifications()  # no toast in a picture meant for sharing
            await pilot.pause(0.2)
            await pilot.wait_for_scheduled_animations()
            await app.plots_settled()
            await pilot.pause(0.1)
            app.save_screenshot(filename=out.name, path=str(out.parent))
            outcome["svg"] = out
            outcome["result"] = main.result
            outcome["error"] = app.last_error
        finally:
            app.exit()

    app.run(headless=True, size=(width, height), auto_pilot=pilot_fn)
    if outcome["svg"] is None:
        raise TuiperfError(f"no screenshot was taken ({outcome['error'] or 'the app stopped early'})")
    if outcome["result"] is None and outcome["error"]:
        title, message = outcome["error"]
        raise TuiperfError(f"{title}: {message} (screenshot saved to {out})")
    if png is None or png:
        outcome["png"] = write_png(out)
        if png and outcome["png"] is None:
            raise TuiperfError("PNG needs the optional cairosvg package (pip install 'tuiperf[png]')")
    return out
