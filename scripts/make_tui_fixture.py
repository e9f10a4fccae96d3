"""Regenerate tests/tui/fixtures/tiny_sin.json: a real catalog, device list, run and sweep of the
tiny test scenario, measured in this process (sync dispatch), for the TUI tests and snapshots.

    python scripts/make_tui_fixture.py

The snapshots are rendered from this file: after regenerating it, review and update them with
``pytest tests/tui/test_tui_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "tests" / "tui" / "scenarios"
OUT = ROOT / "tests" / "tui" / "fixtures" / "tiny_sin.json"


def main() -> None:
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    from tuiperf.contract.options import RunSettings
    from tuiperf.contract.request import RunRequest
    from tuiperf.measuring.inprocess import InProcessRunner, set_dispatch

    set_dispatch("sync")
    runner = InProcessRunner([str(SCENARIOS)])
    catalog = runner.catalog()
    catalog.scenarios = [s for s in catalog.scenarios if s.id == "tiny-sin"]
    catalog.dirs = ["tests/tui/scenarios"]
    for entry in [*catalog.scenarios, *catalog.broken]:
        entry.path = str(Path(entry.path).relative_to(ROOT))
    result = runner.run(RunRequest(scenario="tiny-sin", settings=RunSettings(samples=400, dispatch="sync")))
    sweep = runner.run(
        RunRequest(
            scenario="tiny-sin",
            sweep=("size", ["8", "256", "4096"]),
            settings=RunSettings(samples=100, dispatch="sync", profile=False),
        )
    )
    for run in (result, sweep, *sweep.points):  # no absolute paths of this machine in the fixture
        run.scenario.path = str(Path(run.scenario.path).relative_to(ROOT))
    fixture = {
        "catalog": msgspec.to_builtins(catalog),
        "devices": msgspec.to_builtins(runner.devices()),
        "result": msgspec.to_builtins(result),
        "sweep": msgspec.to_builtins(sweep),
    }
    OUT.write_text(json.dumps(fixture, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
