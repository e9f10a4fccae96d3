"""Reading a result's pairwise comparisons against any baseline. No numpy: the TUI uses it."""

from __future__ import annotations

from tuiperf.results.model import Comparison, RunResult


def against(result: RunResult, baseline: str | None = None) -> tuple[str | None, dict[str, Comparison]]:
    """The baseline (default: the run's own, ``--baseline`` or the scenario's ``reference=True``
    variant, else the first measured one) and each other variant's row against it."""
    measured = [v.name for v in result.measured]
    if baseline not in measured:
        baseline = result.options.baseline
    base = baseline if baseline in measured else (measured[0] if measured else None)
    rows: dict[str, Comparison] = {}
    for row in result.comparisons:
        if row.b == base:
            rows[row.a] = row
        elif row.a == base:
            lo, hi = row.ci95
            rows[row.b] = Comparison(
                a=row.b, b=base, ratio=1 / row.ratio, ci95=(1 / hi, 1 / lo), p_value=row.p_value, interval=row.interval
            )
    return base, rows
