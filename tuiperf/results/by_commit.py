"""Runs by commit: each variant's median per git commit of the scenario's folder, with its 95 %
interval, and the commits where it stepped beyond the intervals (``tuiperf history --by-commit ID``).

A run records the commit it was measured at (``env.source``, :mod:`tuiperf.results.source`). Runs
are grouped by commit and dirty state (a dirty tree is not that commit's code: ``abc1234*``), in the
order each commit was first measured (the history does not know the repository's graph). Where one
commit was measured several times, its median is the median of the runs' medians and its interval
the span of their intervals (what any of those runs could claim, not narrower).

A *step* at commit k for a variant: its interval lies wholly above (or below) commit k-1's, so the
median moved by more than either measurement's uncertainty. A one-off outlier is then two steps (up and
back), both shown; a drift smaller than the intervals at every commit is no step.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from tuiperf.results.history import History, StoredRun, comparable
from tuiperf.results.model import RunResult, Sweep


@dataclass(frozen=True)
class Measured:
    """One variant at one commit."""

    median_ns: float
    low_ns: float
    high_ns: float
    runs: int
    step: float | None = None  # median / the previous commit's, where a step was detected here


@dataclass(frozen=True)
class Commit:
    commit: str
    dirty: bool
    branch: str
    first_run: str  # started_at of its first run
    run_ids: tuple[int, ...]
    variants: dict[str, Measured]

    @property
    def label(self) -> str:
        return self.commit[:10] + ("*" if self.dirty else "")


def _one(result: RunResult) -> dict[str, tuple[float, float, float]]:
    """Each variant's (median, interval low, interval high) in one run (a sweep: none)."""
    found = {}
    for v in result.variants:
        stats = v.sampling.stats
        if v.status == "ok" and stats is not None:
            low, high = stats.ci95_median_ns
            found[v.name] = (stats.median_ns, low, high)
    return found


def by_commit(runs: Sequence[tuple[int, RunResult]]) -> list[Commit]:
    """``runs`` (run id, result) grouped by commit, oldest first commit first; runs without a commit
    are left out. Steps are marked (see the module docstring)."""
    groups: dict[tuple[str, bool], list[tuple[int, RunResult]]] = {}
    for run_id, result in sorted(runs, key=lambda r: (r[1].started_at, r[0])):
        source = result.env.source if result.env is not None else None
        if source is not None:
            groups.setdefault((source.commit, source.dirty), []).append((run_id, result))
    commits: list[Commit] = []
    for (commit, dirty), members in groups.items():
        figures: dict[str, list[tuple[float, float, float]]] = {}
        for _, result in members:
            for name, figure in _one(result).items():
                figures.setdefault(name, []).append(figure)
        variants = {
            name: Measured(
                median_ns=statistics.median(f[0] for f in got),
                low_ns=min(f[1] for f in got),
                high_ns=max(f[2] for f in got),
                runs=len(got),
            )
            for name, got in figures.items()
        }
        last = members[-1][1].env
        branch = last.source.branch if last is not None and last.source is not None else ""
        commits.append(Commit(commit, dirty, branch, members[0][1].started_at, tuple(i for i, _ in members), variants))
    return mark_steps(commits)


def mark_steps(commits: list[Commit]) -> list[Commit]:
    """``commits`` with each variant's step marked where its interval does not overlap the previous
    commit's (the previous commit that measured that variant)."""
    marked: list[Commit] = []
    last: dict[str, Measured] = {}
    for commit in commits:
        variants = {}
        for name, here in commit.variants.items():
            before = last.get(name)
            stepped = before is not None and (here.low_ns > before.high_ns or here.high_ns < before.low_ns)
            if stepped and before is not None and before.median_ns > 0:
                here = Measured(here.median_ns, here.low_ns, here.high_ns, here.runs, here.median_ns / before.median_ns)
            variants[name] = here
            last[name] = here
        marked.append(Commit(commit.commit, commit.dirty, commit.branch, commit.first_run, commit.run_ids, variants))
    return marked


def commits_in(
    history: History, scenario: str, since: str | None = None, like: StoredRun | None = None
) -> list[Commit]:
    """``scenario``'s single runs in ``history`` measured as ``like`` was (default: its newest; the same
    parameters, device, dispatch), by commit."""
    runs = history.list(scenario=scenario, since=since, limit=None)
    runs = [run for run in comparable(runs, like or runs[0]) if not run.sweep] if runs else []
    return by_commit([(run.id, history.get(run.id)) for run in runs])


def as_sweep(commits: Sequence[Commit]) -> Sweep:
    """``commits`` as a sweep to plot (x: each commit, ▲/▼ where one of its variants stepped)."""
    names = list(dict.fromkeys(name for c in commits for name in c.variants))

    def label(c: Commit) -> str:
        steps = [m.step for m in c.variants.values() if m.step is not None]
        return c.label + "".join(f" {'▲' if step > 1 else '▼'}" for step in steps[:1])

    return Sweep(
        parameter="commit",
        values=[label(c) for c in commits],
        medians_ns={name: [m.median_ns if (m := c.variants.get(name)) else None for c in commits] for name in names},
        slopes={name: None for name in names},
    )
