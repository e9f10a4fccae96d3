"""Time ``tuiperf show`` of a cluster result by the length of its slowest-call list (one entry a
process). Before the fix it was quadratic: 20,000 entries took 51 s, 200,000 ran past 300 s.

    python benchmarks/show_cluster.py [--sizes 2000 20000 200000]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_show_scaling import cluster_result

from tuiperf.cli import main as cli
from tuiperf.results import resultfile


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2_000, 20_000, 200_000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            path = resultfile.save(cluster_result(size), Path(folder) / f"{size}.json")
            started = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                cli(["show", str(path), "--width", "100"])
            took = time.perf_counter() - started
            print(f"{size:>9,} entries ({path.stat().st_size / 1e3:,.0f} KB): show took {took:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
