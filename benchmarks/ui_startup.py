"""How fast does the explorer paint its first frame, and does the UI process stay free of JAX?

Starts a fresh Python process that imports the app and runs it headless with the real worker runner;
the pilot records the time of the first frame (from the process's first line) and whether `jax`,
`equinox` or `flax` were imported by the UI process. Target: first frame < 1 s, no JAX in the UI.

    python benchmarks/ui_startup.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

PROBE = r"""
import time
started = time.perf_counter()
import json, sys
from tuiperf.core.worker import WorkerRunner
from tuiperf.tui.app import TuiperfApp

report = {}

async def first_frame(pilot):
    await pilot.pause()
    report["first_frame_s"] = time.perf_counter() - started
    report["frameworks_in_ui"] = sorted(m for m in ("jax", "equinox", "flax") if m in sys.modules)
    while pilot.app.catalog is None:  # the catalog arrives from the worker process
        await pilot.pause(0.05)
    report["catalog_s"] = time.perf_counter() - started
    pilot.app.exit()

runner = WorkerRunner()
try:
    TuiperfApp(runner).run(headless=True, size=(120, 40), auto_pilot=first_frame)
finally:
    runner.close()
print(json.dumps(report))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    reports = []
    for _ in range(args.repeats):
        done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
        reports.append(json.loads(done.stdout.strip().splitlines()[-1]))
    frames = [r["first_frame_s"] for r in reports]
    catalogs = [r["catalog_s"] for r in reports]
    leaked = sorted({m for r in reports for m in r["frameworks_in_ui"]})
    print(
        f"first frame:     median {statistics.median(frames):.3f} s  (range {min(frames):.3f}–{max(frames):.3f}, "
        f"target < 1 s: {'ok' if statistics.median(frames) < 1 else 'MISSED'})"
    )
    print(f"scenario list:   median {statistics.median(catalogs):.3f} s  (from the worker process, JAX imported there)")
    print(f"JAX/frameworks imported by the UI process: {', '.join(leaked) if leaked else 'none'}")


if __name__ == "__main__":
    main()
