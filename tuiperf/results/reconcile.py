"""Which stages explain the gap between two variants, with 95 % CIs. No numpy: the TUI uses it.

The breakdown paths of every variant of a run are sampled in the same rounds, so two variants'
stages can be compared round by round: a paired bootstrap over the shared groups of rounds gives the
CI of each stage's difference. The stage differences add up to the difference of the two calls as
the breakdown measured them; ``unexplained_ns`` is what is left of the gap between the steady-state
medians (the two residuals).
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass

from tuiperf.results.model import BREAKDOWN_STAGES, STAGE_PATHS, Breakdown, VariantResult

RESAMPLES = 400


@dataclass
class StageDelta:
    key: str
    label: str
    delta_ns: float
    ci95_ns: tuple[float, float] | None
    share: float | None  # of the gap between the medians (None when the gap is within its noise)
    resolution_ns: float = 0.0  # what the two stages' method can tell apart, combined


@dataclass
class Reconciliation:
    variant: str
    baseline: str
    gap_ns: float  # steady-state median of variant - baseline
    stages: list[StageDelta]
    unexplained_ns: float  # gap - sum of stage differences (the residuals' difference)
    reliable: bool

    def clear_stages(self) -> list[StageDelta]:
        """The stage differences worth naming: the CI excludes zero and is no wider than the gap (a stage
        known less precisely than the gap itself cannot explain it), it is at least 2 % of the gap and
        beyond the two stages' resolution (two compiles of one program differ by that much)."""
        return [
            s
            for s in self.stages
            if s.delta_ns != 0
            and abs(s.delta_ns) >= 0.02 * abs(self.gap_ns)
            and abs(s.delta_ns) >= s.resolution_ns
            and (s.ci95_ns is None or s.ci95_ns[0] > 0 or s.ci95_ns[1] < 0)
            and not self.wider_than_gap(s)
        ]

    def wider_than_gap(self, stage: StageDelta) -> bool:
        return stage.ci95_ns is not None and stage.ci95_ns[1] - stage.ci95_ns[0] > abs(self.gap_ns)

    @property
    def explained_share(self) -> float | None:
        return (self.gap_ns - self.unexplained_ns) / self.gap_ns if self.gap_ns else None


def stage_values(paths: dict[str, float]) -> dict[str, float]:
    return {stage: sum(sign * paths[p] for p, sign in combo.items()) for stage, combo in STAGE_PATHS.items()}


def reconcile(variant: VariantResult, baseline: VariantResult, cache: Resampled | None = None) -> Reconciliation | None:
    """The gap between two measured variants, split by stage; None without both breakdowns.
    ``cache``: kept between calls on one result, each variant is resampled once."""
    a, b = variant.breakdown, baseline.breakdown
    if (
        a is None
        or b is None
        or variant.sampling.stats is None
        or baseline.sampling.stats is None
        or not (a.stages and b.stages)
    ):
        return None  # no split to compare (a call that compiled while timed has none)
    gap = variant.sampling.stats.median_ns - baseline.sampling.stats.median_ns
    # A gap inside the two medians' noise has no size to share out: a stage of it would read as
    # "300 % of the gap" on a 0.03 µs difference.
    noise = (
        sum(
            ((s.ci95_median_ns[1] - s.ci95_median_ns[0]) / 2) ** 2
            for s in (variant.sampling.stats, baseline.sampling.stats)
        )
        ** 0.5
    )
    resolved = abs(gap) > noise
    point_a, point_b = ({k: s.ns for k, s in bd.stages.items()} for bd in (a, b))
    intervals = _paired_intervals(a, b, cache)
    stages = []
    for key, label, _ in BREAKDOWN_STAGES:
        if key == "framework" and a.framework_holds:  # named for what the variant's own stage holds
            label = "state carried"
        delta = point_a.get(key, 0.0) - point_b.get(key, 0.0)
        resolution = sum((bd.stages[key].resolution_ns or 0.0) ** 2 for bd in (a, b) if key in bd.stages) ** 0.5
        share = delta / gap if gap and resolved else None
        stages.append(StageDelta(key, label, delta, intervals.get(key), share, resolution))
    explained = sum(s.delta_ns for s in stages)
    return Reconciliation(variant.name, baseline.name, gap, stages, gap - explained, a.reliable and b.reliable)


def _paired_intervals(a: Breakdown, b: Breakdown, cache: Resampled | None = None) -> dict[str, tuple[float, float]]:
    """Percentile intervals of each stage difference, resampling the shared groups of rounds together."""
    if not a.groups_ns or not b.groups_ns:
        return {}
    lengths = {len(v) for v in (*a.groups_ns.values(), *b.groups_ns.values())}
    if len(lengths) != 1 or lengths == {0}:
        return {}  # not sampled in the same rounds (e.g. results of two runs)
    n = lengths.pop()
    stages_a, stages_b = resampled_stages(a, n, cache), resampled_stages(b, n, cache)
    if stages_a is None or stages_b is None:
        return {}
    intervals = {}
    for key in STAGE_PATHS:
        values = sorted(x[key] - y[key] for x, y in zip(stages_a, stages_b, strict=True))
        intervals[key] = (values[int(0.025 * (len(values) - 1))], values[int(0.975 * (len(values) - 1))])
    return intervals


# Each breakdown's resampled stages, by id (the breakdown kept beside them, so an id is never reused
# while its entry lives): a caller reconciling many pairs of one result resamples each variant once.
Resampled = dict[int, tuple[Breakdown, list[dict[str, float]] | None]]


def resampled_stages(breakdown: Breakdown, n: int, cache: Resampled | None = None) -> list[dict[str, float]] | None:
    """Each stage's value in each of ``RESAMPLES`` resamples of ``n`` groups of rounds; None without
    every path. Every breakdown is resampled with the same picks (one seed), so two variants' values
    pair up: their differences are the paired bootstrap of the pair."""
    hit = cache.get(id(breakdown)) if cache is not None else None
    if hit is not None and hit[0] is breakdown:
        return hit[1]
    needed = {p for combo in STAGE_PATHS.values() for p in combo}
    values: list[dict[str, float]] | None = None
    if needed <= set(breakdown.groups_ns):
        rng = random.Random(0)
        values = []
        for _ in range(RESAMPLES):
            picks = [rng.randrange(n) for _ in range(n)]
            paths = {p: statistics.median(v[i] for i in picks) for p, v in breakdown.groups_ns.items()}
            values.append(stage_values(paths))
    if cache is not None:
        cache[id(breakdown)] = (breakdown, values)
    return values
