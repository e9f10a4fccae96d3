"""A pass's progress bar and ETA: its plan (how long sampling, breakdown and profiles should take) and
the Progress events it sends, as a share of the whole run (``span``: the pass's part of a sweep)."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from tuiperf.common.units import format_ns
from tuiperf.contract.events import PhaseChanged, Progress
from tuiperf.measuring.breakdown_step import breakdown_budget
from tuiperf.measuring.context import RunContext
from tuiperf.measuring.prepare import Prepared
from tuiperf.measuring.profiling import PROFILE_SECONDS
from tuiperf.measuring.sampler import Target, Timed

# Share of a run's progress bar spent in each phase.
PREPARE_SHARE, SAMPLE_SHARE = 0.25, 0.6
ANALYSE_SHARE = 1 - PREPARE_SHARE - SAMPLE_SHARE
# With --measure compile, the analysis's last part is the compile repeats (their budget is the run's), and
# of that, the first part the repeats themselves, the rest each variant's trace profile and persistent cache.
COMPILE_SHARE, REPEATS_PART = 0.7, 0.8

LONG_RUN_S = 60.0  # a plan longer than this is announced as soon as the calls' cost is known

# The live estimate (shown as "≈") is the median of the latest samples: ten times a second, a
# median over every sample of every variant would cost the measuring process tens of milliseconds.
ESTIMATE_WINDOW = 5000


class PassProgress:
    def __init__(self, ctx: RunContext, span: tuple[float, float]) -> None:
        self.ctx, self.span = ctx, span
        self.started = time.monotonic()
        self.plan_s: dict[str, float] = {}

    def within(self, span: tuple[float, float]) -> None:
        """Report from now on as the part ``span`` of the whole (an interleaved sweep knows each point's
        part only once every point is prepared)."""
        self.span = span

    def remaining_s(self, fraction: float) -> float | None:
        """Seconds left in this pass from its plan (compile so far, then the sampling budget or planned
        samples, the breakdown budget, the profiles), plus as long again for each sweep value to come."""
        elapsed = time.monotonic() - self.started
        budget_s = self.ctx.settings.budget_s
        if fraction < PREPARE_SHARE:
            done = max(fraction / PREPARE_SHARE, 1e-9)
            prepare_left = elapsed / done * (1 - done) if fraction > 0 else None
            if prepare_left is None:
                return None
            left = prepare_left + self.plan_s.get("sample", budget_s) + self.plan_s.get("after", 0.0)
        elif fraction < PREPARE_SHARE + SAMPLE_SHARE:
            done = (fraction - PREPARE_SHARE) / SAMPLE_SHARE
            left = self.plan_s.get("sample", 0.0) * (1 - done) + self.plan_s.get("after", 0.0)
        else:
            done = (fraction - PREPARE_SHARE - SAMPLE_SHARE) / ANALYSE_SHARE
            left = self.plan_s.get("after", 0.0) * (1 - done)
        lo, hi = self.span
        points_after = round((1 - hi) / (hi - lo)) if hi > lo else 0
        return left + points_after * (elapsed + left)

    def plan(self, prepared: list[Prepared]) -> None:
        """How long sampling, breakdown and profiles should take, now that each call's cost is known;
        say so at once if that is long (a size or sample count the user may not have meant)."""
        settings = self.ctx.settings
        calls_s = sum(p.first.estimate_ns for p in prepared) / 1e9
        samples = settings.samples
        self.plan_s["sample"] = settings.budget_s if samples is None else samples * calls_s * 1.1
        with_paths = [p for p in prepared if p.built.paths is not None]
        breakdown = breakdown_budget(settings.budget_s, len(with_paths)) if with_paths else 0.0
        profile = min(PROFILE_SECONDS + 5 * max((p.first.estimate_ns for p in prepared), default=0) / 1e9, 5.0)
        self.plan_s["after"] = breakdown + (profile * len(prepared) if settings.profile else 0.0)
        if settings.measure == "compile":  # the repeats take the budget again, then a cold and a warm compile each
            compiles_s = (
                sum(
                    sum(x or 0.0 for x in (p.built.stages.trace, p.built.stages.lower, p.built.stages.compile))
                    for p in prepared
                )
                / 1e3
            )
            self.plan_s["after"] += settings.budget_s + 3 * compiles_s
        total = self.plan_s["sample"] + self.plan_s["after"]
        if total > LONG_RUN_S:
            why = (
                f"{samples:,} samples × {format_ns(calls_s * 1e9)} of calls per round"
                if samples is not None
                else f"breakdown of calls of {format_ns(max(p.first.estimate_ns for p in prepared))}"
            )
            self.ctx.emit(PhaseChanged("sample", None, f"about {total / 60:.0f} min still to go ({why})"))

    def report(self, fraction: float, targets: Sequence[Target | Timed] = ()) -> None:
        lo, hi = self.span
        fraction = min(max(fraction, 0.0), 1.0)
        self.ctx.emit(
            Progress(
                fraction=lo + (hi - lo) * fraction,
                elapsed_s=time.monotonic() - self.ctx.started,
                eta_s=self.remaining_s(fraction),
                estimates_ns={t.name: float(np.median(t.samples[-ESTIMATE_WINDOW:])) for t in targets if t.samples},
                counts={t.name: len(t.samples) for t in targets},
            )
        )
