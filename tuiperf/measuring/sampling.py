"""The sample step's common part: time targets in the same rounds while the retrace sentinel watches,
and what it saw (each target's traces and compiles while sampled, and their causes). One pass samples
its own variants; an interleaved sweep samples every point's at once (:mod:`tuiperf.measuring.sweep`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import msgspec

from tuiperf.measuring.context import RunContext
from tuiperf.measuring.policy import Across, SamplingPlan
from tuiperf.measuring.sampler import Target, Timed, sample_interleaved
from tuiperf.measuring.sentinel import sentinel
from tuiperf.results import document
from tuiperf.results.intervals import MIN_ROUNDS
from tuiperf.results.model import Recompiles, Sampling


@dataclass(frozen=True)
class Compiles:
    """What the sentinel saw of one target while it was sampled."""

    traces: int = 0
    compiles: int = 0
    causes: tuple[str, ...] = ()  # what changed between calls

    def part(self, eager: bool) -> Recompiles:
        """The result's part: the causes only where something compiled."""
        causes = list(self.causes) if self.compiles else []
        return Recompiles(retraces=self.traces, recompiles=self.compiles, causes=causes, eager=eager)


@dataclass(frozen=True)
class Sampled:
    """What a pass's sample step leaves for its analysis."""

    plan: SamplingPlan
    targets: tuple[Timed, ...]
    started_ns: int  # when sampling began
    compiles_of: dict[str, Compiles] = field(default_factory=dict)
    across: dict[str, Across] = field(default_factory=dict)  # figures across a cluster's processes

    def target(self, name: str) -> Timed:
        return next(t for t in self.targets if t.name == name)

    def compiles(self, name: str) -> int:
        seen = self.compiles_of.get(name)
        return seen.compiles if seen is not None else 0

    def recompiles(self, name: str, eager: bool) -> Recompiles:
        return self.compiles_of.get(name, Compiles()).part(eager)

    def sampling(self, target: Timed) -> Sampling:
        """The target's sampling part, with its figures across a cluster's processes where there are any."""
        part = document.sampling(
            target.samples,
            loops_per_sample=target.pace.loops,
            span=self.span_of(target),
            round_starts=target.round_starts,
        )
        across = self.across.get(target.name)
        if across is None:
            return part
        return msgspec.structs.replace(
            part,
            process_medians_ns=across.medians_ns,
            slowest_share=across.slowest_share,
            slowest_calls=across.slowest_calls,
        )

    def span_of(self, target: Timed) -> tuple[float | None, float | None, int | None, int | None]:
        """When (seconds after sampling began) and in which rounds a target was sampled."""

        def seconds(ns: int | None) -> float | None:
            return None if ns is None else (ns - self.started_ns) / 1e9

        span = target.span
        return seconds(span.first_ns), seconds(span.last_ns), span.first_round, span.last_round


def sample_watched(
    ctx: RunContext,
    targets: list[Target],
    plan: SamplingPlan,
    *,
    on_tick: Callable[[float, float], None],
    on_turn: Callable[[Target], None],
    gate: Callable[[int, bool], bool],
    budget_s: float,
) -> dict[str, Compiles]:
    """Sample ``targets`` together; per target (by its name while sampled), what compiled meanwhile."""
    watch = sentinel()
    before = {t.name: watch.snapshot(t.name) for t in targets}
    for target in targets:
        watch.take_causes(target.name)  # only cache misses while sampling are explained

    def turn(target: Target) -> None:
        watch.current = target.name
        on_turn(target)

    with watch.explaining():
        sample_interleaved(
            targets,
            samples=plan.samples,
            budget_s=budget_s,
            cancel=ctx.cancel,
            interleave=ctx.settings.interleave,
            on_tick=on_tick,
            on_turn=turn,
            min_rounds=MIN_ROUNDS,  # enough rounds to resample time (tuiperf.results.intervals)
            gate=gate,
            scope=ctx.scope,
        )
    watch.current = None
    seen = {}
    for target in targets:
        traces, compiles = watch.snapshot(target.name)
        seen[target.name] = Compiles(
            traces - before[target.name][0], compiles - before[target.name][1], tuple(watch.take_causes(target.name))
        )
    return seen
