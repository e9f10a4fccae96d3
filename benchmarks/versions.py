"""Did an upgrade make it slower? The lowest supported versions against the current ones, in one run each.

Builds (once) the environment ``lowest`` with the versions of ``constraints-lowest.txt`` (what
``scripts/test_versions.sh lowest`` tests) through ``tuiperf env create`` (a download from the package
index, the only one), then measures ``nnx-vs-linen-cnn``, ``filter-jit-overhead`` and ``training-step``
with ``--env lowest --env current``: both environments' processes take turns round by round, and each
variant is compared with itself in the older versions.

    python benchmarks/versions.py [--budget 3] [--out DIR]
Prints each variant's ratio (current / lowest) with its 95 % CI and the versions that differ.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ("nnx-vs-linen-cnn", "filter-jit-overhead", "training-step")
MEASURED = ("jax", "jaxlib", "equinox", "flax", "optax", "numpy")


def lowest_requirements() -> list[str]:
    lines = (ROOT / "constraints-lowest.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.split("==")[0].strip() in MEASURED]


def tuiperf(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tuiperf", *args], capture_output=True, text=True, cwd=ROOT)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budget", default="3")
    parser.add_argument("--out", default="/tmp/tuiperf-versions", help="where the result files go")
    args = parser.parse_args()
    listed = tuiperf("env", "list", "--json")
    if '"lowest"' not in listed.stdout:
        print("building the environment 'lowest':", " ".join(lowest_requirements()), flush=True)
        made = subprocess.run([sys.executable, "-m", "tuiperf", "env", "create", "lowest", *lowest_requirements()])
        if made.returncode != 0:
            return made.returncode
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from tuiperf.results import resultfile
    from tuiperf.results.environments import changes

    for scenario in SCENARIOS:
        path = out / f"{scenario}.json"
        run = tuiperf(
            "run", scenario, "--env", "lowest", "--env", "current", "--budget", args.budget,
            "--no-history", "--json", str(path), "--force",
        )  # fmt: skip
        if not path.exists():
            print(f"{scenario}: no result ({run.stderr.strip().splitlines()[-1:]})")
            continue
        result = resultfile.load(path)
        print(f"\n{scenario} ({result.duration_s:.0f} s; {path})")
        for env in result.environments:
            if env.error:
                print(f"  {env.name}: {env.error}")
        for row in changes(result):
            print(f"  {row.sentence()}")
        for variant in result.variants:
            if variant.status != "ok":
                why = variant.failure.error if variant.failure else "; ".join(variant.notes[:1])
                print(f"  {variant.name}: {variant.status}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
