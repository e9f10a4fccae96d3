"""Does each remedy in docs/remedies.md work? Timing decides: every entry's scenario is run through the
measuring process (the remedy and the slow variant interleaved in one run), and the script prints the
ratio slow / remedy with its 95 % CI, the machinery the slow variant's profile names, and the verdict.

    PYTHONPATH=. python benchmarks/remedies.py [--budget 2] [--repeats 1]

The tests (tests/test_remedies.py) decide from evidence at tiny sizes; this is where only the clock can
say whether the remedy variant is faster, so say the load (`uptime`) beside its figures.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.processes.runner import ProcessRunner
from tuiperf.results.ratios import against
from tuiperf.results.remedies import machinery
from tuiperf.results.verdict import verdict

FIXTURES = str(Path(__file__).parent.parent / "tests" / "fixtures" / "scenarios")
CASES = [  # (scenario, params, slow variant, remedy variant)
    ("custom-jvp-eager", {}, "eager-custom_jvp", "jit-around-custom_jvp"),
    ("eager-constant", {}, "built-per-call", "built-once"),
    ("per-call-object", {}, "config-per-call", "config-built-once"),
    ("shared-jit", {}, "per-call-config", "frozen-config"),
    ("eqx-traversal", {}, "eqx.filter_jit", "partitioned-once"),
    ("nnx-vs-linen-cnn", {}, "nnx-nnx.jit", "nnx-split-merge"),
    ("donation", {}, "no-donation", "donate-state"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--only", help="comma-separated scenario ids")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None
    runner = ProcessRunner([FIXTURES])
    try:
        for scenario, params, slow, remedy in CASES:
            if only and scenario not in only:
                continue
            for _ in range(args.repeats):
                request = RunRequest(
                    scenario=scenario,
                    params=params,
                    variants=[remedy, slow],
                    settings=RunSettings(budget_s=args.budget),
                )
                result = runner.run(request)
                _, rows = against(result, remedy)
                row = rows.get(slow)
                found = machinery(result.variant(slow), result.scenario.path) if result.variant(slow) else None
                ratio = f"{row.ratio:.3g}× [{row.ci95[0]:.3g}–{row.ci95[1]:.3g}]" if row else "–"
                print(f"{scenario}: {slow} / {remedy} = {ratio}; profile names {found[0].key if found else 'none'}")
                print(f"  {verdict(result, slow, remedy)}")
    finally:
        runner.close()


if __name__ == "__main__":
    main()
