"""Time and peak memory of ``tuiperf show`` / ``export`` / ``compare`` on a long sweep and on crafted
sweep files: what is measured is read back, and what a file declares costs nothing beyond what it holds.

Each command runs in a fresh Python process (its peak resident memory is its own ``VmHWM``: ``ru_maxrss``
keeps the forking parent's across ``exec``), stopped
after ``--timeout`` seconds and kept under ``--max-mb`` of address space, so a reader that builds every
declared cell is reported, not left to take the machine:

- a 600-value sweep (as many values as ``--sweep`` takes: 1,000) built from given samples: read back
  whole; before it was refused ("$.points has more than 500 entries");
- a 10 KB-ish grid file declaring 3,000 × 3,000 cells with 4 points: one line, exit 2; before ``show``
  was still running at 300 s and 8 GB, the Markdown export took 26 s and 3.7 GB;
- a sweep with fewer values than points, an empty grid axis, a crossover with ``at: null``: one line,
  exit 2; before each was a traceback.

    python benchmarks/sweep_sizes.py [--points 600] [--timeout 60] [--max-mb 4000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import factories

from tuiperf.results import resultfile

RUN = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]) << 20, resource.RLIM_INFINITY))
from tuiperf.cli import main
try:
    code = main(sys.argv[2:])
except MemoryError:
    code = "MemoryError"
peak = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:"))  # kB, this program's
print(f"\\n@@ {code} {int(peak) / 1024:.0f}", file=sys.stderr)
"""


def measure(argv: list[str], timeout: float, max_mb: int) -> str:
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", RUN, str(max_mb), *argv], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return f"still running at {timeout:.0f} s"
    took = time.perf_counter() - started
    tail = [line for line in done.stderr.splitlines() if line.startswith("@@ ")]
    if not tail:
        return f"{took:6.2f} s, ended with {done.returncode}: {done.stderr.strip().splitlines()[-1][:100]}"
    _, code, peak = tail[-1].split()
    said = [line for line in done.stderr.splitlines() if line.strip() and not line.startswith("@@ ")]
    first = f": {said[0][:110]}" if said else ""
    return f"{took:6.2f} s, {peak:>5} MB, exit {code}, {len(done.stdout):,} B out, {len(said)} line(s) on stderr{first}"


def crafted(folder: Path) -> dict[str, Path]:
    grid = msgspec.to_builtins(factories.grid({"jit": [1.0, 2.0, 3.0, 4.0]}, ("r", (1, 2)), ("c", (1, 2))))
    sweep = msgspec.to_builtins(factories.sweep({"jit": [1.0, 2.0, 3.0]}))
    crossing = msgspec.to_builtins(factories.crossing_sweep())
    huge = json.loads(json.dumps(grid))
    huge["sweep"]["grid"][0]["values"] = list(range(3000))
    huge["sweep"]["grid"][1]["values"] = list(range(3000))
    empty = json.loads(json.dumps(grid))
    empty["sweep"]["grid"][1]["values"] = []
    fewer = json.loads(json.dumps(sweep))
    fewer["sweep"]["values"] = fewer["sweep"]["values"][:1]
    for crossover in crossing["sweep"]["crossovers"]:
        crossover["at"] = None
    files = {"grid 3,000 × 3,000, 4 points": huge, "grid, empty axis": empty}
    files |= {"sweep, 1 value for 3 points": fewer, "crossover at null": crossing}
    paths = {}
    for index, (name, doc) in enumerate(files.items()):
        paths[name] = folder / f"crafted{index}.json"
        paths[name].write_text(json.dumps(doc))
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=600, help="values of the long sweep")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a command is stopped")
    parser.add_argument("--max-mb", type=int, default=4000, help="address space a command may take")
    args = parser.parse_args()
    commands = {
        "show": ["show", "{}", "--width", "100"],
        "export markdown": ["export", "{}", "--format", "markdown"],
        "export csv": ["export", "{}", "--format", "csv"],
        "export json": ["export", "{}", "--format", "json"],
        "compare": ["compare", "{}", "{}"],
    }
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        n = args.points
        values = list(range(1, n + 1))
        medians = {"jit": [1000.0 + i for i in values], "eager": [3000.0 + i for i in values]}
        long = resultfile.save(factories.sweep(medians, parameter="size", values=values), folder / "long.json")
        files = {f"sweep of {n:,} values ({long.stat().st_size / 1e6:.1f} MB)": long, **crafted(folder)}
        for what, path in files.items():
            print(f"{what} ({path.stat().st_size / 1e3:,.0f} KB)")
            for command, argv in commands.items():
                print(f"  {command:<16} {measure([a.format(path) for a in argv], args.timeout, args.max_mb)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
