"""Baselines a project commits, and the verdict on a new run against one (the pytest plugin's core).

A baseline file holds, per test (pytest's node id and the scenario), what each variant measured: its
median and 95 % interval (not its samples: a file meant for version control stays small), with the
setting it was measured in. A new run is judged variant by variant: the ratio new / baseline of the
medians, with a 95 % interval whose log half-widths are the two medians' in quadrature (what
``tuiperf compare`` does for runs whose intervals cover their rounds). With ``relative_to``, each
figure is instead the variant's ratio to that variant in the same interleaved run, so a machine that is
faster, slower or busier than the baseline's moves both and cancels: the check a shared CI runner needs.
A variant *regressed* only when that whole interval lies above ``1 + threshold``: a slowdown the
measurement cannot explain away.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import msgspec

from tuiperf.common.files import write_atomic
from tuiperf.results.model import RunResult

FORMAT = 1
Verdict = Literal["ok", "regressed", "faster", "new", "not comparable"]


class Figure(msgspec.Struct, frozen=True, kw_only=True):
    """A variant's median and its 95 % interval; with ``relative_to``, its ratio to that variant in the
    same run (dimensionless) and the ratio's interval."""

    median_ns: float
    low_ns: float  # the median's 95 % interval
    high_ns: float
    covers: str = "samples"  # what the interval covers (rounds, processes)


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    scenario: str
    params: dict[str, str] = {}  # as text: what must match for a ratio to mean something
    device: str = ""
    dispatch: str = ""
    recorded_at: str = ""
    commit: str = ""
    relative_to: str = ""  # the variant each figure is a ratio to ("": absolute times)
    variants: dict[str, Figure] = {}


class BaselineFile(msgspec.Struct, kw_only=True):
    format: int = FORMAT
    tool: str = "tuiperf"
    tests: dict[str, Entry] = {}


@dataclass(frozen=True)
class Check:
    """One variant of one test against its baseline."""

    test: str
    variant: str
    verdict: Verdict
    threshold_pct: float
    baseline_ns: float | None = None
    new_ns: float | None = None
    ratio: float | None = None
    low: float | None = None  # the ratio's 95 % interval
    high: float | None = None
    note: str = ""
    relative_to: str = ""  # baseline_ns and new_ns are ratios to this variant

    def interval_text(self) -> str:
        if self.ratio is None or self.low is None or self.high is None:
            return "–"
        return f"{self.ratio:.3f}× [{self.low:.3f}–{self.high:.3f}]"

    def message(self) -> str:
        """The line a failing test says: the variant, the interval and the threshold."""
        if self.verdict != "regressed":
            return f"{self.variant}: {self.verdict}"
        assert self.ratio is not None and self.low is not None
        what = f"{self.variant}'s ratio to {self.relative_to}" if self.relative_to else self.variant
        return (
            f"{what} is slower than its baseline: new/baseline {self.interval_text()} (95 % interval), "
            f"wholly above the threshold {1 + self.threshold_pct / 100:.3f}× (+{self.threshold_pct:g} %)"
        )


def _relative(result: RunResult, reference: str) -> dict[str, Figure]:
    """Each other variant's ratio to ``reference`` in ``result`` (interleaved in one process: what the
    machine's speed does to both cancels), with the ratio's 95 % interval."""
    figures = {}
    for c in result.comparisons:
        covers = c.interval.covers if c.interval is not None else "samples"
        if c.b == reference and c.a != reference:
            figures[c.a] = Figure(median_ns=c.ratio, low_ns=c.ci95[0], high_ns=c.ci95[1], covers=covers)
        elif c.a == reference and c.b != reference and c.ratio > 0 and c.ci95[0] > 0:
            figures[c.b] = Figure(median_ns=1 / c.ratio, low_ns=1 / c.ci95[1], high_ns=1 / c.ci95[0], covers=covers)
    return figures


def entry_of(result: RunResult, relative_to: str = "") -> Entry:
    """What a baseline keeps of ``result`` (a single run: a sweep keeps nothing): each variant's median,
    or with ``relative_to`` each other variant's ratio to that one."""
    figures = {}
    for v in result.variants:
        stats = v.sampling.stats
        if v.status == "ok" and stats is not None:
            low, high = stats.ci95_median_ns
            covers = v.sampling.median_interval.covers if v.sampling.median_interval else "samples"
            figures[v.name] = Figure(median_ns=stats.median_ns, low_ns=low, high_ns=high, covers=covers)
    if relative_to:
        figures = _relative(result, relative_to)
    source = result.env.source if result.env is not None else None
    return Entry(
        scenario=result.scenario.id,
        params={k: str(v) for k, v in result.params.items()},
        device=result.device.kind or result.device.id,
        dispatch=result.options.dispatch,
        recorded_at=result.started_at,
        commit=source.commit if source is not None else "",
        relative_to=relative_to,
        variants=figures,
    )


def ratio_interval(old: Figure, new: Figure) -> tuple[float, float, float]:
    """new / old median and its 95 % interval (the two medians' log half-widths in quadrature)."""
    ratio = new.median_ns / old.median_ns

    def sides(f: Figure) -> tuple[float, float]:
        low, high = max(f.low_ns, 1e-12), max(f.high_ns, f.median_ns)
        return math.log(f.median_ns / min(low, f.median_ns)), math.log(high / f.median_ns)

    (old_down, old_up), (new_down, new_up) = sides(old), sides(new)
    return ratio, ratio * math.exp(-math.hypot(new_down, old_up)), ratio * math.exp(math.hypot(new_up, old_down))


def setting_changes(old: Entry, new: Entry) -> list[str]:
    """What differs between the baseline's setting and the new run's (then no ratio is judged)."""
    found = [f"scenario {old.scenario} → {new.scenario}"] if old.scenario != new.scenario else []
    for name in sorted(set(old.params) | set(new.params)):
        if old.params.get(name) != new.params.get(name):
            found.append(f"parameter {name} {old.params.get(name, '—')} → {new.params.get(name, '—')}")
    if old.device != new.device:
        found.append(f"device {old.device} → {new.device}")
    if old.dispatch != new.dispatch:
        found.append(f"dispatch {old.dispatch} → {new.dispatch}")
    if old.relative_to != new.relative_to:
        found.append(f"relative to {old.relative_to or 'nothing'} → {new.relative_to or 'nothing'}")
    return found


def judge(test: str, old: Entry | None, new: Entry, threshold_pct: float, per_variant: dict[str, float]) -> list[Check]:
    """Each variant of ``new`` against ``old`` (None: no baseline yet)."""
    checks = []
    changed = setting_changes(old, new) if old is not None else []
    relative = new.relative_to
    for name, figure in new.variants.items():
        threshold = per_variant.get(name, threshold_pct)
        before = old.variants.get(name) if old is not None else None
        if before is None or old is None:
            note = "no baseline yet"
            checks.append(Check(test, name, "new", threshold, new_ns=figure.median_ns, note=note, relative_to=relative))
            continue
        if changed:
            note = "; ".join(changed) + ": save a new baseline (--tuiperf-save)"
            checks.append(
                Check(
                    test,
                    name,
                    "not comparable",
                    threshold,
                    before.median_ns,
                    figure.median_ns,
                    note=note,
                    relative_to=relative,
                )
            )
            continue
        ratio, low, high = ratio_interval(before, figure)
        verdict: Verdict = "regressed" if low > 1 + threshold / 100 else "faster" if high < 1 else "ok"
        checks.append(
            Check(
                test,
                name,
                verdict,
                threshold,
                before.median_ns,
                figure.median_ns,
                ratio,
                low,
                high,
                relative_to=relative,
            )
        )
    return checks


def read(path: Path) -> BaselineFile:
    """The baseline file at ``path``; an empty one where there is none."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return BaselineFile()
    return msgspec.json.decode(data, type=BaselineFile)


def write(path: Path, baselines: BaselineFile) -> None:
    data = msgspec.json.format(msgspec.json.encode(baselines), indent=1) + b"\n"
    write_atomic(path, data, force=True)


def saved(path: Path, key: str, entry: Entry) -> None:
    """Read ``path``, set ``key``'s entry and write it back (the caller holds the lock)."""
    baselines = read(path)
    tests = dict(baselines.tests)
    tests[key] = entry
    baselines.tests = dict(sorted(tests.items()))
    write(path, baselines)
