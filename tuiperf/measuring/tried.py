"""Remedies tried, not guessed: where the evidence names a remedy tuiperf can apply mechanically
(:mod:`tuiperf.measuring.candidates`: ``jax.jit`` around an eager call, a changing Python scalar of a
``Step``'s state passed as an array, an Equinox module partitioned once, NumPy arguments placed on the
device once), tuiperf builds the remedied variant itself, prepares it like any variant, and the pass
samples it in the same rounds as the original. After sampling, :func:`documented` checks its outputs
against the original's (the guard's comparison) and makes the :class:`~tuiperf.results.model.Tried` the
result keeps apart from the user's variants.

Bounded: at most :data:`MAX_TRIED` remedies a pass, none for a call whose estimate is over
:data:`MAX_SHARE` of the run's budget, none in a cluster (its calls are decided ahead) or without a
profile (``--no-profile``).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

from tuiperf.contract.events import PhaseChanged
from tuiperf.measuring.candidates import candidate
from tuiperf.measuring.context import Outcomes, RunContext, describe_exception
from tuiperf.measuring.guard import Costs, Subject, check
from tuiperf.measuring.prepare import Prepared, prepare
from tuiperf.results import document
from tuiperf.results.model import Scalar, Tried

MAX_TRIED = 2
MAX_SHARE = 0.05  # of the run's budget, for one call of the original


@dataclass(frozen=True)
class Attempt:
    """A remedy being tried: the original's name, the tried variant's, what was done and why."""

    of: str
    name: str
    remedy: str
    evidence: str


def tried_name(of: str, short: str = "jax.jit around the call") -> str:
    return f"{of} ⟨{short}⟩"


def added(
    ctx: RunContext, prepared: list[Prepared], found: Outcomes, point: int
) -> tuple[list[Prepared], list[Attempt]]:
    """The pass's prepared variants with the remedied ones it tries after them (to be sampled with the
    others), and the attempts that were prepared (one that could not be is kept in ``found.tried``
    with its error). Choosing a candidate profiles one call of the variant: that is said as its
    profile phase, so a call that hangs under a profiler is blamed for what it was doing."""
    if ctx.policy.fixed_calls or not ctx.settings.profile:
        return prepared, []
    budget_s = ctx.settings.budget_s
    extra: list[Prepared] = []
    attempts: list[Attempt] = []
    for p in prepared:
        if len(attempts) >= MAX_TRIED or ctx.cancel.is_set():
            break
        if p.first.estimate_ns > MAX_SHARE * budget_s * 1e9:
            continue
        ctx.emit(PhaseChanged("profile", p.name, "one call profiled: a remedy to try?"))
        ctx.hooks.turn(p.name, point)
        try:
            found_one = candidate(p, ctx.device)
        except BaseException:  # noqa: BLE001 - the evidence is optional; the variant was measured already
            continue
        if found_one is None:
            continue
        attempt = Attempt(p.name, tried_name(p.name, found_one.short), found_one.remedy, found_one.evidence)
        attempts.append(attempt)
        try:
            extra.append(prepare(attempt.name, found_one.build(), _NO_PATHS, ctx.device, budget_s))
        except BaseException as exc:  # noqa: BLE001 - a remedy that cannot be applied is said so
            error = describe_exception(exc, ctx.resolved.scenario.path)
            found.tried.append(Tried(of=p.name, remedy=attempt.remedy, evidence=attempt.evidence, error=error))
    return [*prepared, *extra], [a for a in attempts if any(e.name == a.name for e in extra)]


class _Always:
    """A cancel flag that is set: prepare() then builds no breakdown paths for a tried variant."""

    def is_set(self) -> bool:
        return True


_NO_PATHS = _Always()


def documented(
    ctx: RunContext, attempts: list[Attempt], prepared: list[Prepared], found: Outcomes, params: dict[str, Scalar]
) -> None:
    """Each tried variant's result beside its original's: the ratio of medians (same rounds) and
    whether their outputs agree (at the scenario's tolerance), kept in ``found.tried``."""
    tolerance = ctx.resolved.scenario.tolerance_for(SimpleNamespace(**params))
    by_name = {p.name: p for p in prepared}
    for attempt in attempts:
        original, remedied = found.results.get(attempt.of), found.results.get(attempt.name)
        if original is None or remedied is None:
            continue
        same, differs = None, ""
        if attempt.of in by_name and attempt.name in by_name and original.ok and remedied.ok:
            subjects = [_subject(by_name[attempt.of]), _subject(by_name[attempt.name])]
            try:
                mismatches = check(subjects, tolerance, attempt.of).mismatches
                same = not mismatches
                differs = "; ".join(f"{m['quantity']} {m['detail']}" for m in mismatches)
            except BaseException as exc:  # noqa: BLE001 - outputs that cannot be compared are said so
                differs = f"the outputs could not be compared: {type(exc).__name__}"
        rows = document.comparisons([original, remedied])
        found.tried.append(
            Tried(
                of=attempt.of,
                remedy=attempt.remedy,
                evidence=attempt.evidence,
                result=remedied,
                ratio=rows[0] if rows else None,
                same_outputs=same,
                differs=differs,
            )
        )


def _subject(p: Prepared) -> Subject:
    """Values only: a jit around the call compiles a different program, so its costs are not compared."""
    return Subject(p.name, p.first.output, Costs(checked=False), compare=p.bench.compare, tolerance=p.bench.tolerance)
