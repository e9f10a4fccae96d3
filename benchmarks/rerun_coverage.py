"""Do tuiperf's 95 % intervals hold on a re-run? (Issue 42.)

Re-runs two built-ins back to back, each in a fresh `tuiperf run` (its own measuring process), and
reads the ratio of two variants with its 95 % interval from each result:

- a ~5 µs call: `filter-jit-overhead` (eqx.nn.Identity), eqx.filter_jit / jax.jit;
- a ~1 ms call: `filter-jit-overhead` with a batched MLP (model=mlp width=256 depth=6 batch=64),
  eqx.filter_jit / jax.jit.

For each case it prints:

- coverage: over consecutive pairs of runs, the fraction whose difference (in log ratio) lies
  within the 95 % interval of that difference, sqrt(h1² + h2²) for the two runs' half-widths h1, h2
  (log scale; target ≥ 90 %);
- width: the intervals' mean width against the spread of the re-runs actually observed, 2 × 1.96 ×
  the standard deviation of the runs' log ratios (the width an interval needs to hold 95 % of
  re-runs; target ≤ 3×); also against the observed min–max range.

The machine's load is printed before and after: on a shared machine the figures depend on it.

    python benchmarks/rerun_coverage.py [--runs 10] [--budget 2] [--python PYTHON] [--only fast|slow]
                                        [--fresh-calibration]

``--fresh-calibration`` starts from no calibration at all (a new, empty ``$TUIPERF_CALIBRATION`` file):
the first run then calibrates this machine by itself, as any first run does (issue 52), and the
later ones reuse it; the first run's line says how long that took.

``--python`` (default: this interpreter) runs another checkout's tuiperf (set PYTHONPATH to it),
e.g. to measure the intervals before issue 42:
``git worktree add /tmp/old42 e5f60e5 && PYTHONPATH=/tmp/old42 python benchmarks/rerun_coverage.py``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Case:
    label: str
    scenario: str
    params: tuple[str, ...]
    a: str
    b: str


CASES = {
    "fast": Case("~5 µs call", "filter-jit-overhead", (), "eqx.filter_jit", "jax.jit"),
    "slow": Case(
        "~1 ms call",
        "filter-jit-overhead",
        ("model=mlp", "width=256", "depth=6", "batch=64"),
        "eqx.filter_jit",
        "jax.jit",
    ),
}


@dataclass
class Reading:
    ratio: float
    lo: float
    hi: float
    basis: str
    median_b_ns: float


def run_once(python: str, case: Case, budget: float, extra: list[str]) -> Reading:
    """One fresh `tuiperf run`, its ratio a/b and 95 % interval read from the result file."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "result.json")
        command = [python, "-m", "tuiperf", "run", case.scenario, "--budget", str(budget), "--dispatch", "sync"]
        command += ["--variants", f"{case.b},{case.a}", "--json", path, "--no-history", *extra]
        for param in case.params:
            command += ["--set", param]
        # From the temporary folder: `-m` puts the working folder first on sys.path, ahead of PYTHONPATH.
        done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=folder)
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
        with open(path, encoding="utf-8") as file:
            result = json.load(file)
    rows = {(c["a"], c["b"]): c for c in result["comparisons"]}
    b = next(v for v in result["variants"] if v["name"] == case.b)
    median_b = b.get("sampling", b)["stats"]["median_ns"]  # in its sampling part from schema 3 on
    if (case.a, case.b) in rows:
        row = rows[(case.a, case.b)]
        ratio, (lo, hi) = row["ratio"], row["ci95"]
    else:
        row = rows[(case.b, case.a)]
        ratio, (lo, hi) = 1 / row["ratio"], (1 / row["ci95"][1], 1 / row["ci95"][0])
    interval = row.get("interval") or {}  # results before issue 42 have none: samples only
    basis = interval.get("covers", "samples") + (f" ({interval['processes']})" if interval.get("processes") else "")
    return Reading(ratio, lo, hi, basis, median_b)


def summarise(case: Case, readings: list[Reading]) -> dict[str, float]:
    logs = [math.log(r.ratio) for r in readings]
    halves = [(math.log(r.hi) - math.log(r.lo)) / 2 for r in readings]
    pairs = list(zip(range(len(readings) - 1), range(1, len(readings)), strict=True))
    held = sum(abs(logs[j] - logs[i]) <= math.hypot(halves[i], halves[j]) for i, j in pairs)
    sd = statistics.stdev(logs)
    needed = 2 * Z95 * sd
    mean_width = statistics.fmean(2 * h for h in halves)
    spread = max(logs) - min(logs)
    return {
        "coverage": held / len(pairs),
        "pairs": len(pairs),
        "held": held,
        "sd_pct": 100 * sd,
        "mean_width_pct": 100 * mean_width,
        "width_vs_needed": mean_width / needed if needed > 0 else math.inf,
        "width_vs_range": mean_width / spread if spread > 0 else math.inf,
    }


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--budget", type=float, default=2.0)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--only", choices=sorted(CASES), help="one case only")
    parser.add_argument("--extra", default="", help="more `tuiperf run` arguments, space-separated")
    parser.add_argument("--fresh-calibration", action="store_true", help="start with no calibration kept")
    args = parser.parse_args()
    if args.fresh_calibration:
        fresh = tempfile.mkdtemp(prefix="tuiperf-calibration-")
        os.environ["TUIPERF_CALIBRATION"] = os.path.join(fresh, "process-spread.json")
        print(f"no calibration: a new one is kept in {os.environ['TUIPERF_CALIBRATION']}", flush=True)
    if args.runs < 3:
        parser.error("--runs must be at least 3")
    print(f"before: {load()}; PYTHONPATH={os.environ.get('PYTHONPATH', '')!r}; budget {args.budget} s", flush=True)
    cases = [CASES[args.only]] if args.only else list(CASES.values())
    for case in cases:
        readings = []
        started = time.perf_counter()
        for index in range(args.runs):
            began = time.perf_counter()
            reading = run_once(args.python, case, args.budget, args.extra.split())
            took = f"; took {time.perf_counter() - began:.0f} s" if index == 0 else ""
            readings.append(reading)
            print(
                f"  {case.label} run {index + 1}: {case.a} / {case.b} = {reading.ratio:.4f} "
                f"[{reading.lo:.4f}–{reading.hi:.4f}]  ({case.b} median {reading.median_b_ns / 1e3:.2f} µs; "
                f"interval covers: {reading.basis}{took})",
                flush=True,
            )
        figures = summarise(case, readings)
        print(
            f"{case.label} ({case.scenario} {' '.join(case.params)}), {args.runs} runs in "
            f"{time.perf_counter() - started:.0f} s: coverage {figures['held']}/{figures['pairs']} = "
            f"{100 * figures['coverage']:.0f} % (target ≥ 90 %); re-runs' sd {figures['sd_pct']:.2f} %, "
            f"mean interval width {figures['mean_width_pct']:.2f} % = {figures['width_vs_needed']:.2f}× the "
            f"width 95 % of re-runs need (target ≤ 3×), {figures['width_vs_range']:.2f}× the observed range",
            flush=True,
        )
    print(f"after: {load()}")


if __name__ == "__main__":
    main()
