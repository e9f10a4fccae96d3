#!/usr/bin/env python
"""Regenerate the screenshots the README and docs/ show: ``python scripts/screenshots.py [--only NAME] [--out DIR]``.

Each picture is a real run of a built-in scenario in the explorer, headless, through the same
measuring process the app uses (``ProcessRunner``). SVGs go to ``screenshots/``; a PNG is written beside
each when the optional ``cairosvg`` is installed. Timings differ from machine to machine, of course.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tuiperf.contract.options import DEFAULT_DISPATCH, DISPATCH_MODES, RunSettings  # noqa: E402
from tuiperf.processes.runner import ProcessRunner  # noqa: E402
from tuiperf.tui.screenshot import take_screenshot  # noqa: E402

# name, scenario, params, tab, size, extra options
SHOTS = [
    ("dispatch-floor-histogram", "dispatch-floor", {}, "histogram", (120, 40), {"budget_s": 2.0}),
    ("dispatch-floor-80x24", "dispatch-floor", {}, "histogram", (80, 24), {"budget_s": 1.0}),
    ("mlp-closure-vs-argument-stats-80x24", "mlp-closure-vs-argument", {}, "stats", (80, 24), {"budget_s": 2.0}),
    ("mlp-closure-vs-argument-stats", "mlp-closure-vs-argument", {}, "stats", (120, 40), {"budget_s": 2.0}),
    ("mlp-closure-vs-argument-breakdown", "mlp-closure-vs-argument", {}, "breakdown", (120, 40), {"budget_s": 2.0}),
    (
        "conv-transpose-3d-int-kernel-warnings",
        "conv-transpose-3d",
        {"flax_kernel_size": "int", "size": "12"},
        "warnings",
        (120, 40),
        {"budget_s": 2.0},
    ),
    (
        "conv-transpose-3d-int-kernel-stats",
        "conv-transpose-3d",
        {"flax_kernel_size": "int", "size": "12"},
        "stats",
        (120, 40),
        {"budget_s": 2.0},
    ),
    (  # --measure compile: each variant's compile median and interval first, the stages in Breakdown
        "loop-compile-compile",
        "loop-compile",
        {"steps": "64"},
        "breakdown",
        (120, 40),
        {"budget_s": 1.0, "measure": "compile"},
    ),
    (
        "static-leaves-sweep",
        "static-leaves-partition",
        {},
        "sweep",
        (120, 40),
        {"budget_s": 0.5, "sweep": ("n_static", [10, 100, 1000, 10000])},
    ),
    (
        "dispatch-floor-grid-80x24",
        "dispatch-floor",
        {},
        "sweep",
        (80, 24),
        {"budget_s": 0.5, "sweep": ("n_args", [1, 16, 256]), "grid": ("size", [1, 4096])},
    ),
    (
        "sharded-step-devices-sweep",
        "sharded-step",
        {},
        "sweep",
        (120, 40),
        {"budget_s": 0.5, "devices": 8, "sweep": ("devices", [1, 2, 4, 8])},
    ),
]


async def _until(pilot, condition, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not get there in time")
        await pilot.pause(0.05)


def editor_shots(runner: ProcessRunner, out: Path, size: tuple[int, int] = (100, 30)) -> list[Path]:
    """The editor showing a save's error at its line, and the template picker (``n``)."""
    import asyncio
    import os
    import tempfile

    from tuiperf.catalog.templates import new_scenario
    from tuiperf.tui.app import TuiperfApp
    from tuiperf.tui.png import write_png
    from tuiperf.tui.screens.editor import EditorScreen

    folder = Path(tempfile.mkdtemp(prefix="tuiperf-shots-"))
    os.environ["TUIPERF_USER_SCENARIOS"] = str(folder)  # nothing of the machine's own folder shows
    path = new_scenario("my-first", folder)
    saved: list[Path] = []

    async def drive() -> None:
        app = TuiperfApp(runner, scenario_dirs=[str(folder)], screenshots_dir=out)
        async with app.run_test(size=size) as pilot:
            main = app.main
            await _until(pilot, lambda: main.catalog is not None and main.setup.select("my-first"))
            await _until(pilot, lambda: main.panels_ready and main.setup.form.owner == "my-first")
            await pilot.press("escape", "e")
            editor = app.screen
            assert isinstance(editor, EditorScreen)
            editor.source.text = path.read_text().replace('title="My first",', 'title="My first", (')
            await pilot.press("ctrl+s")
            await _until(pilot, lambda: "✗" in str(editor.query_one("#editor-status").render()))
            await pilot.pause(0.3)
            saved.append(Path(app.save_screenshot("editor-error.svg", str(out))))
            editor.source.text = path.read_text()  # back to the good version, unsaved: leave without it
            await pilot.press("escape", "y")
            await pilot.press("n")
            await pilot.press(*"my-mlp")
            app.screen.query_one("#new-template").highlighted = 1
            await pilot.pause(0.3)
            saved.append(Path(app.save_screenshot("template-picker.svg", str(out))))

    asyncio.run(drive())
    for svg in saved:
        write_png(svg)
    return saved


def history_shots(runner: ProcessRunner, out: Path, size: tuple[int, int] = (120, 32)) -> list[Path]:
    """The history screen (h) with two runs of filter-jit-overhead, and the second compared with the first."""
    import asyncio
    import tempfile

    from tuiperf.tui.app import TuiperfApp
    from tuiperf.tui.launch import LaunchOptions
    from tuiperf.tui.png import write_png

    history = Path(tempfile.mkdtemp(prefix="tuiperf-shots-")) / "history.sqlite"
    saved: list[Path] = []

    async def drive() -> None:
        launch = LaunchOptions(scenario="filter-jit-overhead", settings=RunSettings(budget_s=1.0))
        app = TuiperfApp(runner, screenshots_dir=out, launch=launch, history_path=history)
        async with app.run_test(size=size) as pilot:
            main = app.main
            await _until(pilot, lambda: main.panels_ready and main.setup.form.owner == "filter-jit-overhead")
            for width in ("64", "256"):
                main.setup.form.set_value("width", width)
                main.start_run()
                await main.runs.wait_for_end(120)
                await _until(pilot, lambda: main.history.last_stored is not None)
                main.history.last_stored = None
            await pilot.press("escape", "h")
            await _until(pilot, lambda: len(getattr(app.screen, "runs", [])) == 2)
            await pilot.press("down")  # the older run (width 64) as the baseline
            await pilot.pause(0.3)
            saved.append(Path(app.save_screenshot("history.svg", str(out))))
            await pilot.press("b")
            await _until(pilot, lambda: type(app.screen).__name__ == "ComparisonScreen")
            await pilot.pause(0.3)
            saved.append(Path(app.save_screenshot("baseline-comparison.svg", str(out))))

    asyncio.run(drive())
    for svg in saved:
        write_png(svg)
    return saved


def environments_shots(runner: ProcessRunner, out: Path) -> list[Path]:
    """A run over two Python environments (the real training-step run kept as a test fixture: `current`
    and a second interpreter), opened from the history on the Statistics tab, at 120x40 and 80x24; the
    setup form ticks the same two environments."""
    import asyncio
    import tempfile

    from tuiperf.processes.python_envs import PythonEnv, current
    from tuiperf.results.history import History
    from tuiperf.results.resultfile import load
    from tuiperf.tui.app import TuiperfApp
    from tuiperf.tui.launch import LaunchOptions
    from tuiperf.tui.png import write_png

    result = load(ROOT / "tests" / "fixtures" / "results" / "two-environments.json")
    history = Path(tempfile.mkdtemp(prefix="tuiperf-shots-")) / "history.sqlite"
    with History(history) as stored:
        stored.add(result)
    names = [run.name for run in result.environments]
    registered = [current(), *[PythonEnv(name=r.name, python=r.python) for r in result.environments[1:]]]
    saved: list[Path] = []

    async def drive(name: str, size: tuple[int, int]) -> None:
        launch = LaunchOptions(scenario=result.scenario.id, environments=names)
        app = TuiperfApp(
            runner, screenshots_dir=out, launch=launch, history_path=history, list_environments=lambda: registered
        )
        async with app.run_test(size=size) as pilot:
            main = app.main
            await _until(pilot, lambda: main.panels_ready and main.setup.form.owner == result.scenario.id)
            await _until(pilot, lambda: main.setup.options.environments == names)
            await pilot.press("escape", "h")
            await _until(pilot, lambda: len(getattr(app.screen, "runs", [])) == 1)
            app.screen.query_one("#history-table").focus()
            await pilot.press("enter")
            await _until(pilot, lambda: main.result is not None)
            main.action_show_tab("stats")
            app.query_one("#tabs Tabs").focus()
            await pilot.pause(0.3)
            await app.plots_settled()
            saved.append(Path(app.save_screenshot(f"{name}.svg", str(out))))

    asyncio.run(drive("two-environments-stats", (120, 40)))
    asyncio.run(drive("two-environments-stats-80x24", (80, 24)))
    for svg in saved:
        write_png(svg)
    return saved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "screenshots"), help="folder for the pictures")
    parser.add_argument("--only", action="append", help="name of one picture (repeatable)")
    parser.add_argument("--dispatch", default=DEFAULT_DISPATCH, choices=DISPATCH_MODES)
    args = parser.parse_args()
    out = Path(args.out)
    runner = ProcessRunner()
    failed = 0
    try:
        for name, scenario, params, tab, size, extra in SHOTS:
            if args.only and name not in args.only:
                continue
            start = time.monotonic()
            outcome: dict = {}
            try:
                extra = dict(extra)
                settings = RunSettings(
                    dispatch=args.dispatch,
                    budget_s=extra.pop("budget_s"),
                    devices=extra.pop("devices", 1),
                    measure=extra.pop("measure", "call"),
                )
                take_screenshot(
                    runner,
                    scenario,
                    out / f"{name}.svg",
                    params,
                    tab,
                    size,
                    settings=settings,
                    outcome=outcome,
                    **extra,
                )
            except Exception as exc:  # noqa: BLE001 - report and go on with the others
                failed += 1
                print(f"FAILED {name}: {exc}", file=sys.stderr)
                continue
            png = f" + {outcome['png'].name}" if outcome.get("png") else ""
            note = f"  (error: {outcome['error'][0]})" if outcome.get("error") else ""
            print(f"{out / (name + '.svg')}{png}  {time.monotonic() - start:.1f} s{note}")
        if not args.only or "history" in args.only:
            for svg in history_shots(runner, out):
                print(svg)
        if not args.only or "environments" in args.only:
            for svg in environments_shots(runner, out):
                print(svg)
        if not args.only or "editor" in args.only:
            for svg in editor_shots(runner, out):
                print(svg)
    finally:
        runner.close()
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
