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
from dataclasses import dataclass, field

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
    # ``--measure compile``: each variant's compile time (trace + lower + compile, repeated; in ns as the
    # medians are) from the runs that measured it, steps marked apart from the per-call medians'
    compile: dict[str, Measured] = field(default_factory=dict)

    def series(self, measure: str) -> dict[str, Measured]:
        """``call``: the medians per call; ``compile``: the compile times."""
        return self.compile if measure == "compile" else self.variants

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


def _compiled(result: RunResult) -> dict[str, tuple[float, float, float]]:
    """Each variant's compile time (median, interval low, interval high) in ns, where it was repeated."""
    found = {}
    for v in result.variants:
        total = v.stages.total
        if v.status == "ok" and total is not None:
            found[v.name] = (total.median_ms * 1e6, total.ci95_ms[0] * 1e6, total.ci95_ms[1] * 1e6)
    return found


def _merged(figures: dict[str, list[tuple[float, float, float]]]) -> dict[str, Measured]:
    """One commit's runs: the median of their medians, the span of their intervals."""
    return {
        name: Measured(
            median_ns=statistics.median(f[0] for f in got),
            low_ns=min(f[1] for f in got),
            high_ns=max(f[2] for f in got),
            runs=len(got),
        )
        for name, got in figures.items()
    }


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
        compiles: dict[str, list[tuple[float, float, float]]] = {}
        for _, result in members:
            for name, figure in _one(result).items():
                figures.setdefault(name, []).append(figure)
            for name, figure in _compiled(result).items():
                compiles.setdefault(name, []).append(figure)
        last = members[-1][1].env
        branch = last.source.branch if last is not None and last.source is not None else ""
        ids = tuple(i for i, _ in members)
        commits.append(
            Commit(commit, dirty, branch, members[0][1].started_at, ids, _merged(figures), _merged(compiles))
        )
    return mark_steps(commits)


def mark_steps(commits: list[Commit]) -> list[Commit]:
    """``commits`` with each variant's step marked where its interval does not overlap the previous
    commit's (the previous commit that measured that variant)."""
    marked: list[Commit] = []
    last: dict[str, Measured] = {}
    last_compile: dict[str, Measured] = {}
    for commit in commits:
        variants, compile_ = _stepped(commit.variants, last), _stepped(commit.compile, last_compile)
        c = commit
        marked.append(Commit(c.commit, c.dirty, c.branch, c.first_run, c.run_ids, variants, compile_))
    return marked


def _stepped(here: dict[str, Measured], last: dict[str, Measured]) -> dict[str, Measured]:
    """``here`` with each step against ``last`` (each variant's previous commit) marked; ``last`` updated."""
    marked = {}
    for name, m in here.items():
        before = last.get(name)
        stepped = before is not None and (m.low_ns > before.high_ns or m.high_ns < before.low_ns)
        if stepped and before is not None and before.median_ns > 0:
            m = Measured(m.median_ns, m.low_ns, m.high_ns, m.runs, m.median_ns / before.median_ns)
        marked[name] = last[name] = m
    return marked


def commits_in(
    history: History,
    scenario: str,
    since: str | None = None,
    like: StoredRun | None = None,
    measure: str = "call",
) -> list[Commit]:
    """``scenario``'s single runs in ``history`` measured as ``like`` was (default: its newest; the same
    parameters, device, dispatch), by commit. ``measure`` "compile": the runs that measured compile time
    only (``like`` by default: the newest of them)."""
    runs = history.list(scenario=scenario, since=since, limit=None)
    if measure == "compile":
        runs = [run for run in runs if run.compile_ms]
    runs = [run for run in runs if not run.sweep]  # (the newest single run is the default ``like``)
    runs = comparable(runs, like or runs[0]) if runs else []
    return by_commit([(run.id, history.get(run.id)) for run in runs])


def as_sweep(commits: Sequence[Commit]) -> Sweep:
    """``commits`` as a sweep to plot (x: each commit, ▲/▼ where one of its variants' medians per call
    stepped); the compile times, where runs measured them, as its ``compile_ms`` (m plots them)."""
    names = list(dict.fromkeys(name for c in commits for name in c.variants))
    compiled = list(dict.fromkeys(name for c in commits for name in c.compile))

    def label(c: Commit) -> str:
        steps = [m.step for m in c.variants.values() if m.step is not None]
        return c.label + "".join(f" {'▲' if step > 1 else '▼'}" for step in steps[:1])

    return Sweep(
        parameter="commit",
        values=[label(c) for c in commits],
        medians_ns={name: [m.median_ns if (m := c.variants.get(name)) else None for c in commits] for name in names},
        slopes={name: None for name in names},
        compile_ms={
            name: [m.median_ns / 1e6 if (m := c.compile.get(name)) else None for c in commits] for name in compiled
        },
    )
