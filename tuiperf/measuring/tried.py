"""Remedies tried, not guessed: where one call's profile shows JAX work done outside a compiled program
(operations dispatched one at a time, ``apply_primitive``; a derivative taken eagerly, ``vjp`` /
``linearize``; a ``custom_jvp`` resolved per call), tuiperf builds the remedied variant itself —
``jax.jit`` around the whole call — prepares it like any variant, and the pass samples it in the same
rounds as the original. After sampling, :func:`documented` checks its outputs against the original's
(the guard's comparison) and makes the :class:`~tuiperf.results.model.Tried` the result keeps apart
from the user's variants.

Bounded: at most :data:`MAX_TRIED` remedies a pass, none for a call whose estimate is over
:data:`MAX_SHARE` of the run's budget, none in a cluster (its calls are decided ahead) or for a ``Step``
(its state is carried between calls: a jit around one step is a different loop).
"""

from __future__ import annotations

import cProfile
import pstats
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from tuiperf.api.scenario import Bench
from tuiperf.api.step import Carrier
from tuiperf.common.units import format_bytes
from tuiperf.contract.events import PhaseChanged
from tuiperf.measuring.analysis import host_bytes
from tuiperf.measuring.context import Outcomes, RunContext, describe_exception
from tuiperf.measuring.guard import Costs, Subject, check
from tuiperf.measuring.prepare import Prepared, is_jax_jit, prepare
from tuiperf.results import document
from tuiperf.results.model import Scalar, Tried

MAX_TRIED = 2
MAX_SHARE = 0.05  # of the run's budget, for one call of the original
JIT_AROUND = "put jax.jit around the call"
DEVICE_PUT_ONCE = "put the NumPy arguments on the device once (jax.device_put)"
# Functions whose calls in one profiled call mean JAX work outside a compiled program.
EAGER = {
    "apply_primitive": "JAX operations dispatched one at a time",
    "vjp": "a derivative taken outside jax.jit",
    "linearize": "a derivative taken outside jax.jit",
}


@dataclass(frozen=True)
class Attempt:
    """A remedy being tried: the original's name, the tried variant's, what was done and why."""

    of: str
    name: str
    remedy: str
    evidence: str


def tried_name(of: str, short: str = "jax.jit around the call") -> str:
    return f"{of} ⟨{short}⟩"


@dataclass(frozen=True)
class Candidate:
    """A remedy the evidence names for one prepared variant, and how to build it."""

    remedy: str
    short: str  # in the tried variant's name
    evidence: str
    build: Callable[[], Bench]


def candidate(p: Prepared, device: Any) -> Candidate | None:
    """The remedy the evidence names for ``p``: jax.jit around a call that ran eager JAX work, else the
    NumPy arguments placed on the device once for a call that copies them on every call; None."""
    import jax

    bench = p.bench
    if isinstance(bench.fn, Carrier):
        return None
    evidence = eager_evidence(bench)
    if evidence is not None:
        return Candidate(
            JIT_AROUND,
            "jax.jit around the call",
            evidence,
            lambda: Bench(jax.jit(bench.fn), *bench.args, tolerance=bench.tolerance, compare=bench.compare),
        )
    copied = host_bytes(bench)
    if copied:
        evidence = f"its arguments hold {format_bytes(copied)} of NumPy arrays, copied to the device on every call"

        def placed() -> Bench:
            args = jax.tree.map(
                lambda leaf: jax.device_put(leaf, device) if isinstance(leaf, np.ndarray) else leaf, bench.args
            )
            return Bench(bench.fn, *args, tolerance=bench.tolerance, compare=bench.compare)

        return Candidate(DEVICE_PUT_ONCE, "jax.device_put once", evidence, placed)
    return None


def eager_evidence(bench: Bench) -> str | None:
    """One call profiled: which of :data:`EAGER` it ran, and how often; None when none."""
    if isinstance(bench.fn, Carrier) or is_jax_jit(bench.fn):
        return None
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        bench.fn(*bench.args)
    finally:
        profiler.disable()
    # pstats.Stats.stats is public but undeclared in typeshed's stub.
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    seen: dict[str, int] = {}
    for (filename, _, function), (_, ncalls, *_rest) in stats.items():
        if function in EAGER and "jax/_src/" in filename.replace("\\", "/"):
            seen[function] = seen.get(function, 0) + int(ncalls)
    if not seen:
        return None
    said = dict.fromkeys(EAGER[f] for f in seen)
    counts = ", ".join(f"{f} ×{n}" for f, n in seen.items())
    return f"one call ran {' and '.join(said)} ({counts} in its profile)"


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
