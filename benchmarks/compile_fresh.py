"""The check of ``--measure compile`` against plain timings in fresh processes (issue 53's acceptance).

For each step count and variant of ``scenarios/loop_compile.py``, fresh Python processes; each builds
the input, pays the process's first-compile costs on a tiny unrelated function (as tuiperf does before
its repeats), then times ``jax.jit(f).trace(x)``, ``.lower()`` and ``.compile()`` once — the first
compile of ``f`` in that process, with no cache to hit.

The two are paired, so that the load of a shared machine hits both alike: for each step count and
variant, a fresh process, then at once ``tuiperf run loop-compile --measure compile --set steps=S
--variants V``; the figures are medians over the pairs and the median of the paired ratios.

    python benchmarks/compile_fresh.py --steps 8 32 128 --pairs 4
    python benchmarks/compile_fresh.py --steps 8 32 128 --method 7   # the repeats against a first compile
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, sys, time
import jax, jax.numpy as jnp
import numpy as np
from jax import lax
steps, variant = int(sys.argv[1]), sys.argv[2]
def step(c):
    return jnp.sin(c) * 1.01 + 0.5
def scanned(c):
    return lax.scan(lambda c, _: (step(c), None), c, None, length=steps)[0]
def fori(c):
    return lax.fori_loop(0, steps, lambda i, c: step(c), c)
def unrolled(c):
    for _ in range(steps):
        c = step(c)
    return c
f = {"lax.scan": scanned, "fori_loop": fori, "unrolled": unrolled}[variant]
x = jnp.linspace(0.0, 1.0, 64, dtype=jnp.float32)
jax.jit(lambda a: a * 2 + 1).trace(np.float32(1)).lower().compile()  # the process's first compile
t0 = time.perf_counter_ns(); traced = jax.jit(f).trace(x)
t1 = time.perf_counter_ns(); lowered = traced.lower()
t2 = time.perf_counter_ns(); lowered.compile()
t3 = time.perf_counter_ns()
ms = {"trace": t1 - t0, "lower": t2 - t1, "compile": t3 - t2, "total": t3 - t0}
print(json.dumps({key: ns / 1e6 for key, ns in ms.items()}))
"""
# The method alone, load held equal: in one fresh process, the first compile of f, then tuiperf's repeats
# of it (caches cleared before each, persistent cache off), seconds apart.
METHOD = (
    CHILD.rsplit("jax.jit(lambda a", 1)[0]
    + r"""
jax.jit(lambda a: a * 2 + 1).trace(np.float32(1)).lower().compile()
from tuiperf.measuring.compile_time import Subject, persistent_cache_off
t0 = time.perf_counter_ns(); jax.jit(f).trace(x).lower().compile(); first = (time.perf_counter_ns() - t0) / 1e6
subject = Subject("f", jax.jit(f), (x,))
with persistent_cache_off():
    for _ in range(5):
        subject.repeat()
print(json.dumps({"first": first, "repeats": sorted(subject.samples["total"])[2]}))
"""
)
VARIANTS = ("lax.scan", "fori_loop", "unrolled")
STAGES = ("total", "trace", "lower", "compile")


def fresh(steps: int, variant: str) -> dict[str, float]:
    command = [sys.executable, "-c", CHILD, str(steps), variant]
    out = subprocess.run(command, capture_output=True, text=True, check=True)
    found: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return found


def tuiperf_run(steps: int, variant: str, budget: float) -> dict[str, float]:
    """One ``tuiperf run loop-compile --measure compile`` of one variant at one step count: its medians."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.json"
        command = [sys.executable, "-m", "tuiperf", "--no-history", "run", "loop-compile", "--measure", "compile"]
        command += ["--set", f"steps={steps}", "--variants", variant, "--samples", "3", "--no-profile"]
        command += ["--budget", str(budget), "--out", str(path)]
        subprocess.run(command, capture_output=True, check=True)
        doc = json.loads(path.read_text())
    (measured,) = doc["variants"]
    return {key: s["median_ms"] for key, s in measured["stages"]["repeated"].items()}


def method(steps: list[int], processes: int) -> None:
    """``--method``: the first compile in a fresh process against tuiperf's repeats in the same process."""
    print(
        "| steps | variant | first compile, fresh process | median of 5 repeats, same process | ratio (median, range) |"
    )
    print("|---|---|---|---|---|")
    for s in steps:
        for variant in VARIANTS:
            runs = []
            for _ in range(processes):
                out = subprocess.run([sys.executable, "-c", METHOD, str(s), variant], capture_output=True, text=True)
                runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
            ratios = sorted(r["repeats"] / r["first"] for r in runs)
            first = statistics.median(r["first"] for r in runs)
            repeats = statistics.median(r["repeats"] for r in runs)
            print(
                f"| {s} | {variant} | {first:.2f} ms | {repeats:.2f} ms | {statistics.median(ratios):.3f} "
                f"({ratios[0]:.2f}–{ratios[-1]:.2f}) |",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[8, 32, 128])
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--fresh", type=int, default=1, help="fresh processes per pair (their median is paired)")
    parser.add_argument("--budget", type=float, default=1.0, help="tuiperf's --budget (its repeats' budget)")
    parser.add_argument("--method", type=int, metavar="PROCESSES", help="check the method alone in N processes each")
    args = parser.parse_args()
    if args.method:
        method(args.steps, args.method)
        return
    plain: dict[tuple[int, str], list[dict[str, float]]] = {}
    ours: dict[tuple[int, str], list[dict[str, float]]] = {}
    for pair in range(args.pairs):
        for steps in args.steps:
            for variant in VARIANTS:  # a fresh process, then tuiperf, back to back: the same load for both
                plains = [fresh(steps, variant) for _ in range(args.fresh)]
                plain.setdefault((steps, variant), []).append(
                    {stage: statistics.median(p[stage] for p in plains) for stage in STAGES}
                )
                ours.setdefault((steps, variant), []).append(tuiperf_run(steps, variant, args.budget))
        print(f"pair {pair + 1} of {args.pairs} done", file=sys.stderr, flush=True)
    print("| steps | variant | stage | fresh processes | tuiperf | tuiperf / fresh, paired (median, range) |")
    print("|---|---|---|---|---|---|")
    for key, runs in plain.items():
        steps, variant = key
        for stage in STAGES:
            theirs = [r[stage] for r in runs]
            mine = [m[stage] for m in ours[key]]
            ratios = sorted(m / t for m, t in zip(mine, theirs, strict=True))
            print(
                f"| {steps} | {variant} | {stage} | {statistics.median(theirs):.2f} ms | "
                f"{statistics.median(mine):.2f} ms | {statistics.median(ratios):.3f} "
                f"({ratios[0]:.2f}–{ratios[-1]:.2f}) |"
            )


if __name__ == "__main__":
    main()
