"""Does `tuiperf time` agree with a plain timing loop on the dispatch floor?

python scripts/time_vs_plain_loop.py [--rounds 3] [--dispatch async]

Alternates, ROUNDS times: a fresh process timing ``f(x)`` (``f = jax.jit(jnp.sin)``, ``x`` 3 floats) in a
plain loop of ``f(x).block_until_ready()`` (the wait tuiperf uses for an array output; the pytree
helper ``jax.block_until_ready`` adds ~0.8 µs a call here) (the median over 200 blocks of 100 calls), and
``tuiperf time 'f(x)'`` in the same dispatch mode; prints each figure, their medians and the ratio,
with the load average before and after. Run it with ``nice`` on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SETUP = "import jax, jax.numpy as jnp; x = jnp.ones(3, jnp.float32); f = jax.jit(jnp.sin)"

PLAIN = """
import statistics, sys, time
import jax
jax.config.update("jax_cpu_enable_async_dispatch", sys.argv[1] == "async")
{setup}
for _ in range(2000):
    f(x).block_until_ready()
per_call = []
for _ in range(200):
    start = time.perf_counter_ns()
    for _ in range(100):
        f(x).block_until_ready()
    per_call.append((time.perf_counter_ns() - start) / 100)
print(statistics.median(per_call))
"""


def plain(dispatch: str) -> float:
    code = PLAIN.format(setup=SETUP.replace("; ", "\n"))
    done = subprocess.run([sys.executable, "-c", code, dispatch], capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


def timed(dispatch: str, folder: Path, index: int) -> float:
    out = folder / f"time{index}.json"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "tuiperf",
            "time",
            "f(x)",
            "-s",
            SETUP,
            "--dispatch",
            dispatch,
            "--no-history",
            "--no-profile",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    doc = json.loads(out.read_text())
    return float(doc["variants"][0]["sampling"]["stats"]["median_ns"])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dispatch", choices=("sync", "async"), default="async")
    args = parser.parse_args()
    print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    loops, tuiperfs = [], []
    with tempfile.TemporaryDirectory() as folder:
        for index in range(args.rounds):
            loops.append(plain(args.dispatch))
            tuiperfs.append(timed(args.dispatch, Path(folder), index))
            print(f"round {index + 1}: plain loop {loops[-1]:.0f} ns, tuiperf time {tuiperfs[-1]:.0f} ns")
    a, b = statistics.median(tuiperfs), statistics.median(loops)
    print(f"medians ({args.dispatch} dispatch): tuiperf time {a:.0f} ns, plain loop {b:.0f} ns, ratio {a / b:.3f}")
    print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
