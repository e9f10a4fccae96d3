"""Does the explorer stay responsive while a benchmark runs, and do plots stay cheap to redraw?

1. Event-loop lag: the app runs headless with the real worker runner; a 20 ms interval timer records
   how late each tick fires, while idle and while a scenario runs (samples streaming in).
2. Plot cost: the histogram with 100,000 real samples (dispatch-floor, measured just before):
   building the picture (in a thread worker, off the event loop) and the UI thread's cost of
   rendering it once built (a cached picture).

    python benchmarks/ui_responsiveness.py [--scenario mlp-closure-vs-argument] [--budget 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

TICK_S = 0.02


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(lags: list[float]) -> str:
    ms = [1e3 * lag for lag in lags]
    p50, p99 = statistics.median(ms), percentile(ms, 0.99)
    return f"p50 {p50:6.1f} ms   p99 {p99:6.1f} ms   max {max(ms):6.1f} ms   ({len(ms)} ticks)"


async def measure_lag(scenario: str, budget: float) -> tuple[list[float], list[float]]:
    from tuiperf.core.worker import WorkerRunner
    from tuiperf.tui.app import TuiperfApp

    runner = WorkerRunner()
    app = TuiperfApp(runner, scenario=scenario, budget_s=budget)
    idle: list[float] = []
    busy: list[float] = []
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            while app.catalog is None:
                await pilot.pause(0.05)
            expected = [time.perf_counter() + TICK_S]

            def tick() -> None:
                now = time.perf_counter()
                (busy if app.running else idle).append(max(0.0, now - expected[0]))
                expected[0] = now + TICK_S

            app.set_interval(TICK_S, tick)
            await pilot.pause(1.0)
            await pilot.press("r")
            while app.run_count == 0:
                await pilot.pause(0.1)
            await pilot.pause(0.5)
    finally:
        runner.close()
    return idle, busy


async def measure_redraw() -> tuple[int, float, float]:
    from tuiperf.core.runner import RunRequest
    from tuiperf.core.worker import WorkerRunner
    from tuiperf.tui.app import TuiperfApp
    from tuiperf.tui.widgets.histogram import LatencyHistogram

    runner = WorkerRunner("sync")
    try:
        doc = runner.run(RunRequest(scenario="dispatch-floor", samples=100_000, dispatch="sync", profile=False))
        app = TuiperfApp(runner)
        async with app.run_test(size=(160, 48)) as pilot:
            app.show_result(doc)
            await pilot.pause()
            plot = app.query_one(LatencyHistogram)
            await app.plots_settled()
            rounds = 10
            start = time.perf_counter()
            for _ in range(rounds):
                plot.invalidate()
                await app.plots_settled()
            per_build = (time.perf_counter() - start) / rounds
            start = time.perf_counter()
            for _ in range(100):
                plot.render()
            per_render = (time.perf_counter() - start) / 100
    finally:
        runner.close()
    return len(doc.variants[0].samples_ns), per_build, per_render


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="mlp-closure-vs-argument")
    parser.add_argument("--budget", type=float, default=3.0)
    args = parser.parse_args()
    idle, busy = asyncio.run(measure_lag(args.scenario, args.budget))
    print(f"event-loop lag, idle:          {summary(idle)}")
    print(f"event-loop lag, while running: {summary(busy)}   ({args.scenario}, budget {args.budget:g} s)")
    samples, build, render = asyncio.run(measure_redraw())
    print(
        f"histogram with {samples:,} samples per variant: picture built in {1e3 * build:.1f} ms (thread worker), "
        f"UI-thread render {1e3 * render:.3f} ms"
    )


if __name__ == "__main__":
    main()
