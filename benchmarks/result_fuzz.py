"""Fuzz every reader of result documents with 10,000 generated ones.

Each document starts from a real one (a run with every kind of text, a sweep, a version-1 file),
then has any field replaced by a value of any JSON type, its texts replaced by random text full of
control characters and Rich markup, or its bytes cut or made invalid UTF-8. Each goes through
``tuiperf show`` (wide and narrow), ``compare``, every export (markdown, csv, json, script) and the
app's result view. Prints the tracebacks found (any exception but a one-line user error) and the raw
control characters printed; exits 1 unless both are 0.

    python benchmarks/result_fuzz.py [--examples 10000] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzz_documents import documents, outputs, raw_controls, scratch
from hypothesis import HealthCheck, given, seed, settings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=10_000)
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
    return 0 if counts["tracebacks"] == 0 and counts["raw"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
