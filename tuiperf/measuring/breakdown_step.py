"""The breakdown step of a pass: every measured variant's lower-level paths, timed together in the
same rounds (:mod:`tuiperf.measuring.breakdown` times them; this decides which, for how long, and
withholds the breakdown of a variant that compiled while it was sampled or timed)."""

from __future__ import annotations

import numpy as np

from tuiperf.contract.events import PhaseChanged
from tuiperf.measuring.breakdown import BreakdownInput, SteadyState, TimedPath, compiling_breakdown, measure_breakdowns
from tuiperf.measuring.context import RunContext
from tuiperf.measuring.prepare import Prepared
from tuiperf.measuring.sampler import Target
from tuiperf.measuring.sampling import Sampled
from tuiperf.measuring.sentinel import sentinel
from tuiperf.results.model import Breakdown
from tuiperf.results.stats import median_ci


def breakdown_budget(budget_s: float, variants: int) -> float:
    """The breakdown phase: about a third of the sampling budget, at least 1 s, at most 20 s."""
    return min(20.0, max(1.0, budget_s / 3, 0.3 * variants))


def breakdowns(ctx: RunContext, measured: list[Prepared], sampled: Sampled, *, anchor: bool) -> dict[str, Breakdown]:
    """Every measured variant's breakdown paths, sampled together in the same rounds (none for a sweep's
    anchor: its medians only)."""
    inputs = []
    withheld: dict[str, Breakdown] = {}
    for item in measured:
        paths = item.built.paths
        if paths is None:
            continue
        samples = sampled.target(item.name).samples
        compiles = sampled.compiles(item.name)
        if compiles:
            withheld[item.name] = compiling_breakdown(float(np.median(samples)), compiles, len(samples))
            continue
        inputs.append(
            BreakdownInput(
                name=item.name,
                call=TimedPath(item.bench.fn, item.bench.args),
                paths=paths,
                steady=SteadyState(float(np.median(samples)), median_ci(samples)),
                call_flops=item.built.call_flops,
            )
        )
    if not inputs or ctx.cancel.is_set() or anchor:
        return withheld
    ctx.emit(PhaseChanged("breakdown", None, "timing the lower-level paths of every variant together"))
    watch = sentinel()
    before = {item.name: watch.snapshot(item.name)[1] for item in inputs}

    def on_turn(target: Target) -> None:
        variant = target.name.split("/", 1)[0]
        watch.current = variant
        ctx.hooks.turn(variant)

    try:
        found = measure_breakdowns(
            inputs,
            resolution_ns=sampled.plan.resolution_ns,
            budget_s=breakdown_budget(ctx.settings.budget_s, len(inputs)),
            cancel=ctx.cancel,
            interleave=ctx.settings.interleave,
            dispatch=ctx.dispatch,
            on_turn=on_turn,
            scope=ctx.scope,
        )
    finally:
        watch.current = None
    for timed in inputs:  # a call that compiled while its paths were timed: the same, found later
        compiles = watch.snapshot(timed.name)[1] - before[timed.name]
        if compiles and timed.name in found:
            found[timed.name] = compiling_breakdown(timed.steady.median_ns, compiles, None)
    return {**found, **withheld}
