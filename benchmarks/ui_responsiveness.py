"""Is the explorer ever the slow thing on the screen? Event-loop lag, update cost, key-to-screen, memory.

1. Event-loop lag: the app runs headless with the real worker runner; a 10 ms interval timer records
   how late each tick fires: at start-up, idle (nothing pending), while a scenario runs (samples
   streaming in) and at its end (its result drawn), during a sweep and at its end.
2. Updates with a big result (10 variants x 100,000 samples, synthetic, no JAX), in a fresh process
   that gets it as the app does (encoded bytes, decoded there): the UI-thread cost of showing it and
   of serving a built plot's lines, and how long the histogram's picture takes to build off-thread
   (from showing the result until the picture is handed to the UI thread).
3. Key-to-screen: pressing a result tab's key (and b, h, a stored run opened) until the first frame
   that shows it, with a run's, a sweep's and a 2-D grid's result shown, beside a minimal Textual app measured in
   the same run (the issue's bar: p99 under 50 ms or within 1.5x of that app's).
4. Memory: that process's RSS with that result loaded; the measuring process's RSS over 20 runs.
5. (--only fills --result FILE) The UI thread's work per result: a stored result shown, then each other
   tab; each tab's fill on the UI thread (its contents are made in a worker when the result comes,
   tuiperf.tui.tab_contents) and the UI thread's CPU time from the result until every tab was drawn.

Prints each figure with its target (issue 14) and ok/MISSED.

    python benchmarks/ui_responsiveness.py [--scenario mlp-closure-vs-argument] [--budget 3] [--only lag|big|memory]
    python benchmarks/ui_responsiveness.py --only fills --result RESULT.json [--rounds 4]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import statistics
import tempfile
import time
from pathlib import Path

import msgspec

TICK_S = 0.01


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(label: str, value_ms: float, target_ms: float) -> None:
    print(f"{label:58s} {value_ms:8.1f} ms   target < {target_ms:g} ms   {'ok' if value_ms < target_ms else 'MISSED'}")


def rss_mb(pid: int | str = "self") -> float:
    from tuiperf.common.memory import resident_mb

    size = resident_mb(pid)
    return float("nan") if size is None else size


def big_result(variants: int = 10, samples: int = 100_000) -> bytes:
    """The result encoded as the measuring process sends it (its statistics computed here)."""
    import numpy as np

    from tuiperf.results import document, resultfile
    from tuiperf.results.document import RunHeader
    from tuiperf.results.model import DeviceInfo, Environment, RunOptions, ScenarioRef

    rng = np.random.default_rng(0)
    header = RunHeader(
        scenario=ScenarioRef(id="big", title="10 variants x 100,000 samples"),
        params={},
        device=DeviceInfo(id="cpu:0", platform="cpu", kind="cpu", index=0),
        options=RunOptions(),
        env=Environment(python="3", packages={"jax": "0"}, dispatch="sync"),
    )
    results = [
        document.variant_result(
            f"v{i}", document.sampling(rng.lognormal(np.log(5_000 + 700 * i), 0.1, samples).tolist())
        )
        for i in range(variants)
    ]
    return resultfile.encode(document.run_result(header, results, duration_s=1.0))


@contextlib.asynccontextmanager
async def frames_shown(active_tab):  # type: ignore[no-untyped-def]
    """When Textual first handed the terminal a frame showing each tab: from posting a tab's key until
    then is key to screen (App._display is called headless too). Not until Pilot's pause returns,
    which waits for every queue to drain and costs ~250-300 ms here whatever is shown."""
    from textual.app import App

    shown: dict[str, float] = {}
    display = App._display

    def timed_display(self, screen, renderable):  # type: ignore[no-untyped-def]
        tab = active_tab(self) if renderable is not None and self.screen_stack else None
        for what in [tab] if isinstance(tab, str) else tab or ():
            shown.setdefault(what, time.perf_counter())
        display(self, screen, renderable)

    App._display = timed_display  # type: ignore[method-assign]
    try:
        yield shown
    finally:
        App._display = display  # type: ignore[method-assign]


async def press_tabs(pilot, shown: dict[str, float], keys_and_tabs, rounds: int = 10) -> dict[str, list[float]]:  # type: ignore[no-untyped-def]
    """Key to screen of each tab's key, ``rounds`` times round the tabs, by tab."""
    keys_and_tabs = list(keys_and_tabs)
    times: dict[str, list[float]] = {tab: [] for _, tab in keys_and_tabs}
    for _ in range(rounds):
        for key, tab in keys_and_tabs:
            times[tab].append(await key_to_frame(pilot, shown, key, tab))
    return times


async def key_to_frame(pilot, shown: dict[str, float], key: str, what: str, timeout: float = 10) -> float:  # type: ignore[no-untyped-def]
    """From pressing ``key`` until a frame showing ``what`` was handed to the terminal."""
    shown.clear()
    start = time.perf_counter()
    await pilot.press(key)
    while what not in shown and time.perf_counter() - start < timeout:
        await pilot.pause(0.005)
    return shown.get(what, float("inf")) - start


def every(times: dict[str, list[float]]) -> list[float]:
    return [t for values in times.values() for t in values]


def textual_floor() -> list[float]:
    """:func:`textual_floor_times` in a fresh process: Textual as it ships (tuiperf's app applies its
    fixes to Textual's compositor in the process that runs it, tuiperf/tui/textual_fixes.py)."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return list(pool.apply(_floor_in_this_process))


def _floor_in_this_process() -> list[float]:
    return asyncio.run(textual_floor_times())


async def textual_floor_times() -> list[float]:
    """Key to screen in a minimal Textual app of the same size: a header, six tabs of text and a
    footer. What Textual itself takes on this machine to switch a tab, for scale."""
    from textual.app import App
    from textual.widgets import Footer, Header, Static, TabbedContent, TabPane

    class SixTabs(App):
        BINDINGS = [(str(i + 1), f"show('t{i}')", f"tab {i}") for i in range(6)]

        def compose(self):  # type: ignore[no-untyped-def]
            yield Header()
            with TabbedContent():
                for i in range(6):
                    with TabPane(f"Tab {i}", id=f"t{i}"):
                        yield Static(("lorem ipsum dolor sit amet " * 30 + "\n") * 20)
            yield Footer()

        def action_show(self, tab: str) -> None:
            self.query_one(TabbedContent).active = tab

    app = SixTabs()
    app.animation_level = "none"
    tab_shown = frames_shown(lambda app: app.query_one(TabbedContent).active)
    async with app.run_test(size=(160, 48)) as pilot, tab_shown as shown:
        await pilot.pause(0.5)
        times = await press_tabs(pilot, shown, [(str(i), f"t{i - 1}") for i in (2, 3, 4, 1)])
    return every(times)


def on_screen(app) -> list[str]:  # type: ignore[no-untyped-def]
    """What a frame of the explorer shows: the result tab on screen, the baseline, the screen on top."""
    from tuiperf.tui.screens.history import HistoryScreen

    if isinstance(app.screen, HistoryScreen):
        return ["history"]
    main = app.main
    if not main.panels_ready or app.screen is not main:
        return []
    panel = main.results_panel
    stats = panel.query_one("#stats-view")  # not panel.stats, which fills the tab: the observer would do the work
    return [panel.active_tab, f"baseline {stats.baseline}", f"result {id(main.result)}"]


async def time_commands(app, pilot, shown: dict[str, float], rounds: int = 5) -> dict[str, list[float]]:  # type: ignore[no-untyped-def]
    """Key to screen of what a user does with a finished result: each tab, b, h and a stored run opened."""
    from tuiperf.tui.commands import RESULT_TABS

    main = app.main
    times: dict[str, list[float]] = {}
    for _ in range(rounds):
        keys = [*enumerate(RESULT_TABS, start=1)]
        for key, (tab, _) in [*keys[1:], keys[0]]:  # the tab shown (the histogram) last
            times.setdefault(tab, []).append(await key_to_frame(pilot, shown, str(key), tab))
            await pilot.pause(0.1)
        stats = main.results_panel.stats  # the shown document: a sweep's last point
        names = [v.name for v in stats.result.measured]
        following = names[(names.index(stats.baseline) + 1) % len(names)] if stats.baseline in names else names[0]
        times.setdefault("b (next baseline)", []).append(await key_to_frame(pilot, shown, "b", f"baseline {following}"))
        await pilot.pause(0.1)
        times.setdefault("h (history)", []).append(await key_to_frame(pilot, shown, "h", "history"))
        await pilot.pause(0.3)
        await pilot.press("escape")
        await pilot.pause(0.2)
        stored = msgspec.structs.replace(main.result)  # a new document, as the history's reader makes
        made = main.results_panel.view_maker()(stored)  # its view and tabs, as the history's loading thread makes them
        shown.clear()
        start = time.perf_counter()
        main._open_stored(stored, 1, made)
        while f"result {id(stored)}" not in shown and time.perf_counter() - start < 10:
            await pilot.pause(0.005)
        times.setdefault("a stored run opened", []).append(shown.get(f"result {id(stored)}", float("inf")) - start)
        await pilot.pause(0.3)
    return times


async def measure_lag(scenario: str, budget: float) -> tuple[dict[str, list[float]], dict[str, dict[str, list[float]]]]:
    from tuiperf.contract.options import RunSettings
    from tuiperf.processes.runner import ProcessRunner
    from tuiperf.tui.app import TuiperfApp
    from tuiperf.tui.launch import LaunchOptions

    runner = ProcessRunner(spare=True)
    history = Path(tempfile.mkdtemp()) / "history.sqlite"
    app = TuiperfApp(
        runner,
        launch=LaunchOptions(scenario=scenario, settings=RunSettings(budget_s=budget)),
        freeze_gc=True,
        history_path=history,
    )
    app.animation_level = "none"
    # idle: nothing started, measured or drawn (the loader has answered and a second has passed, or a
    # run's result is drawn); start-up: until the loader's answer with the devices; a run's end: from
    # its last event until every plot shows the result (one layout and the plots' builds).
    phases = ("idle", "start-up", "run", "run's end", "sweep", "sweep's end", "grid", "grid's end")
    lags: dict[str, list[float]] = {name: [] for name in phases}
    phase = ["start-up"]
    commands: dict[str, dict[str, list[float]]] = {}
    try:
        async with app.run_test(size=(160, 48)) as pilot, frames_shown(on_screen) as shown:
            main = app.main
            while not main.panels_ready or main.setup.form.owner != scenario:
                await pilot.pause(0.05)
            expected = [time.perf_counter() + TICK_S]

            def tick() -> None:
                now = time.perf_counter()
                running = phase[0].removesuffix("'s end") if main.running else phase[0]
                if running in lags:
                    lags[running].append(max(0.0, now - expected[0]))
                expected[0] = now + TICK_S

            app.set_interval(TICK_S, tick)
            while not main.feed.have_devices:
                await pilot.pause(0.05)
            await pilot.pause(1.0)
            phase[0] = "idle"
            await pilot.pause(1.5)
            shapes = (("run", None, None), ("sweep", ("batch", [1, 4, 16]), None))
            shapes += (("grid", ("batch", [1, 16]), ("width", [16, 64])),)  # a 2-D grid: 4 cells
            for name, sweep, grid in shapes:
                phase[0] = f"{name}'s end"
                main.start_run(sweep=sweep, grid=grid)
                await main.runs.wait_for_end(600)
                await app.plots_settled()
                phase[0] = "idle"
                await pilot.pause(1.5)
                phase[0] = "commands"  # not counted as lag: the keys are timed instead
                commands[name] = await time_commands(app, pilot, shown)
                await app.plots_settled()
                phase[0] = "idle"
                await pilot.pause(1.0)
    finally:
        runner.close()
    return lags, commands


async def measure_big_result(encoded: bytes) -> dict[str, float]:
    from tuiperf.results import resultfile
    from tuiperf.tui.app import TuiperfApp
    from tuiperf.tui.widgets.histogram import LatencyHistogram
    from tuiperf.tui.widgets.plot_base import CachedPlot

    class NoRunner:
        def catalog(self, scenario_dirs=None):
            return {"dirs": [], "scenarios": [], "broken": []}

        def cached_catalog(self, scenario_dirs=None):
            return None

        def devices(self):
            from tuiperf.results.model import DeviceInfo

            return [DeviceInfo("cpu:0", "cpu", "cpu", 0)]

        def close(self):
            pass

    pictures: list[float] = []  # when each histogram picture reached the UI thread
    started: list[float] = []  # when its build started (a frame after the result: CachedPlot.invalidate)
    show_built, build = CachedPlot._show_built, CachedPlot._build

    def timed_build(self, key, style):  # type: ignore[no-untyped-def]
        if isinstance(self, LatencyHistogram):
            started.append(time.perf_counter())
        return build(self, key, style)

    CachedPlot._build = timed_build  # type: ignore[method-assign]

    def timed_show_built(self, key, strips):  # type: ignore[no-untyped-def]
        if isinstance(self, LatencyHistogram):
            pictures.append(time.perf_counter())
        show_built(self, key, strips)

    CachedPlot._show_built = timed_show_built  # type: ignore[method-assign]
    result = resultfile.decode(encoded)
    figures: dict[str, float] = {}
    app = TuiperfApp(NoRunner(), freeze_gc=True)  # as tuiperf.tui.app.main builds it
    app.animation_level = "none"  # the tab underline's slide would be timed, not our work

    async def key_times() -> dict[str, list[float]]:
        return await press_tabs(pilot, shown, zip("4123", ("stats", "histogram", "breakdown", "sweep"), strict=True))

    tab_shown = frames_shown(lambda app: app.main.results_panel.active_tab if app.main.panels_ready else None)
    async with app.run_test(size=(160, 48)) as pilot, tab_shown as shown:
        main = app.main
        while not main.panels_ready:
            await pilot.pause(0.05)
        empty_keys = await key_times()  # the same with nothing to show
        await pilot.press("1")  # the histogram on screen: its picture is the one built at once
        await pilot.pause(0.2)
        shows, builds, drawn = [], [], []
        for _ in range(5):
            pictures.clear()
            started.clear()
            start = time.perf_counter()
            main.show_result(result)  # on the UI thread: the tab on screen filled, the others queued
            shows.append(time.perf_counter() - start)
            await app.plots_settled()
            builds.append(pictures[-1] - started[-1] if pictures and started else float("inf"))
            drawn.append(pictures[-1] - start if pictures else float("inf"))
            await pilot.pause(0.2)
        figures["show_s"] = statistics.median(shows)
        figures["build_s"] = statistics.median(builds)
        figures["build_max_s"] = max(builds)
        figures["drawn_s"] = statistics.median(drawn)
        plot = app.screen.query_one(LatencyHistogram)
        start = time.perf_counter()
        for y in range(plot.size.height):
            plot.render_line(y)
        figures["lines_s"] = time.perf_counter() - start
        keys = await key_times()
        figures["key_p99_s"] = percentile(every(keys), 0.99)
        figures["key_empty_p99_s"] = percentile(every(empty_keys), 0.99)
        for tab, values in keys.items():
            figures[f"tab {tab} p50_s"] = percentile(values, 0.5)
            figures[f"tab {tab} max_s"] = max(values)
        figures["ui_rss_mb"] = rss_mb()
    return figures


async def measure_fills(result_path: str, rounds: int) -> tuple[dict[str, list[float]], list[float]]:
    """Each tab's fill on the UI thread (ms, by tab) and the UI thread's CPU per result (ms)."""
    from tuiperf.results.model import RunResult
    from tuiperf.tui.app import TuiperfApp
    from tuiperf.tui.commands import RESULT_TABS
    from tuiperf.tui.widgets.results_panel import ResultsPanel

    result = msgspec.json.decode(Path(result_path).read_bytes(), type=RunResult)
    fills: dict[str, list[float]] = {}
    recording = False
    filled = ResultsPanel.filled

    def timed_filled(self, tab):  # type: ignore[no-untyped-def]
        due, start = tab in self._due, time.perf_counter()
        panel = filled(self, tab)
        if due and recording:
            fills.setdefault(tab, []).append(1e3 * (time.perf_counter() - start))
        return panel

    class NoRunner:
        def catalog(self, scenario_dirs=None):  # type: ignore[no-untyped-def]
            return {"dirs": [], "scenarios": [], "broken": []}

        def cached_catalog(self, scenario_dirs=None):  # type: ignore[no-untyped-def]
            return None

        def devices(self):  # type: ignore[no-untyped-def]
            return [{"id": "cpu:0", "platform": "cpu", "kind": "cpu", "index": 0}]

        def close(self):  # type: ignore[no-untyped-def]
            pass

    ResultsPanel.filled = timed_filled  # type: ignore[method-assign]
    app = TuiperfApp(NoRunner(), freeze_gc=True)
    app.animation_level = "none"
    cpu: list[float] = []
    async with app.run_test(size=(160, 48)) as pilot, frames_shown(on_screen) as shown:
        main = app.main
        while not main.panels_ready:
            await pilot.pause(0.05)
        for round_ in range(rounds + 1):  # the first warms up
            recording = round_ > 0
            await key_to_frame(pilot, shown, "1", "histogram")
            await pilot.pause(0.3)
            start = time.thread_time()  # the UI thread's CPU time
            main.show_result(msgspec.structs.replace(result))  # a new document, as a stored run
            await pilot.pause(0.3)
            for key, (tab, _) in list(enumerate(RESULT_TABS, start=1))[1:]:
                await key_to_frame(pilot, shown, str(key), tab)
            await app.plots_settled()
            if recording:
                cpu.append(1e3 * (time.thread_time() - start))
    ResultsPanel.filled = filled  # type: ignore[method-assign]
    return fills, cpu


def fills_report(result_path: str, rounds: int) -> None:
    fills, cpu = asyncio.run(measure_fills(result_path, rounds))
    print(f"a result shown, then each other tab (160x48, {rounds} rounds): UI thread's work")
    print(f"    CPU from the result until every tab was drawn: median {statistics.median(cpu):.0f} ms")
    for tab, values in fills.items():
        median_ms, max_ms = statistics.median(values), max(values)
        print(f"    {tab:10s} filled at its first show: median {median_ms:5.1f} ms, max {max_ms:5.1f} ms")


def big_result_figures(encoded: bytes) -> dict[str, float]:
    return asyncio.run(measure_big_result(encoded))


def measuring_memory(runs: int = 20) -> list[float]:
    from tuiperf.contract.options import RunSettings
    from tuiperf.contract.request import RunRequest
    from tuiperf.processes.runner import ProcessRunner

    runner = ProcessRunner()
    sizes = []
    try:
        for _ in range(runs):
            runner.run(
                RunRequest(scenario="mlp-closure-vs-argument", settings=RunSettings(budget_s=0.3, profile=False))
            )
            child = runner._measuring  # the same process is reused for the same file and dispatch
            assert child is not None
            sizes.append(rss_mb(child.process.pid))
    finally:
        runner.close()
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="mlp-closure-vs-argument")
    parser.add_argument("--budget", type=float, default=3.0)
    parser.add_argument("--only", choices=("lag", "big", "memory", "fills"), help="one part (default: the first three)")
    parser.add_argument("--result", help="for --only fills: a result file (tuiperf run ... --out FILE)")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    if args.only == "fills":
        if not args.result:
            parser.error("--only fills needs --result FILE")
        fills_report(args.result, args.rounds)
        return
    if args.only in (None, "lag"):
        lag_figures(args.scenario, args.budget)
    if args.only in (None, "big"):
        big_result_report()
    if args.only in (None, "memory"):
        memory_report()


def lag_figures(scenario: str, budget: float) -> None:
    lags, commands = asyncio.run(measure_lag(scenario, budget))
    for phase, values in lags.items():
        if values:
            report(f"event-loop lag p99, {phase} ({len(values)} ticks)", 1e3 * percentile(values, 0.99), 16)
            report(f"event-loop lag max, {phase}", 1e3 * max(values), 50)
    # The bar: p99 under 50 ms, or within 1.5x of a minimal Textual app measured in the same run
    # (what Textual itself takes on this machine now, load included).
    floor = textual_floor()
    floor_p50, floor_p99 = 1e3 * percentile(floor, 0.5), 1e3 * percentile(floor, 0.99)
    target = max(50.0, 1.5 * floor_p99)
    print(
        f"key to screen in a minimal Textual app (six tabs, 160x48, {len(floor)} presses; Textual as it ships, "
        "a fresh process), this run: "
        f"p50 {floor_p50:.1f} ms, p99 {floor_p99:.1f} ms"
    )
    for name, times in commands.items():
        presses = every(times)
        rounds = len(next(iter(times.values())))
        print(f"key to screen with {scenario}'s {name} result shown ({rounds} times each, the first fills), 160x48:")
        for what, values in times.items():
            print(
                f"    {what:24s} first {1e3 * values[0]:6.1f}  p50 {1e3 * percentile(values, 0.5):6.1f}  "
                f"max {1e3 * max(values):6.1f} ms"
            )
        report(
            f"    key to screen p99, all {len(presses)} presses (p50 {1e3 * percentile(presses, 0.5):.1f} ms)",
            1e3 * percentile(presses, 0.99),
            target,
        )
        print(f"      (target: 50 ms, or 1.5x the minimal app's p99 in this run: {1.5 * floor_p99:.0f} ms)")


def big_result_report() -> None:
    # a fresh process, as the app's UI process: no numpy, nothing left from the runs above
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        big = pool.apply(big_result_figures, (big_result(),))
    report("showing 10 x 100,000 samples, UI thread (median of 5)", 1e3 * big["show_s"], 16)
    report("a built plot's lines served, UI thread (all rows)", 1e3 * big["lines_s"], 16)
    report("histogram picture built off the UI thread (median of 5)", 1e3 * big["build_s"], 50)
    print(
        f"    (slowest of the 5: {1e3 * big['build_max_s']:.0f} ms; from the result to its picture, median:"
        f" {1e3 * big['drawn_s']:.0f} ms, the build starting a frame after the result is drawn)"
    )
    floor = textual_floor()
    floor_p99 = 1e3 * percentile(floor, 0.99)
    report(
        "key to screen p99, switching tabs with that result (40 presses)",
        1e3 * big["key_p99_s"],
        max(50.0, 1.5 * floor_p99),
    )
    print(f"    (the same with no result shown: p99 {1e3 * big['key_empty_p99_s']:.0f} ms; in a minimal Textual app")
    floor_p50 = 1e3 * percentile(floor, 0.5)
    print(f"     with six tabs at the same size, what Textual itself takes here: p50 {floor_p50:.0f} ms,")
    print(f"     p99 {floor_p99:.0f} ms; target: 50 ms, or 1.5x that p99)")
    for tab in ("stats", "histogram", "breakdown", "sweep"):
        p50, worst = 1e3 * big[f"tab {tab} p50_s"], 1e3 * big[f"tab {tab} max_s"]
        print(f"    {tab:10s} key to screen p50 {p50:6.1f} ms, max {worst:6.1f} ms (10 presses)")
    print(
        f"{'UI process RSS with that result loaded':58s} {big['ui_rss_mb']:8.0f} MB   target < 150 MB   "
        f"{'ok' if big['ui_rss_mb'] < 150 else 'MISSED'}"
    )


def memory_report() -> None:
    import numpy as np

    from tuiperf.processes.runner import RETIRE_AFTER_GROWTH_MB

    sizes = measuring_memory()
    growth = sizes[-1] - sizes[1]
    # least-squares growth per run: a warm-up that levels off reads ~0 here; a leak keeps its slope
    per_run = float(np.polyfit(range(10), sizes[10:], 1)[0])
    print(
        f"{'measuring process RSS, runs 2..20':58s} {sizes[1]:.0f} -> {sizes[-1]:.0f} MB (growth {growth:+.0f} MB)   "
        f"target: no growth (< 5 %)   {'ok' if growth < 0.05 * sizes[1] else 'MISSED'}"
    )
    print(f"    (runs 11..20: {per_run:+.2f} MB a run; each MB: {' '.join(f'{s:.0f}' for s in sizes)})")
    runs = f"~{RETIRE_AFTER_GROWTH_MB / per_run:.0f} runs like these" if per_run > 0.01 else "never at this rate"
    print(f"    (bounded: a process {RETIRE_AFTER_GROWTH_MB:g} MB past its first run is replaced: {runs})")


if __name__ == "__main__":
    main()
