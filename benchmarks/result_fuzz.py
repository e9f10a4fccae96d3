"""Fuzz every reader of result documents with 10,000 generated ones.

Each document starts from a real one (a run with every kind of text, a sweep, a version-1 file),
then has any field replaced by a value of any JSON type, its texts replaced by random text full of
control characters and Rich markup, or its bytes cut or made invalid UTF-8. Each goes through
``tuiperf show`` (wide and narrow), ``compare``, every export (markdown, csv, json, script) and the
app's result view. Then ``--app`` of the documents that decode to a result are opened in one app as
stored runs (h, enter): every tab, the header and the progress rows filled and searched for raw control
characters, and every hundredth drawn on screen tab by tab with the variant picker, the comparison,
export and error dialogs and the editor (tests/tui/app_fuzz.py). Prints the tracebacks found (any
exception but a one-line user error) and the raw control characters printed or drawn; exits 1 unless
all are 0.

    python benchmarks/result_fuzz.py [--examples 10000] [--app 2000] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "tui"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzz_documents import documents, outputs, raw_controls, scratch
from hypothesis import HealthCheck, given, seed, settings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=10_000)
    parser.add_argument("--app", type=int, default=2_000, help="generated results opened in the app (0: none)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    counts = {"examples": 0, "tracebacks": 0, "raw": 0}
    first: dict[str, str] = {}

    @seed(args.seed)
    @settings(
        max_examples=args.examples,
        deadline=None,
        database=None,
        phases=["generate"],  # count every failure, do not stop to shrink the first
        suppress_health_check=list(HealthCheck),
    )
    @given(documents())
    def one(data: bytes) -> None:
        counts["examples"] += 1
        with scratch() as folder:
            printed, failure = outputs(data, folder)
        if failure is not None:
            counts["tracebacks"] += 1
            first.setdefault(failure.strip().splitlines()[-1], failure)
        found = raw_controls(printed)
        if found:
            counts["raw"] += 1
            first.setdefault(f"raw {found}", repr(data[:300]))

    started = time.perf_counter()
    one()
    elapsed = time.perf_counter() - started
    for what, detail in list(first.items())[:10]:
        print(f"--- {what}\n{detail}", file=sys.stderr)
    print(
        f"{counts['examples']:,} documents in {elapsed:.0f} s: {counts['tracebacks']} with a traceback, "
        f"{counts['raw']} printing a raw control character"
    )
    drawn = app_views(args.app, args.seed) if args.app else 0
    return 0 if counts["tracebacks"] == 0 and counts["raw"] == 0 and drawn == 0 else 1


def app_views(count: int, seed_value: int) -> int:
    """``count`` generated results through the app's views; how many drew a raw control character."""
    import asyncio
    import json
    import os
    import tempfile

    os.environ.setdefault("XDG_DATA_HOME", tempfile.mkdtemp())  # no registered environment is listed
    import msgspec
    from app_fuzz import drive, generated_results
    from tui_helpers import FIXTURE, SCENARIOS, FakeRunner, ready

    from tuiperf.contract.catalog import Catalog
    from tuiperf.results.model import RunResult
    from tuiperf.tui.app import TuiperfApp

    raw = json.loads(FIXTURE.read_text())
    saved = {**raw, "catalog": msgspec.convert(raw["catalog"], Catalog)}
    saved |= {key: msgspec.convert(raw[key], RunResult) for key in ("result", "sweep")}
    results = generated_results(count, seed_value)

    async def run() -> Any:
        with tempfile.TemporaryDirectory() as folder:
            app = TuiperfApp(FakeRunner(saved), scenario_dirs=[str(SCENARIOS)], screenshots_dir=folder)
            async with app.run_test(size=(160, 50)) as pilot:
                await ready(pilot)
                return await drive(pilot, results)

    started = time.perf_counter()
    findings = asyncio.run(run())
    elapsed = time.perf_counter() - started
    for line in findings.raw[:10]:
        print(f"--- {line}", file=sys.stderr)
    with_raw = len({line.split(":")[0].split(" tab ")[0] for line in findings.raw})
    print(
        f"{findings.results:,} results in the app in {elapsed:.0f} s ({findings.full} drawn tab by tab with "
        f"the dialogs and the editor): {with_raw} drawing a raw control character, {findings.failures} the "
        "panels reported they could not show"
    )
    return with_raw


if __name__ == "__main__":
    sys.exit(main())
