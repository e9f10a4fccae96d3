"""A run over several Python environments (``--env current --env old``), as one result.

Each environment's measuring process measures the whole scenario; its variants come back named
``variant @ environment`` (so every view that lists variants shows them side by side) with
``VariantResult.environment`` set. The first environment is the reference: each other one's variant
is compared with the same variant there (ratio of medians, 95 % CI, p-value), naming the versions that
differ, and its output is compared with the reference's (a version that changes the *result* is a
finding too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import msgspec

from tuiperf.common.units import format_p, how_much, interval_words, sig3
from tuiperf.results import document, findings
from tuiperf.results.covers import PROCESSES
from tuiperf.results.model import (
    Comparison,
    Environment,
    EnvironmentRun,
    Equivalence,
    Interval,
    Mismatch,
    RunResult,
    Sweep,
    VariantResult,
)
from tuiperf.results.outputs import OutputDigest, differences

if TYPE_CHECKING:
    from tuiperf.results.compare import CompileChange

SEPARATOR = " @ "
# Said of a ratio whose interval leaves process-to-process spread out (no calibration, or stored before):
# two processes of one environment read 0.98-1.025x apart (docs/guide/environments.md).
ONE_PROCESS_WORDS = "one process each: process-to-process spread not included"
COMPARED_PACKAGES = ("jax", "jaxlib", "equinox", "flax", "optax", "numpy")


def qualified(variant: str, environment: str) -> str:
    return f"{variant}{SEPARATOR}{environment}"


def base_name(variant: VariantResult) -> str:
    """The scenario's own name of a variant measured in one of several environments."""
    if variant.environment is None:
        return variant.name
    return variant.name.removesuffix(SEPARATOR + variant.environment)


@dataclass(frozen=True)
class Measured:
    """What one environment's measuring process gave: its result (None if it gave none) and outputs."""

    environment: EnvironmentRun
    result: RunResult | None
    digests: dict[str, OutputDigest]


def version_changes(reference: Environment | None, other: Environment | None) -> list[str]:
    """``flax 0.12.0 → 0.12.8`` for each measured library (and Python) whose version differs."""
    if reference is None or other is None:
        return []
    changes = [f"Python {reference.python} → {other.python}"] if reference.python != other.python else []
    for name in COMPARED_PACKAGES:
        a, b = reference.packages.get(name), other.packages.get(name)
        if a != b:
            changes.append(f"{name} {a or '—'} → {b or '—'}")
    return changes


def _renamed(variant: VariantResult, environment: str) -> VariantResult:
    return msgspec.structs.replace(variant, name=qualified(variant.name, environment), environment=environment)


def _equivalence(runs: list[tuple[str, RunResult]]) -> Equivalence:
    """Each environment's own guard findings, with the variants' names qualified."""
    merged = Equivalence()
    for environment, result in runs:
        own = result.equivalence
        if merged.reference is None and own.reference is not None:
            merged.reference = qualified(own.reference, environment)
        merged.checked += [qualified(name, environment) for name in own.checked]
        merged.mismatches += [
            Mismatch(a=qualified(m.a, environment), b=qualified(m.b, environment), quantity=m.quantity, detail=m.detail)
            for m in own.mismatches
        ]
        merged.notes += [f"[{environment}] {note}" for note in own.notes]
    return merged


def _across_outputs(measured: list[Measured]) -> list[Mismatch]:
    """The same variant's output in each environment against the reference environment's."""
    reference = measured[0]
    found = []
    for other in measured[1:]:
        for name, ours in other.digests.items():
            theirs = reference.digests.get(name)
            if theirs is None:
                continue
            for quantity, detail in differences(ours, theirs):
                found.append(
                    Mismatch(
                        a=qualified(name, other.environment.name),
                        b=qualified(name, reference.environment.name),
                        quantity=quantity,
                        detail=detail,
                    )
                )
    return found


def merge_point(runs: list[tuple[str, RunResult]], duration_s: float) -> RunResult:
    """One set of parameter values measured in every environment, as one result."""
    base = runs[0][1]
    variants = [_renamed(v, environment) for environment, result in runs for v in result.variants]
    warnings = [f"[{environment}] {w}" for environment, result in runs for w in result.warnings]
    merged = msgspec.structs.replace(
        base,
        variants=variants,
        comparisons=document.comparisons(variants),
        equivalence=_equivalence(runs),
        warnings=warnings,
        duration_s=duration_s,
        partial=any(result.partial for _, result in runs),
        error=None,
        crash=None,
        memory=None,
    )
    return merged


def merge(measured: list[Measured], duration_s: float) -> RunResult | None:
    """Every environment's result as one (None when none gave a result): variants side by side, the
    reference environment first, outputs compared across environments."""
    runs = [(m.environment.name, m.result) for m in measured if m.result is not None]
    if not runs:
        return None
    if len(measured) == 1:  # one environment, not the current one: its variants keep their names
        alone = runs[0][1]
        alone.environments = [measured[0].environment]
        return alone
    base = runs[0][1]
    merged = _merge_sweep(runs, duration_s) if base.sweep is not None else merge_point(runs, duration_s)
    measured_ok = [m for m in measured if m.result is not None]
    across = _across_outputs(measured_ok) if len(measured_ok) > 1 and measured_ok[0] is measured[0] else []
    target = merged.points[-1] if merged.points else merged
    target.equivalence.mismatches += across
    warnings = [f"{m.environment.name}: {m.environment.error}" for m in measured if m.environment.error is not None]
    by_pair: dict[tuple[str, str], list[str]] = {}
    for m in across:
        by_pair.setdefault((m.a, m.b), []).append(f"{m.quantity} {m.detail}")
    warnings += [
        f"{a} does not compute the same result as {b}: {'; '.join(details)}. The versions differ in what they compute."
        for (a, b), details in by_pair.items()
    ]
    merged.warnings = list(dict.fromkeys([*warnings, *merged.warnings]))
    merged.environments = [m.environment for m in measured]
    for point in merged.points:
        point.environments = merged.environments
    merged.partial = merged.partial or any(m.environment.error is not None for m in measured)
    return merged


def _merge_sweep(runs: list[tuple[str, RunResult]], duration_s: float) -> RunResult:
    base = runs[0][1]
    assert base.sweep is not None
    count = min(len(result.points) for _, result in runs)
    points = [merge_point([(env, result.points[i]) for env, result in runs], 0.0) for i in range(count)]
    medians: dict[str, list[float | None]] = {}
    slopes: dict[str, float | None] = {}
    anchors: dict[str, float | None] = {}
    memory: dict[str, list[int | None]] = {}
    for environment, result in runs:
        if result.sweep is None:
            continue
        medians |= {qualified(k, environment): v[:count] for k, v in result.sweep.medians_ns.items()}
        slopes |= {qualified(k, environment): v for k, v in result.sweep.slopes.items()}
        anchors |= {qualified(k, environment): v for k, v in result.sweep.anchor_ns.items()}
        memory |= {qualified(k, environment): v[:count] for k, v in result.sweep.memory_bytes.items()}
    sweep = Sweep(
        parameter=base.sweep.parameter,
        values=base.sweep.values[:count],
        medians_ns=medians,
        slopes=slopes,
        anchor_ns=anchors,
        memory_bytes=memory,
        grid=base.sweep.grid,  # a grid over several environments stays a grid
    )
    warnings = [f"[{environment}] {w}" for environment, result in runs for w in result.warnings]
    return msgspec.structs.replace(
        base,
        points=points,
        sweep=sweep,
        warnings=warnings,
        duration_s=duration_s,
        partial=any(result.partial for _, result in runs),
    )


# -- reading a result over several environments --------------------------------------------------------
@dataclass(frozen=True)
class EnvironmentChange:
    """One variant in one environment against the same variant in the reference environment."""

    variant: str
    reference: str  # environment names
    environment: str
    ratio: float  # median here / median in the reference
    ci95: tuple[float, float]
    p_value: float
    changes: list[str]  # the versions that differ
    interval: Interval | None = None  # what ci95 covers (None: a result stored before it said)

    @property
    def one_process(self) -> bool:
        """Whether the interval leaves out how far two processes of one environment land apart."""
        return self.interval is None or self.interval.covers != PROCESSES

    @property
    def finding(self) -> bool:
        """Whether the change is beyond noise (:mod:`tuiperf.results.findings`: two processes, so only
        with an interval that includes the process-to-process spread)."""
        return findings.is_finding(self.ci95, self.interval.covers if self.interval else None, two_processes=True)

    @property
    def versions(self) -> str:
        """What differs between the two environments, in words."""
        return ", ".join(self.changes) or f"{self.reference} → {self.environment} (the same versions)"

    def sentence(self, with_versions: bool = True) -> str:
        """``flax 0.12.0 → 0.12.8: nnx.jit 2.1× as fast [0.45–0.5×, p < 1e-6]`` (without the versions when
        they are said once above a list of these)."""
        lo, hi = self.ci95
        versions = f"{self.versions}: " if with_versions else ""
        caveat = f", {ONE_PROCESS_WORDS}" if self.one_process else ""
        if lo <= 1 <= hi:
            return f"{versions}{self.variant} no different [{sig3(lo)}–{sig3(hi)}×{caveat}]"
        if not self.finding:  # beyond its interval, but that interval leaves the process part out
            return (
                f"{versions}{self.variant} {how_much(self.ratio)} in these two processes, undecided "
                f"[{interval_words(self.ratio, lo, hi)}{caveat}]"
            )
        agreeing = findings.agreeing_p(self.p_value, True)
        p = "" if agreeing is None else format_p(agreeing)
        p = "" if not p else f", p {p}" if p.startswith("<") else f", p = {p}"
        return f"{versions}{self.variant} {how_much(self.ratio)} [{interval_words(self.ratio, lo, hi)}{p}{caveat}]"


def changes(result: RunResult) -> list[EnvironmentChange]:
    """Every variant of every other environment against the reference environment's."""
    shown = result.shown
    if len(result.environments) < 2:
        return []
    reference = result.environments[0]
    pairs = {(row.a, row.b): row for row in shown.comparisons}
    rows = []
    for other in result.environments[1:]:
        versions = version_changes(reference.env, other.env)
        for variant in shown.variants:
            if variant.environment != other.name:
                continue
            name = base_name(variant)
            row = _ratio(pairs, qualified(name, other.name), qualified(name, reference.name))
            if row is None:
                continue
            rows.append(
                EnvironmentChange(
                    name, reference.name, other.name, row.ratio, row.ci95, row.p_value, versions, row.interval
                )
            )
    return rows


def compile_changes(result: RunResult) -> list[tuple[str, CompileChange]]:
    """Every variant whose compile time (``--measure compile``) both the reference environment and
    another one repeated: (that environment, new / old of trace + lower + compile)."""
    from tuiperf.results.compare import compile_change

    shown = result.shown
    if len(result.environments) < 2:
        return []
    reference = result.environments[0].name
    by_name = {v.name: v for v in shown.variants}
    found = []
    for variant in shown.variants:
        if variant.environment in (None, reference):
            continue
        base = by_name.get(qualified(base_name(variant), reference))
        change = compile_change(base_name(variant), base, variant) if base is not None else None
        if change is not None and variant.environment is not None:
            found.append((variant.environment, change))
    return found


def _ratio(pairs: dict[tuple[str, str], Comparison], a: str, b: str) -> Comparison | None:
    """median(a) / median(b), from whichever way round the result stores the pair."""
    if (a, b) in pairs:
        return pairs[(a, b)]
    if (b, a) in pairs:
        row = pairs[(b, a)]
        lo, hi = row.ci95
        ci95 = (1 / hi, 1 / lo)
        return Comparison(a=a, b=b, ratio=1 / row.ratio, ci95=ci95, p_value=row.p_value, interval=row.interval)
    return None


def pairs(result: RunResult, baseline: str) -> list[tuple[str, str]]:
    """Which measured variant is read against which: each against the baseline; in a run over several
    environments, the reference environment's against the baseline, and every other environment's
    against the same variant in the reference environment (a version's effect, not a mix of both)."""
    measured = [v for v in result.measured if v.name != baseline]
    if len(result.environments) < 2:
        return [(v.name, baseline) for v in measured]
    reference = result.environments[0].name
    found = [(v.name, baseline) for v in measured if v.environment == reference]
    names = {v.name for v in result.measured}
    for v in measured:
        if v.environment not in (None, reference) and qualified(base_name(v), reference) in names:
            found.append((v.name, qualified(base_name(v), reference)))
    return found
