"""Checks tuiperf's "does it matter at my size?" crossover against plain timing loops.

The built-in ``filter-jit-overhead`` (model=mlp) is timed here without tuiperf: the same MLP (Equinox
Linear layers, relu between them), ``jax.jit`` and ``eqx.filter_jit`` of the same forward pass,
``perf_counter_ns`` around each call and ``block_until_ready``; the batches and the two variants
take turns in short rounds (every batch in every round, as tuiperf's interleaved sweep), each figure
the median of its rounds' medians. The crossover is computed by another method than tuiperf's fit: the
extra fixed cost is the mean gap (variant − baseline) at the two smallest sizes, where the per-row cost
is a few per cent of it; the crossover is where the variant's measured time reaches ten times that gap
(the gap is then 10 % of its call), interpolated on a log-log line between the two measured sizes
that bracket it. Then tuiperf sweeps the same sizes and its figure is read from ``--json``.

    python benchmarks/crossover_check.py [--batches 16,32,64,128,256,512,1024] [--seconds 1.0]

Run both on one quiet CPU setting: the script sets XLA to one thread (XLA_FLAGS) for itself and for
the tuiperf run, so that the per-row cost is a line and not the Eigen pool's contention on a busy
machine. It prints both crossovers and their ratio; the acceptance is agreement within ±25 %.

Measured 2026-11-27 on the shared 2-core development VM (jax 0.10.2, equinox 0.13.8), jax.jit over
jax.jit-preflattened, the default batches: three runs in a row at load 3.0-3.6 read plain 367 / 395 /
372 vs tuiperf 298 / 341 / 336, ratios 0.81, 0.86, 0.90 (within ±25 %; extra fixed cost plain 23.3 /
23.4 / 23.6 µs, tuiperf 21.7 / 26.0 / 24.3 µs). Before the plain loops took every batch in every round,
they measured one batch after another and a busy spell bent their curve (batch 64 read faster than 16
at load 4: ratios 0.28-0.68 at load 3-4, 1.03-1.95 at load 13-17).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ONE_THREAD = "--xla_cpu_multi_thread_eigen=false"  # XLA rejects an unknown flag; a bare word it ignores
WIDTH, DEPTH = 64, 3
SHARE = 0.10


def plain_medians(
    batches: list[int], seconds: float, baseline: str, variant: str, rounds: int = 20
) -> dict[int, dict[str, float]]:
    """Median ns per call of each variant at each batch: the batches and the two variants take turns in
    short rounds, and each figure is the median of its rounds' medians."""
    import equinox as eqx
    import jax
    import jax.numpy as jnp
    import numpy as np

    jax.config.update("jax_cpu_enable_async_dispatch", False)  # tuiperf's default: sync dispatch

    class MLP(eqx.Module):
        layers: tuple

        def __call__(self, x):
            if x.ndim == 2:
                return jax.vmap(self)(x)
            for layer in self.layers[:-1]:
                x = jax.nn.relu(layer(x))
            return self.layers[-1](x)

    rng = np.random.default_rng(0)
    bound = 1 / np.sqrt(WIDTH)
    layers = []
    for _ in range(DEPTH):
        w = jnp.asarray(rng.uniform(-bound, bound, (WIDTH, WIDTH)), jnp.float32)
        b = jnp.asarray(rng.uniform(-bound, bound, WIDTH), jnp.float32)
        lin = eqx.filter_eval_shape(eqx.nn.Linear, WIDTH, WIDTH, key=jax.random.key(0))
        layers.append(eqx.tree_at(lambda layer: (layer.weight, layer.bias), lin, (w, b)))
    model = MLP(tuple(layers))

    def forward(model, x):
        return model(x)

    leaves, treedef = jax.tree.flatten(model)

    def forward_on_leaves(leaves, x):  # as the scenario's -preflattened variants: a flat list of arrays
        return forward(jax.tree.unflatten(treedef, leaves), x)

    on_leaves = jax.jit(forward_on_leaves)
    every = {
        "jax.jit": lambda x: jitted(model, x),
        "jax.jit-preflattened": lambda x: on_leaves(leaves, x),
        "eqx.filter_jit": lambda x: filtered(model, x),
    }
    jitted, filtered = jax.jit(forward), eqx.filter_jit(forward)
    variants = {name: every[name] for name in (baseline, variant)}
    inputs = {batch: jnp.asarray(rng.standard_normal((batch, WIDTH)), jnp.float32) for batch in batches}
    for x in inputs.values():
        for fn in variants.values():
            for _ in range(20):
                jax.block_until_ready(fn(x))
    # Every round visits every batch and both variants, so a busy spell on the machine moves one round
    # of every batch alike instead of the few batches measured during it.
    share = seconds / rounds
    round_medians = {(batch, name): [] for batch in batches for name in variants}
    for _ in range(rounds):
        for batch, x in inputs.items():
            for name, fn in variants.items():
                deadline = time.perf_counter() + share
                samples: list[int] = []
                while time.perf_counter() < deadline or len(samples) < 3:
                    start = time.perf_counter_ns()
                    jax.block_until_ready(fn(x))
                    samples.append(time.perf_counter_ns() - start)
                round_medians[batch, name].append(statistics.median(samples))
    found = {batch: {name: statistics.median(round_medians[batch, name]) for name in variants} for batch in batches}
    for batch, medians in found.items():
        print(f"  batch={batch:<6} " + "  ".join(f"{n} {m / 1e3:8.1f} µs" for n, m in medians.items()))
    return found


def plain_crossover(
    medians: dict[int, dict[str, float]], baseline: str, variant: str, smallest: int = 2
) -> tuple[float, float | None]:
    """(the extra fixed cost, the batch where it is SHARE of the variant's call; None: not reached)."""
    batches = sorted(medians)
    gap = statistics.mean(medians[b][variant] - medians[b][baseline] for b in batches[:smallest])
    target = gap / SHARE
    points = [(b, medians[b][variant]) for b in batches]
    for (b0, t0), (b1, t1) in itertools.pairwise(points):
        if t0 < target <= t1:
            fraction = (math.log(target) - math.log(t0)) / (math.log(t1) - math.log(t0))
            return gap, math.exp(math.log(b0) + fraction * (math.log(b1) - math.log(b0)))
    return gap, None


def tuiperf_crossover(batches: list[int], budget: float, baseline: str, variant: str) -> dict:
    out = Path(tempfile.mkdtemp()) / "sweep.json"
    command = [
        sys.executable, "-m", "tuiperf", "run", "filter-jit-overhead",
        "--set", "model=mlp", "--set", f"width={WIDTH}", "--set", f"depth={DEPTH}",
        "--variants", f"{baseline},{variant}", "--baseline", baseline,
        "--sweep", "batch=" + ",".join(map(str, batches)),
        "--budget", str(budget), "--no-history", "--json", str(out),
    ]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True, env={**os.environ, "XLA_FLAGS": ONE_THREAD})
    result = json.loads(out.read_text())
    for name, series in result["sweep"]["medians_ns"].items():
        print(f"  tuiperf {name:15s} " + "  ".join(f"{m / 1e3:8.1f}" for m in series) + "  µs")
    return next(c for c in result["sweep"]["crossovers"] if c["share"] == SHARE and c["variant"] == variant)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batches", default="16,32,64,128,256,512,1024")
    parser.add_argument("--baseline", default="jax.jit-preflattened", choices=("jax.jit-preflattened", "jax.jit"))
    parser.add_argument("--variant", default="jax.jit", choices=("jax.jit", "eqx.filter_jit"))
    parser.add_argument("--seconds", type=float, default=1.0, help="per variant and batch, plain loops")
    parser.add_argument("--budget", type=float, default=1.0, help="tuiperf's --budget per point")
    args = parser.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    if os.environ.get("XLA_FLAGS") != ONE_THREAD:  # XLA reads it once, at import: start again with it
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "XLA_FLAGS": ONE_THREAD})
    print(f"load {os.getloadavg()[0]:.1f}; plain timing loops (one XLA thread):")
    medians = plain_medians(batches, args.seconds, args.baseline, args.variant)
    gap, plain = plain_crossover(medians, args.baseline, args.variant)
    crossing = f"{plain:,.0f}" if plain else "not reached"
    print(f"  extra fixed cost {gap / 1e3:.1f} µs; under {SHARE:.0%} of the call above batch ≈ {crossing}")
    print(f"load {os.getloadavg()[0]:.1f}; tuiperf, the same sizes:")
    found = tuiperf_crossover(batches, args.budget, args.baseline, args.variant)
    at, ci = found["at"], found["at_ci95"]
    interval = f"{ci[0]:,.0f} – {ci[1]:,.0f}" if ci and ci[1] is not None else "unbounded"
    print(
        f"  extra fixed cost {found['extra_ns'] / 1e3:.1f} µs ({found['where']}); batch ≈ {at or 0:,.0f} ({interval})"
    )
    if plain and at:
        ratio = at / plain
        verdict = "within" if abs(ratio - 1) <= 0.25 else "NOT within"
        print(f"tuiperf / plain = {ratio:.2f}: {verdict} ±25 % (load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
