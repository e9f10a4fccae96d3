"""Does tuiperf report what a plain timing loop would? (Fidelity of the harness.)

For `dispatch-floor` (jax.jit of a no-op) and a small MLP (`filter-jit-overhead`, model=mlp, jax.jit),
in both CPU dispatch modes, compare tuiperf's median (worker process, auto sampling) with the median
of a plain ``time.perf_counter_ns`` loop run in a separate fresh Python process on the same callable.
Prints the ratio tuiperf / plain loop; the target is within ±5 % in sync mode.

    python benchmarks/fidelity.py [--repeats 3] [--budget 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

CASES = [
    ("dispatch-floor", {}, "jax.jit"),
    ("filter-jit-overhead", {"model": "mlp", "width": "32", "depth": "3"}, "jax.jit"),
]

PLAIN_LOOP = r"""
import json, sys, time
from types import SimpleNamespace
import jax
jax.config.update("jax_cpu_enable_async_dispatch", sys.argv[1] == "async")
from tuiperf.core.catalog import load_catalog
from tuiperf.core.params import validate
scenario = load_catalog().get(sys.argv[2])
p = SimpleNamespace(**validate(scenario.params, json.loads(sys.argv[3])))
bench = scenario.variants[sys.argv[4]].build(p, scenario.setup_fn(p) if scenario.setup_fn else None)
fn, args = bench.fn, bench.args
for _ in range(200):
    fn(*args).block_until_ready()
samples = []
deadline = time.perf_counter() + float(sys.argv[5])
while time.perf_counter() < deadline:
    t0 = time.perf_counter_ns()
    fn(*args).block_until_ready()
    samples.append(time.perf_counter_ns() - t0)
samples.sort()
print(json.dumps({"median_ns": samples[len(samples) // 2], "n": len(samples)}))
"""


def plain_median(scenario: str, params: dict, variant: str, dispatch: str, seconds: float) -> float:
    out = subprocess.run([sys.executable, "-c", PLAIN_LOOP, dispatch, scenario, json.dumps(params), variant,
                          str(seconds)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["median_ns"]


def tuiperf_median(scenario: str, params: dict, variant: str, dispatch: str, budget: float) -> float:
    from tuiperf.core.runner import RunRequest
    from tuiperf.core.worker import WorkerRunner

    runner = WorkerRunner(dispatch)  # a fresh worker process per measurement, like the plain loop
    try:
        doc = runner.run(RunRequest(scenario=scenario, params=params, variants=[variant], dispatch=dispatch,
                                    budget_s=budget, profile=False))
    finally:
        runner.close()
    return doc["variants"][0]["stats"]["median_ns"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=3.0)
    args = parser.parse_args()
    print(f"{'case':44} {'dispatch':8} {'tuiperf':>10} {'plain':>10} {'ratio':>7}  per-repeat ratios")
    for scenario, params, variant in CASES:
        for dispatch in ("sync", "async"):
            ratios, ours, theirs = [], [], []
            for _ in range(args.repeats):  # alternate who goes first, so drift is shared
                a = tuiperf_median(scenario, params, variant, dispatch, args.budget)
                b = plain_median(scenario, params, variant, dispatch, args.budget)
                ours.append(a), theirs.append(b), ratios.append(a / b)
            name = f"{scenario}[{variant}]" + (" " + ",".join(f"{k}={v}" for k, v in params.items()) if params else "")
            print(f"{name:44} {dispatch:8} {statistics.median(ours) / 1e3:8.2f}µs {statistics.median(theirs) / 1e3:8.2f}µs "
                  f"{statistics.median(ratios):7.3f}  {' '.join(f'{r:.3f}' for r in ratios)}", flush=True)


if __name__ == "__main__":
    main()
