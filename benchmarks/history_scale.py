"""Does the run history stay quick when it is big? Lists 10,000 stored runs; target well under 1 s.

python benchmarks/history_scale.py [--runs 10000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from factories import result, steady

from tuiperf.results.history import History


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    args = parser.parse_args()
    path = Path(tempfile.mkdtemp(prefix="tuiperf-history-")) / "history.sqlite"
    runs = [result({"jit": steady(1000.0 + i), "eager": steady(5000.0)}, scenario=f"s{i % 7}") for i in range(20)]
    with History(path) as history:
        start = time.perf_counter()
        for i in range(args.runs):
            history.add(runs[i % len(runs)])
        added = time.perf_counter() - start
        timings = {}
        for label, kwargs in (
            ("all", {}),
            ("newest 500 (the app)", {"limit": 500}),
            ("one scenario", {"scenario": "s3"}),
        ):
            start = time.perf_counter()
            listed = history.list(**kwargs)
            timings[label] = (time.perf_counter() - start, len(listed))
    size_mb = path.stat().st_size / 1e6
    print(f"stored {args.runs:,} runs in {added:.1f} s ({1e3 * added / args.runs:.2f} ms a run), {size_mb:.0f} MB")
    for label, (seconds, count) in timings.items():
        verdict = "ok" if seconds < 0.5 else "MISSED"
        print(f"list {label:22s} {count:6,} runs in {1e3 * seconds:7.1f} ms   target < 500 ms   {verdict}")


if __name__ == "__main__":
    main()
