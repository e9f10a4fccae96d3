"""Steady-state sampling: variants interleaved in rounds, fixed count or until the medians are known.

Interleaving (each round takes a block of samples of every variant, in a rotating order) makes slow
drift (thermal, frequency scaling, other processes) hit all variants alike instead of whichever ran
last. Blocks, not single samples, and an untimed warm-up call at the start of each block: a variant
that walks a 10,000-leaf pytree evicts the caches, and the next variant's first call pays for it
(measured: a flat dict's cost rose 5x beside eqx.filter_jit with single-sample interleaving, and
not at all alone or with blocks).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tuiperf.core.stats import median_ci
from tuiperf.core.timing import DEFAULT_CLOCK, Clock, take_sample

TARGET_REL_CI = 0.01  # auto mode stops a variant once its 95 % CI of the median is within ±1 %
MIN_SAMPLES = 30  # auto mode never judges convergence on fewer samples
MAX_SAMPLES = 200_000  # memory guard for very fast calls and long budgets
CHECK_EVERY_S = 0.25  # how often auto mode recomputes the confidence intervals
TICK_EVERY_S = 0.1  # how often progress is reported
BLOCK_NS = 5e6  # each variant's turn in a round lasts about this long
MAX_BLOCK = 500


def block_size(estimate_ns: float) -> int:
    """Samples per turn: about 5 ms of calls, at least one."""
    return int(min(MAX_BLOCK, max(1, BLOCK_NS // max(estimate_ns, 1.0))))


@dataclass
class Target:
    """One callable being sampled."""

    name: str
    fn: Callable[..., Any]
    args: tuple
    block: Callable[[Any], Any]
    loops: int = 1
    per_turn: int = 1  # samples taken in a row each round (see block_size)
    samples: list[float] = field(default_factory=list)
    converged: bool = False
    error: BaseException | None = None  # the exception that stopped this target, if any


def relative_ci_halfwidth(samples: list[float]) -> float:
    lo, hi = median_ci(samples)
    middle = sorted(samples)[len(samples) // 2]
    return (hi - lo) / 2 / middle if middle > 0 else float("inf")


def sample_interleaved(
    targets: list[Target],
    *,
    samples: int | None,
    budget_s: float,
    cancel: threading.Event,
    on_tick: Callable[[float, float], None] = lambda elapsed, fraction: None,
    on_turn: Callable[[Target], None] = lambda target: None,
    clock: Clock = DEFAULT_CLOCK,
) -> bool:
    """Fill every target's ``samples``; return False when cancelled before the end.

    ``samples`` set: exactly that many per target. ``samples`` None (auto): until every target's
    median is known within ±1 % (95 % CI) or ``budget_s`` of sampling has passed.
    ``on_turn`` runs before each variant's turn (the retrace sentinel uses it to know who is running).
    Progress (``on_tick``) is reported after the first round, then every ``TICK_EVERY_S``.
    """
    start = last_check = clock()
    last_tick = start - int(TICK_EVERY_S * 1e9)  # the first round's samples are streamed at once
    round_index = 0
    while True:
        active = [t for t in targets if not t.converged]
        if not active:
            return True
        shift = round_index % len(active)
        for target in active[shift:] + active[:shift]:
            if cancel.is_set():
                return False
            on_turn(target)
            wanted = target.per_turn if samples is None else min(target.per_turn, samples - len(target.samples))
            try:
                target.block(target.fn(*target.args))  # untimed: bring this variant's data back into cache
                for _ in range(wanted):
                    target.samples.append(take_sample(target.fn, target.args, target.loops, target.block, clock))
                    if cancel.is_set():
                        return False
            except Exception as exc:  # noqa: BLE001 - one failing variant (say, out of memory) stops alone
                target.error, target.converged = exc, True
        round_index += 1

        now = clock()
        elapsed = (now - start) / 1e9
        if samples is not None:
            for target in targets:
                target.converged = target.error is not None or len(target.samples) >= samples
            fraction = min((len(t.samples) for t in targets if t.error is None), default=samples) / samples
        else:
            if (now - last_check) / 1e9 >= CHECK_EVERY_S or elapsed >= budget_s:
                last_check = now
                for target in (t for t in active if t.error is None):
                    n = len(target.samples)
                    target.converged = n >= MAX_SAMPLES or (
                        n >= MIN_SAMPLES and relative_ci_halfwidth(target.samples) <= TARGET_REL_CI
                    )
            if elapsed >= budget_s:
                on_tick(elapsed, 1.0)
                return True
            fraction = elapsed / budget_s if budget_s > 0 else 1.0
        if (now - last_tick) / 1e9 >= TICK_EVERY_S:
            last_tick = now
            on_tick(elapsed, min(fraction, 1.0))
