"""Remedies tuiperf tried itself (``RunResult.tried``, made by :mod:`tuiperf.measuring.tried`), in words:
the remedy with its measured effect against the baseline, and whether the outputs agree. A remedy that
did not help is said as tried and not helping. Pure: no numpy or JAX (the UI uses it)."""

from __future__ import annotations

from tuiperf.common.units import format_ns, ratio_with_interval, sig3
from tuiperf.results.findings import is_finding
from tuiperf.results.model import RunResult, Tried


def _times(ratio: float) -> str:
    """``1,784`` or ``1.01``: whole numbers from 100 on (three significant figures would read 1.78e+03)."""
    return f"{ratio:,.0f}" if ratio >= 100 else sig3(ratio)


def tried_for(result: RunResult, name: str) -> list[Tried]:
    return [t for t in result.tried if t.of == name]


def helps(t: Tried) -> bool:
    """Faster than the original beyond noise (same rounds, one process), with the same outputs."""
    return t.same_outputs is True and t.ratio is not None and t.ratio.ratio < 1 and is_finding(t.ratio.ci95)


def outputs_words(t: Tried) -> str:
    if t.same_outputs is True:
        return "same outputs"
    if t.same_outputs is False:
        return f"different outputs ({t.differs})" if t.differs else "different outputs"
    return f"outputs not compared ({t.differs})" if t.differs else "outputs not compared"


def words(result: RunResult, name: str, baseline: str | None, named: bool = False) -> str | None:
    """``tried by tuiperf, as one call ran …: put jax.jit around the call, 403× → 1.00× against jit-grad,
    same outputs``; ``named``: said in another variant's sentence (the baseline's own remedy), so it
    names ``name`` ("tried by tuiperf on stable, as its profile …"). None when nothing was tried for
    ``name``."""
    found = tried_for(result, name)
    if not found:
        return None
    t = found[0]
    on = f" on {name}" if named else ""
    if t.error is not None or t.result is None or t.ratio is None:
        error = t.error or "not measured"
        return f"tried by tuiperf{on}, as {t.evidence}: {t.remedy}, which could not be applied ({error})"
    original, base = result.variant(name), result.variant(baseline or "")
    stats = [v.sampling.stats for v in (original, base, t.result) if v is not None]
    medians = [s.median_ns for s in stats if s is not None and s.median_ns > 0]
    # against the other only where the original is the slower (a faster baseline's own remedy read
    # "0.000526× → 9.18e-05× against recompiling"): else against the original's own time
    if len(stats) == 3 and len(medians) == 3 and medians[0] >= medians[1]:
        effect = f"{_times(medians[0] / medians[1])}× → {_times(medians[2] / medians[1])}× against {baseline}"
    else:
        effect = f"{sig3(t.ratio.ratio)}× the original's time"
    why = f"tried by tuiperf{on}, as {t.evidence}: {t.remedy}"
    if t.same_outputs is False:
        return f"{why}, {effect}, but {outputs_words(t)}: not a remedy"
    if helps(t):
        return f"{why}, {effect}, {outputs_words(t)}"
    lo, hi = t.ratio.ci95
    return (
        f"{why}, {effect}: no faster than the original (ratio {sig3(t.ratio.ratio)}, CI {sig3(lo)}–{sig3(hi)}), "
        f"{outputs_words(t)}"
    )


def rows(result: RunResult) -> list[tuple[str, str, str, str, str, str]]:
    """(variant, remedy, its median, the remedied median, remedied / original [CI], outputs) for a table."""
    found = []
    for t in result.tried:
        original = result.variant(t.of)
        before = original.sampling.stats if original is not None else None
        after = t.result.sampling.stats if t.result is not None else None
        found.append(
            (
                t.of,
                t.remedy,
                format_ns(before.median_ns) if before else "–",
                format_ns(after.median_ns) if after else "–",
                ratio_with_interval(t.ratio.ratio, *t.ratio.ci95) if t.ratio else (t.error or "–"),
                outputs_words(t) if t.error is None else "not tried",
            )
        )
    return found
