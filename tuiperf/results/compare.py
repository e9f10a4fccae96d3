"""Comparing two stored runs of a scenario, variant by variant, and saying what else differs.

A ratio between two runs means something only when they measured the same thing the same way:
different scenarios are refused (unless forced), and every other difference — parameters, versions,
device, dispatch mode — is named beside the numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tuiperf.common.errors import TuiperfError
from tuiperf.results.model import RunResult, VariantResult


@dataclass
class VariantChange:
    variant: str
    old_ns: float
    new_ns: float
    ratio: float  # new / old median
    ci95: tuple[float, float]
    p_value: float
    point: str = ""  # a sweep's point, "n_args=4" ("" for a single run)
    covers: str = "samples"  # what ci95 covers: the narrower of the two runs' medians' intervals

    @property
    def finding(self) -> bool:
        """Whether the change is beyond noise: two runs are two processes (:mod:`tuiperf.results.findings`)."""
        from tuiperf.results.findings import is_finding

        return is_finding(self.ci95, self.covers, two_processes=True)


@dataclass(frozen=True)
class CompileChange:
    """One variant's compile time (trace + lower + compile, repeated: ``--measure compile``) in both runs:
    new / old median with a bootstrap 95 % interval over the two runs' repeats."""

    variant: str
    old_ms: float
    new_ms: float
    ratio: float
    ci95: tuple[float, float]
    point: str = ""

    @property
    def finding(self) -> bool:
        """Two runs are two processes, and repeats cover one process's compiles only."""
        from tuiperf.results.covers import SAMPLES
        from tuiperf.results.findings import is_finding

        return is_finding(self.ci95, SAMPLES, two_processes=True)


@dataclass
class RunComparison:
    rows: list[VariantChange]
    differences: list[str] = field(default_factory=list)  # "params: batch 1 → 8", "jax 0.9.0 → 0.10.2", ...
    compile_rows: list[CompileChange] = field(default_factory=list)  # where both runs measured compile time


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


def across_runs(
    old: VariantResult, new: VariantResult, ratio: float, samples_ci: tuple[float, float]
) -> tuple[tuple[float, float], str]:
    """The 95 % interval of new / old median from each run's own median interval (over its rounds and
    processes, see :mod:`tuiperf.results.intervals`): their log half-widths add in quadrature. Runs stored
    before intervals said what they cover keep the samples-only interval; ``covers`` says which."""
    from tuiperf.results.covers import PROCESSES, ROUNDS, SAMPLES

    kinds = [v.sampling.median_interval.covers if v.sampling.median_interval else SAMPLES for v in (old, new)]
    if SAMPLES in kinds or old.sampling.stats is None or new.sampling.stats is None or not ratio > 0:
        return samples_ci, SAMPLES

    def sides(v: VariantResult) -> tuple[float, float]:
        assert v.sampling.stats is not None
        lo, hi = v.sampling.stats.ci95_median_ns
        median = v.sampling.stats.median_ns
        return math.log(median / lo), math.log(hi / median)

    if any(
        not 0 < v.sampling.stats.ci95_median_ns[0] <= v.sampling.stats.median_ns
        for v in (old, new)
        if v.sampling.stats is not None
    ):
        return samples_ci, SAMPLES
    (old_down, old_up), (new_down, new_up) = sides(old), sides(new)
    bounds = (ratio * math.exp(-math.hypot(new_down, old_up)), ratio * math.exp(math.hypot(new_up, old_down)))
    return bounds, PROCESSES if kinds == [PROCESSES, PROCESSES] else ROUNDS


def compare_runs(old: RunResult, new: RunResult, *, force: bool = False) -> RunComparison:
    """new/old ratio of medians per variant measured in both, with a bootstrap 95 % CI and p-value;
    two sweeps over one parameter point by point (matched by value; a value one side lacks is named)."""
    if old.scenario.id != new.scenario.id and not force:
        raise TuiperfError(
            f"the runs measured different scenarios ({old.scenario.id} and {new.scenario.id}); "
            "pass --any-scenario to compare same-named variants anyway"
        )
    pairs, found = matched_points(old, new)
    rows: list[VariantChange] = []
    compiles: list[CompileChange] = []
    for label, old_point, new_point in pairs:
        rows += _point_rows(old_point, new_point, label, found)
        compiles += _compile_rows(old_point, new_point, label)
    first_old, first_new = (pairs[0][1], pairs[0][2]) if pairs else (old.shown, new.shown)
    swept = (
        {p for run in (old, new) if run.sweep is not None for p in run.sweep.parameters} if len(pairs) > 1 else set()
    )
    described = [
        d for d in differences(first_old, first_new) if not any(d.startswith(f"parameter {p} ") for p in swept)
    ]
    shapes = [_shape(r) for r in (old, new)]
    if shapes[0] != shapes[1]:
        described.insert(0, f"{shapes[0]} → {shapes[1]} (compared at {pairs[0][0]})")
    return RunComparison(rows=rows, differences=described + found, compile_rows=compiles)


def matched_points(old: RunResult, new: RunResult) -> tuple[list[tuple[str, RunResult, RunResult]], list[str]]:
    """The pairs of results to compare, each with its point's label, and a note per unmatched point.

    Two sweeps over one parameter pair their points by value; a sweep and a single run pair the
    single run with the sweep's point at its value (else the sweep's last point); otherwise the
    two results themselves."""
    notes: list[str] = []
    if old.sweep is not None and new.sweep is not None and old.sweep.parameters == new.sweep.parameters:
        parameters = old.sweep.parameters
        before = {_cell(p, parameters): p for p in old.points}
        after = {_cell(p, parameters): p for p in new.points}
        pairs = [(_label(parameters, key), before[key], after[key]) for key in after if key in before]
        for side, keys in (
            ("old", [k for k in before if k not in after]),
            ("new", [k for k in after if k not in before]),
        ):
            if not keys:
                continue
            if len(parameters) == 1:  # n_args=1, 4: measured in the old run only
                notes.append(f"{parameters[0]}={', '.join(k[0] for k in keys)}: measured in the {side} run only")
            else:  # a grid's cells: n_args=1, size=64; n_args=4, size=64: ...
                notes.append(f"{'; '.join(_label(parameters, k) for k in keys)}: measured in the {side} run only")
        return pairs, notes
    old_point, new_point = _point_like(old, new), _point_like(new, old)
    swept_run = new if new.sweep is not None else old
    label = ""
    if swept_run.sweep is not None:
        parameters = swept_run.sweep.parameters
        label = _label(parameters, _cell(new_point if swept_run is new else old_point, parameters))
    return [(label, old_point, new_point)], notes


def _shape(run: RunResult) -> str:
    if run.sweep is None:
        return "a single run"
    return f"a {'grid' if run.sweep.grid else 'sweep'} over {' × '.join(run.sweep.parameters)}"


def _cell(point: RunResult, parameters: list[str]) -> tuple[str, ...]:
    """A point's swept values, as the key that matches it with the other run's point."""
    return tuple(_key(point.params.get(p)) for p in parameters)


def _label(parameters: list[str], cell: tuple[str, ...]) -> str:
    return ", ".join(f"{p}={value}" for p, value in zip(parameters, cell, strict=True))


def _key(value: object) -> str:
    return str(value)


def _point_like(run: RunResult, other: RunResult) -> RunResult:
    """``run`` itself, or a sweep's point at the values ``other`` (a single run) has."""
    if run.sweep is None or not run.points:
        return run
    parameters = run.sweep.parameters
    wanted = _cell(other.shown, parameters)
    return next((p for p in run.points if _cell(p, parameters) == wanted), run.shown)


def _point_rows(old_point: RunResult, new_point: RunResult, label: str, notes: list[str]) -> list[VariantChange]:
    from tuiperf.results.stats import mann_whitney_p, ratio_ci

    before = {v.name: v for v in old_point.measured}
    rows = []
    at = f" at {label}" if label else ""
    for variant in new_point.measured:
        base = before.get(variant.name)
        if base is None or base.sampling.stats is None or variant.sampling.stats is None:
            continue
        if not base.sampling.samples_ns or not variant.sampling.samples_ns:  # a file that kept statistics only
            which = (
                "either run"
                if not base.sampling.samples_ns and not variant.sampling.samples_ns
                else ("the old run" if not base.sampling.samples_ns else "the new run")
            )
            notes.append(f"{variant.name}{at}: no samples stored in {which}, so no ratio with a CI")
            continue
        ratio, lo, hi = ratio_ci(variant.sampling.samples_ns, base.sampling.samples_ns)
        ci95, covers = across_runs(base, variant, ratio, (lo, hi))
        rows.append(
            VariantChange(
                variant=variant.name,
                old_ns=base.sampling.stats.median_ns,
                new_ns=variant.sampling.stats.median_ns,
                ratio=ratio,
                ci95=ci95,
                p_value=mann_whitney_p(variant.sampling.samples_ns, base.sampling.samples_ns),
                point=label,
                covers=covers,
            )
        )
    return rows


def _compile_rows(old_point: RunResult, new_point: RunResult, label: str) -> list[CompileChange]:
    """Each variant whose compile time both runs repeated: new / old median of trace + lower + compile."""
    before = {v.name: v for v in old_point.variants}
    rows = []
    for variant in new_point.variants:
        old = before.get(variant.name)
        change = compile_change(variant.name, old, variant, label) if old is not None else None
        if change is not None:
            rows.append(change)
    return rows


def compile_change(name: str, old: VariantResult, new: VariantResult, point: str = "") -> CompileChange | None:
    """new / old of trace + lower + compile where both repeated it (at least twice each)."""
    from tuiperf.results.stats import ratio_ci

    new_total, old_total = new.stages.total, old.stages.total
    if new_total is None or old_total is None or len(new_total.samples_ms) < 2 or len(old_total.samples_ms) < 2:
        return None
    ratio, lo, hi = ratio_ci(new_total.samples_ms, old_total.samples_ms)
    return CompileChange(name, old_total.median_ms, new_total.median_ms, ratio, (lo, hi), point)
