"""Measure every built-in scenario at its defaults (plus the runs that test a report's claim) and
print the Markdown table docs/builtin-scenarios.md shows: median per variant, ratios, and guard findings.

    python benchmarks/scenario_table.py [--dispatch sync] [--budget 3] > table.md
"""

from __future__ import annotations

import argparse
import sys

from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.processes.runner import ProcessRunner
from tuiperf.results.model import RunResult
from tuiperf.results.stats import format_ns

RUNS = [
    ("dispatch-floor", {}),
    ("mlp-closure-vs-argument", {}),
    ("mlp-closure-vs-argument", {"layout": "transposed"}),
    ("filter-jit-overhead", {}),
    ("filter-jit-overhead", {"model": "mlp", "width": "256"}),
    ("static-leaves-partition", {}),
    ("static-leaves-partition", {"n_static": "100000", "n_arrays": "1"}),
    ("conv-transpose-3d", {}),
    ("conv-transpose-3d", {"flax_kernel_size": "int"}),
    ("nnx-vs-linen-cnn", {}),
    ("training-step", {}),
    ("training-step", {"donate": "false"}),
]


def describe(doc: RunResult) -> str:
    parts = []
    for v in doc.variants:
        if v.sampling.stats is not None and v.ok:
            parts.append(f"{v.name} {format_ns(v.sampling.stats.median_ns)}")
        else:
            parts.append(f"{v.name} {v.status}")
    return "; ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dispatch", default="sync", choices=("sync", "async"))
    parser.add_argument("--budget", type=float, default=3.0)
    args = parser.parse_args()
    runner = ProcessRunner()
    env = None
    print("| scenario | parameters | median per call | guard |")
    print("|---|---|---|---|")
    try:
        for scenario, params in RUNS:
            doc = runner.run(
                RunRequest(
                    scenario=scenario,
                    params=params,
                    settings=RunSettings(dispatch=args.dispatch, budget_s=args.budget, profile=False),
                )
            )
            env = env or doc.env
            guard = "; ".join(f"{m.a} vs {m.b}: {m.quantity}" for m in doc.equivalence.mismatches) or "fair"
            setting = " ".join(f"{k}={v}" for k, v in params.items()) or "defaults"
            print(f"| `{scenario}` | {setting} | {describe(doc)} | {guard} |", flush=True)
    finally:
        runner.close()
    if env is None:
        return
    versions = ", ".join(f"{name} {env.packages.get(name)}" for name in ("jax", "jaxlib", "equinox", "flax"))
    print(
        f"\nMeasured {env.date} with `python benchmarks/scenario_table.py --dispatch {args.dispatch} "
        f"--budget {args.budget:g}`: {versions}, Python {env.python}, {env.cpu} ({env.cpu_count} cores), "
        f"{args.dispatch} dispatch.",
        file=sys.stdout,
    )


if __name__ == "__main__":
    main()
