"""Comparing two stored runs of a scenario, variant by variant, and saying what else differs.

A ratio between two runs means something only when they measured the same thing the same way:
different scenarios are refused (unless forced), and every other difference — parameters, versions,
device, dispatch mode — is named beside the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tuiperf.common.errors import TuiperfError
from tuiperf.results.model import RunResult


@dataclass
class VariantChange:
    variant: str
    old_ns: float
    new_ns: float
    ratio: float  # new / old median
    ci95: tuple[float, float]
    p_value: float


@dataclass
class RunComparison:
    rows: list[VariantChange]
    differences: list[str] = field(default_factory=list)  # "params: batch 1 → 8", "jax 0.9.0 → 0.10.2", ...


def differences(old: RunResult, new: RunResult) -> list[str]:
    """Everything besides the measurements that differs between two runs, one phrase each."""
    found = []
    if old.scenario.id != new.scenario.id:
        found.append(f"scenario {old.scenario.id} → {new.scenario.id}")
    elif (
        old.scenario.source_sha256
        and new.scenario.source_sha256
        and old.scenario.source_sha256 != new.scenario.source_sha256
    ):
        found.append("the scenario file changed between the runs")
    for name in sorted(set(old.params) | set(new.params)):
        a, b = old.params.get(name, "—"), new.params.get(name, "—")
        if a != b:
            found.append(f"parameter {name} {a} → {b}")
    if old.options.dispatch != new.options.dispatch:
        found.append(f"dispatch {old.options.dispatch} → {new.options.dispatch}")
    if old.options.interleave != new.options.interleave:
        found.append(f"interleave {old.options.interleave} → {new.options.interleave}")
    if (old.device.kind or old.device.id) != (new.device.kind or new.device.id):
        found.append(f"device {old.device.kind or old.device.id} → {new.device.kind or new.device.id}")
    old_packages = old.env.packages if old.env else {}
    new_packages = new.env.packages if new.env else {}
    for name in sorted(set(old_packages) | set(new_packages)):
        if name != "tuiperf" and old_packages.get(name) != new_packages.get(name):
            found.append(f"{name} {old_packages.get(name) or '—'} → {new_packages.get(name) or '—'}")
    if old.env and new.env and old.env.cpu != new.env.cpu:
        found.append(f"CPU {old.env.cpu} → {new.env.cpu}")
    return found


def compare_runs(old: RunResult, new: RunResult, *, force: bool = False) -> RunComparison:
    """new/old ratio of medians per variant measured in both, with a bootstrap 95 % CI and p-value."""
    from tuiperf.results.stats import mann_whitney_p, ratio_ci

    if old.scenario.id != new.scenario.id and not force:
        raise TuiperfError(
            f"the runs measured different scenarios ({old.scenario.id} and {new.scenario.id}); "
            "pass --force to compare same-named variants anyway"
        )
    old_point, new_point = old.shown, new.shown
    before = {v.name: v for v in old_point.measured}
    rows = []
    unsampled = []
    for variant in new_point.measured:
        base = before.get(variant.name)
        if base is None or base.stats is None or variant.stats is None:
            continue
        if not base.samples_ns or not variant.samples_ns:  # a file that kept statistics only
            which = (
                "either run"
                if not base.samples_ns and not variant.samples_ns
                else ("the old run" if not base.samples_ns else "the new run")
            )
            unsampled.append(f"{variant.name}: no samples stored in {which}, so no ratio with a CI")
            continue
        ratio, lo, hi = ratio_ci(variant.samples_ns, base.samples_ns)
        rows.append(
            VariantChange(
                variant=variant.name,
                old_ns=base.stats.median_ns,
                new_ns=variant.stats.median_ns,
                ratio=ratio,
                ci95=(lo, hi),
                p_value=mann_whitney_p(variant.samples_ns, base.samples_ns),
            )
        )
    return RunComparison(rows=rows, differences=differences(old_point, new_point) + unsampled)
