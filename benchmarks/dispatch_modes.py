"""Evidence for tuiperf's default dispatch mode: how repeatable are medians, how many clusters, and do
breakdowns add up, under JAX's synchronous and asynchronous CPU dispatch?

Each measurement runs in a fresh measuring process (the mode is fixed per process), alternating
modes, so both see the same machine. Prints, per scenario variant and mode: the medians of the runs,
their spread (max/min - 1), the share of variants with more than one cluster, and the share of
reliable breakdowns.

    python benchmarks/dispatch_modes.py [--repeats 4] [--budget 1.5]
"""

from __future__ import annotations

import argparse
import statistics

from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.processes.runner import ProcessRunner

CASES = [
    ("dispatch-floor", {}, ["jax.jit"]),
    ("mlp-closure-vs-argument", {}, ["eqx-jax.jit", "eqx-filter_jit", "linen-jax.jit", "eqx-preflattened"]),
    ("filter-jit-overhead", {"model": "mlp", "width": "256"}, ["jax.jit", "eqx.filter_jit"]),
]


def measure(scenario: str, params: dict, variants: list[str], dispatch: str, budget: float) -> dict:
    runner = ProcessRunner()
    try:
        result = runner.run(
            RunRequest(
                scenario=scenario,
                params=params,
                variants=variants,
                settings=RunSettings(dispatch=dispatch, budget_s=budget, profile=False),
            )
        )
    finally:
        runner.close()
    return {v.name: v for v in result.measured}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--budget", type=float, default=1.5)
    args = parser.parse_args()
    print(f"{'scenario / variant':44} {'mode':5} {'medians of fresh processes (µs)':38} spread  modes>1  reliable")
    for scenario, params, variants in CASES:
        runs: dict[str, list[dict]] = {"sync": [], "async": []}
        for _ in range(args.repeats):
            for mode in ("sync", "async"):
                runs[mode].append(measure(scenario, params, variants, mode, args.budget))
        for name in variants:
            for mode in ("sync", "async"):
                entries = [run[name] for run in runs[mode] if name in run]
                medians = [e.sampling.stats.median_ns / 1e3 for e in entries]
                spread = max(medians) / min(medians) - 1
                multi = statistics.mean(len(e.sampling.modes) > 1 for e in entries)
                with_breakdown = [e.breakdown for e in entries if e.breakdown is not None]
                reliable = statistics.mean(b.reliable for b in with_breakdown) if with_breakdown else float("nan")
                shown = ", ".join(f"{m:.2f}" for m in medians)
                print(
                    f"{scenario + ' / ' + name:44} {mode:5} {shown:38} {100 * spread:5.1f} %  {100 * multi:5.0f} %"
                    f"  {100 * reliable:6.0f} %",
                    flush=True,
                )


if __name__ == "__main__":
    main()
