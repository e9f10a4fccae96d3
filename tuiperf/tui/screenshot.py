"""Headless screenshots: run a scenario in the app without a terminal and save the screen as SVG.

``tuiperf screenshot ID --out FILE.svg`` calls :func:`take_screenshot`; ``scripts/screenshots.py``
uses it to regenerate the README's pictures.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from tuiperf.core.errors import TuiperfError


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
    variants: list[str] | None = None,
    device: str | None = None,
    dispatch: str | None = None,
    budget_s: float | None = None,
    samples: int | None = None,
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

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    width, height = parse_size(size)
    app = TuiperfApp(
        runner,
        scenario_dirs=scenario_dirs,
        screenshots_dir=out.parent,
        scenario=scenario_id,
        params=params,
        autorun=sweep is None,
        sweep=sweep,
        variants=variants,
        device=device,
        dispatch=dispatch,
        budget_s=budget_s,
        samples=samples,
        live_errors_modal=False,
    )
    app.is_headless_screenshot = True
    outcome = {} if outcome is None else outcome
    outcome.update({"svg": None, "png": None, "result": None, "error": None})
    tab = tab or "histogram"

    async def pilot_fn(pilot: Any) -> None:
        deadline = time.monotonic() + timeout_s
        await pilot.pause()
        try:
            while app.run_count == 0 and time.monotonic() < deadline:
                if app.initial_failed or (app.catalog is not None and app.errors_seen and not app.running):
                    break  # unknown scenario or a failure before any run
                await asyncio.sleep(0.1)
            app.log_scale = log_scale
            app.action_show_tab(tab)
            await pilot.pause(0.3)
            await pilot.wait_for_scheduled_animations()
            await app.plots_settled()
            await pilot.pause(0.1)
            app.save_screenshot(filename=out.name, path=str(out.parent))
            outcome["svg"] = out
            outcome["result"] = app.result
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


def write_png(svg_path: Path) -> Path | None:
    """Write a PNG beside an SVG when the optional cairosvg is installed; None otherwise."""
    try:
        import cairosvg  # type: ignore[import-not-found]
    except Exception:  # noqa: BLE001 - optional extra (and the cairo system library)
        return None
    png = svg_path.with_suffix(".png")
    try:
        cairosvg.svg2png(url=str(svg_path), write_to=str(png), output_width=None)
    except Exception:  # noqa: BLE001 - a PNG is a bonus, the SVG is saved
        return None
    return png
