"""The check of ``--measure compile`` against plain timings in fresh processes (issue 53's acceptance).

For each step count and variant of ``scenarios/loop_compile.py``, start N fresh Python processes; each
builds the input, pays the process's first-compile costs on a tiny unrelated function (as tuiperf
does before its repeats), then times ``jax.jit(f).trace(x)``, ``.lower()`` and ``.compile()`` once —
the first compile of ``f`` in that process, with no cache to hit. Prints each median, and with
``--compare RESULT.json`` (a ``tuiperf run loop-compile --measure compile --sweep steps=...`` result)
tuiperf's medians beside them and the difference.

The two are interleaved by rounds, so that the load of a shared machine hits both alike: each round runs
``tuiperf run loop-compile --measure compile --sweep steps=...`` once, then one fresh process per step
count and variant. The figures are medians over the rounds (tuiperf's: of each run's median of repeats).

    python benchmarks/compile_fresh.py --steps 8 32 128 --rounds 5
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
VARIANTS = ("lax.scan", "fori_loop", "unrolled")
STAGES = ("total", "trace", "lower", "compile")


def fresh(steps: int, variant: str) -> dict[str, float]:
    command = [sys.executable, "-c", CHILD, str(steps), variant]
    out = subprocess.run(command, capture_output=True, text=True, check=True)
    found: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return found


def tuiperf_run(steps: list[int], budget: float) -> dict[tuple[int, str], dict[str, float]]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sweep.json"
        command = [sys.executable, "-m", "tuiperf", "--no-history", "run", "loop-compile", "--measure", "compile"]
        command += ["--no-profile", "--budget", str(budget), "--sweep", "steps=" + ",".join(map(str, steps))]
        subprocess.run([*command, "--out", str(path)], capture_output=True, check=True)
        doc = json.loads(path.read_text())
    found = {}
    for point in doc["points"]:
        for v in point["variants"]:
            repeated = v["stages"].get("repeated") or {}
            if repeated:
                found[(int(point["params"]["steps"]), v["name"])] = {k: s["median_ms"] for k, s in repeated.items()}
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[8, 32, 128])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--budget", type=float, default=3.0, help="tuiperf's --budget")
    args = parser.parse_args()
    plain: dict[tuple[int, str], list[dict[str, float]]] = {}
    ours: dict[tuple[int, str], list[dict[str, float]]] = {}
    for round_index in range(args.rounds):
        for key, medians in tuiperf_run(args.steps, args.budget).items():
            ours.setdefault(key, []).append(medians)
        for steps in args.steps:
            for variant in VARIANTS:
                plain.setdefault((steps, variant), []).append(fresh(steps, variant))
        print(f"round {round_index + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    print("| steps | variant | stage | fresh processes | tuiperf | difference |")
    print("|---|---|---|---|---|---|")
    for (steps, variant), runs in plain.items():
        for stage in STAGES:
            theirs = statistics.median(r[stage] for r in runs)
            mine = [m[stage] for m in ours.get((steps, variant), []) if stage in m]
            if not mine:
                print(f"| {steps} | {variant} | {stage} | {theirs:.2f} ms | – | – |")
                continue
            median = statistics.median(mine)
            diff = (median / theirs - 1) * 100
            print(f"| {steps} | {variant} | {stage} | {theirs:.2f} ms | {median:.2f} ms | {diff:+.1f} % |")


if __name__ == "__main__":
    main()
