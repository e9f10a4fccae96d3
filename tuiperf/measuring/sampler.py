"""Steady-state sampling: variants interleaved in rounds, over the same span of time.

Each round gives every variant a turn, in a rotating order, so slow drift (thermal, frequency
scaling, other processes) hits all variants alike. Every variant stays in the rotation until the run
stops for all of them at once: a variant that finished early and left would be measured over a
different span than the rest, and on a drifting machine that produced a confident false ratio
(1.55×, p = 1e-8, where fixed-count runs and a plain script read 0.97–1.02×).

Two ways to take a turn (``interleave``):

- ``"block"`` (default): about 5 ms of calls in a row, after one untimed warm-up call. The warm-up
  brings the variant's data back into the caches its neighbour evicted (measured: a flat dict's cost
  rose 5× beside an ``eqx.filter_jit`` that walks 10,000 static leaves, with single-call turns, and
  not at all with blocks). Medians then match a plain loop that times the call back to back, which is
  how most people time by hand.
- ``"call"``: one call per turn, no warm-up: every call follows another variant's call. Cheap calls
  that walk big pytrees read 18–40 % higher than in block mode; this is what a call costs when it
  is interleaved with other work, as in a real training loop.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Protocol

from tuiperf.contract.options import INTERLEAVE_MODES, MAX_SAMPLES_PER_VARIANT
from tuiperf.measuring.shallow import Scope, in_fresh_thread
from tuiperf.measuring.timing import DEFAULT_CLOCK, Clock, choose_loops, take_sample
from tuiperf.results.stats import median_ci

TARGET_REL_CI = 0.01  # auto mode stops once every median's 95 % CI is within ±1 %
MIN_SAMPLES = 30  # auto mode never judges convergence on fewer samples
MAX_SAMPLES = MAX_SAMPLES_PER_VARIANT  # a memory guard for very fast calls and long budgets
CHECK_EVERY_S = 0.25  # how often auto mode recomputes the confidence intervals
TICK_EVERY_S = 0.1  # how often progress is reported
BLOCK_NS = 5e6  # in block mode each variant's turn lasts about this long
MAX_BLOCK = 500
WARM_UP_BELOW_NS = 1e6  # calls longer than this do not need a warm-up call per turn


class Cancel(Protocol):
    """A cancel flag: a ``threading.Event``, or the flag a measuring process shares with its parent."""

    def is_set(self) -> bool: ...


def block_size(estimate_ns: float) -> int:
    """Samples per turn in block mode: about 5 ms of calls, at least one."""
    return int(min(MAX_BLOCK, max(1, BLOCK_NS // max(estimate_ns, 1.0))))


def needs_warm_up(estimate_ns: float) -> bool:
    """Whether a block-mode turn starts with an untimed call: only for calls shorter than 1 ms, whose
    data a neighbour can evict; a longer call refills the caches itself within its first microseconds."""
    return estimate_ns < WARM_UP_BELOW_NS


@dataclass(frozen=True)
class Pace:
    """How a target is called in its turns: chosen together from its estimated time per call."""

    loops: int = 1  # calls per sample
    per_turn: int = 1  # samples taken in a row each turn in block mode (see block_size)
    warm_up: bool = True  # an untimed call at the start of each block-mode turn

    @classmethod
    def of(cls, estimate_ns: float, resolution_ns: float) -> Pace:
        """The pace of a call estimated at ``estimate_ns`` under a clock that resolves ``resolution_ns``."""
        return cls(choose_loops(estimate_ns, resolution_ns), block_size(estimate_ns), needs_warm_up(estimate_ns))


@dataclass
class Target:
    """One callable being sampled, and where and when its samples were taken."""

    name: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    block: Callable[[Any], Any]
    pace: Pace = Pace()
    # What sampling records (not given to the constructor):
    samples: list[float] = field(default_factory=list, init=False)
    round_starts: list[int] = field(default_factory=list, init=False)  # index of each turn's first sample
    first_round: int | None = field(default=None, init=False)
    last_round: int | None = field(default=None, init=False)
    first_ns: int | None = field(default=None, init=False)  # clock reading when the first sample started
    last_ns: int | None = field(default=None, init=False)  # ... and when the last one ended
    converged: bool = field(default=False, init=False)
    error: BaseException | None = field(default=None, init=False)  # the exception that stopped this target

    def release(self) -> None:
        """Let go of the callable and its arguments once its samples are documented (a long interleaved
        sweep otherwise keeps every point's programs and inputs to the end)."""
        self.fn, self.args, self.block = _released, (), _released

    def turns(self) -> list[list[float]]:
        """The samples of each turn, in order."""
        bounds = [*self.round_starts, len(self.samples)]
        return [self.samples[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def _released(*args: Any) -> Any:
    raise RuntimeError("this target was released after it was documented")


@dataclass
class Outcome:
    """How sampling ended: ``reason`` is "count", "converged", "budget", "cap" or "cancelled"."""

    reason: str
    rounds: int
    elapsed_s: float

    @property
    def completed(self) -> bool:
        return self.reason != "cancelled"


def relative_ci_halfwidth(samples: list[float]) -> float:
    lo, hi = median_ci(samples)
    middle = sorted(samples)[len(samples) // 2]
    return (hi - lo) / 2 / middle if middle > 0 else float("inf")


def fixed_rounds(targets: list[Target], samples: int, interleave: str) -> tuple[int, int]:
    """(rounds, samples per turn) so that every target takes ``samples`` in the same rounds."""
    if interleave == "call":
        return samples, 1
    rounds = max(math.ceil(samples / max(t.pace.per_turn, 1)) for t in targets)
    return rounds, math.ceil(samples / rounds)


def sample_interleaved(
    targets: list[Target],
    *,
    samples: int | None,
    budget_s: float,
    cancel: Cancel,
    interleave: str = "block",
    on_tick: Callable[[float, float], None] = lambda elapsed, fraction: None,
    on_turn: Callable[[Target], None] = lambda target: None,
    clock: Clock = DEFAULT_CLOCK,
    max_samples: int = MAX_SAMPLES,
    min_rounds: int = 1,
    gate: Callable[[int, bool], bool] | None = None,
    scope: Scope = nullcontext,
) -> Outcome:
    """Fill every target's ``samples``, timing them from a thread of their own (:mod:`~tuiperf.measuring.shallow`:
    at a script's stack depth, whatever the caller's; ``scope()`` is entered there, for a default device).

    ``samples`` set: exactly that many per target, spread over the same rounds for all. ``samples``
    None (auto): until every median is known within ±1 % (95 % CI), ``budget_s`` of sampling has
    passed, or a target reaches ``max_samples``; never "converged" before ``min_rounds``. A target
    whose call raises stops alone.
    ``on_turn`` runs before each turn (the retrace sentinel uses it to know who is running).
    Progress (``on_tick``) is reported after each turn of the first round, then every ``TICK_EVERY_S``.
    ``gate(round, done)``, when given, runs before each round and decides whether it happens: the
    processes of a run over several environments take their rounds in turn and stop together, so
    converging or reaching the budget here only says ``done``; a fixed count or the cap still ends
    sampling here.
    """
    if interleave not in INTERLEAVE_MODES:
        raise ValueError(f"interleave must be one of {INTERLEAVE_MODES}, got {interleave!r}")
    stop = _Stop(cancel)
    settings = (samples, budget_s, stop, interleave, on_tick, on_turn, clock, max_samples, min_rounds, gate)
    return in_fresh_thread(functools.partial(_sample_rounds, targets, *settings), scope, on_interrupt=stop.interrupt)


class _Stop:
    """The caller's cancel flag, or an interrupt of the thread waiting for the sampler."""

    def __init__(self, cancel: Cancel) -> None:
        self.cancel, self.interrupted = cancel, False

    def interrupt(self) -> None:
        self.interrupted = True

    def is_set(self) -> bool:
        return self.interrupted or self.cancel.is_set()


def _sample_rounds(
    targets: list[Target],
    samples: int | None,
    budget_s: float,
    cancel: _Stop,
    interleave: str,
    on_tick: Callable[[float, float], None],
    on_turn: Callable[[Target], None],
    clock: Clock,
    max_samples: int,
    min_rounds: int,
    gate: Callable[[int, bool], bool] | None,
) -> Outcome:
    """:func:`sample_interleaved`'s rounds, right under the sampling thread's entry: a timed call is
    made three frames deep (entry, rounds, :func:`take_sample`), as from a script's timing loop."""
    start = last_check = clock()
    last_tick = start
    planned, per_turn = fixed_rounds(targets, samples, interleave) if samples is not None and targets else (0, 0)
    round_index = 0
    own_stop: str | None = None  # why this process alone would stop (with a gate: others may go on)

    def outcome(reason: str) -> Outcome:
        return Outcome(reason, round_index, (clock() - start) / 1e9)

    while True:
        active = [t for t in targets if t.error is None]
        if not active:
            return outcome("count" if samples is not None else "converged")
        if gate is not None and not gate(round_index, own_stop is not None):
            return outcome("cancelled" if cancel.is_set() else own_stop or "budget")
        # Block mode rotates who goes first; call mode keeps one order so that no variant ever runs
        # twice in a row (with two variants a rotation would repeat one at every other round's edge).
        shift = round_index % len(active) if interleave == "block" else 0
        for target in active[shift:] + active[:shift]:
            if cancel.is_set():
                return outcome("cancelled")
            if samples is not None:  # never 0 before the planned rounds end (see fixed_rounds)
                wanted = min(per_turn, samples - len(target.samples))
            else:
                wanted = 1 if interleave == "call" else target.pace.per_turn
            on_turn(target)
            target.round_starts.append(len(target.samples))
            if target.first_round is None:
                target.first_round, target.first_ns = round_index, clock()
            try:
                if interleave == "block" and target.pace.warm_up:
                    target.block(target.fn(*target.args))  # untimed: bring this variant's data back into cache
                for _ in range(wanted):
                    target.samples.append(take_sample(target.fn, target.args, target.pace.loops, target.block, clock))
                    if cancel.is_set():
                        target.last_round, target.last_ns = round_index, clock()
                        return outcome("cancelled")
            except BaseException as exc:  # noqa: BLE001 - one failing variant (say, out of memory) stops alone
                target.error = exc
            target.last_round, target.last_ns = round_index, clock()
            now = clock()
            if round_index == 0 or (now - last_tick) / 1e9 >= TICK_EVERY_S:
                # Stream after every turn of the first round, then at most every TICK_EVERY_S: if the next
                # variant crashes or hangs, the samples already taken have reached the caller.
                last_tick = now
                elapsed = (now - start) / 1e9
                done = round_index / planned if samples is not None else elapsed / budget_s if budget_s > 0 else 1.0
                on_tick(elapsed, min(done, 1.0))
        round_index += 1

        now = clock()
        elapsed = (now - start) / 1e9
        if samples is not None:
            if round_index >= planned:
                on_tick(elapsed, 1.0)
                return outcome("count")
        else:
            if any(len(t.samples) >= max_samples for t in active):
                on_tick(elapsed, 1.0)
                return outcome("cap")
            if elapsed >= budget_s:
                own_stop = "budget"
            elif own_stop is None and (now - last_check) / 1e9 >= CHECK_EVERY_S and round_index >= min_rounds:
                last_check = now
                for target in active:
                    n = len(target.samples)
                    target.converged = n >= MIN_SAMPLES and relative_ci_halfwidth(target.samples) <= TARGET_REL_CI
                if all(t.converged for t in active):
                    own_stop = "converged"
            if own_stop is not None and gate is None:
                on_tick(elapsed, 1.0)
                return outcome(own_stop)
