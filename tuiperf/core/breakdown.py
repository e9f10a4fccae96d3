"""Split one variant's per-call time into stages, each the difference of two measured paths.

    framework    = call          - jit                  Equinox/Flax/NNX Python work before JAX
    jit_dispatch = (jit          - flat_jit)            flattening the argument pytree
                 + (noop_jit     - noop_execute)        jit's argument checks and cache lookup
    launch       = noop_execute                         launching an executable with these arrays
    compute      = flat_jit      - noop_jit             running the program, outputs included
    residual     = steady-state median - call           noise between the two sampling passes

The paths (see :func:`tuiperf.core.prepare.build_paths`) are sampled interleaved, so the stages add
up exactly to the ``call`` median; the residual says how far that is from the main measurement.
"""

from __future__ import annotations

import statistics
import threading

from tuiperf.core.model import Breakdown, Stage
from tuiperf.core.prepare import Prepared
from tuiperf.core.sampler import Target, block_size, sample_interleaved
from tuiperf.core.timing import DEFAULT_CLOCK, Clock, blocker_for, choose_loops, take_sample

BREAKDOWN_SECONDS = 0.4  # sampling time spent on one variant's breakdown
MIN_ROUNDS, MAX_ROUNDS = 15, 3000  # samples per path


def measure_breakdown(
    prepared: Prepared, total_ns: float, resolution_ns: float, cancel: threading.Event, clock: Clock = DEFAULT_CLOCK
) -> Breakdown | None:
    if not prepared.paths:
        return None
    paths = {"call": (prepared.bench.fn, prepared.bench.args), **{k: (p.fn, p.args) for k, p in prepared.paths.items()}}
    targets = []
    for name, (fn, args) in paths.items():
        block = blocker_for(fn(*args))
        estimate = statistics.median(take_sample(fn, args, 1, block, clock) for _ in range(3))
        targets.append(
            Target(name, fn, args, block, loops=choose_loops(estimate, resolution_ns), per_turn=block_size(estimate))
        )
    per_sample_ns = sum(t.loops * max(prepared.estimate_ns, 1.0) for t in targets)
    rounds = int(min(MAX_ROUNDS, max(MIN_ROUNDS, BREAKDOWN_SECONDS * 1e9 / per_sample_ns)))
    if not sample_interleaved(targets, samples=rounds, budget_s=float("inf"), cancel=cancel, clock=clock):
        return None
    median = {t.name: statistics.median(t.samples) for t in targets}
    stages = {
        "framework": median["call"] - median["jit"],
        "jit_dispatch": median["jit"] - median["flat_jit"] + median["noop_jit"] - median["noop_execute"],
        "launch": median["noop_execute"],
        "compute": median["flat_jit"] - median["noop_jit"],
    }
    return Breakdown(
        stages={k: Stage(ns=v) for k, v in stages.items()},
        call_ns=median["call"],
        total_ns=total_ns,
        residual_ns=total_ns - median["call"],
        paths_ns=median,
        rounds=rounds,
    )
