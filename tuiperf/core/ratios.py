"""Reading a result's pairwise comparisons against any baseline. Plain dicts, no numpy: the TUI uses it."""

from __future__ import annotations

from typing import Any


def against(doc: dict[str, Any], baseline: str | None = None) -> tuple[str | None, dict[str, dict[str, Any]]]:
    """The baseline (default: the first measured variant) and each other variant's row against it."""
    measured = [v["name"] for v in doc.get("variants", []) if v.get("ok") and v.get("samples_ns")]
    base = baseline if baseline in measured else (measured[0] if measured else None)
    rows = {}
    for row in doc.get("comparisons", []):
        if row["b"] == base:
            rows[row["a"]] = row
        elif row["a"] == base:
            lo, hi = row["ci95"]
            rows[row["b"]] = {**row, "a": row["b"], "b": base, "ratio": 1 / row["ratio"], "ci95": [1 / hi, 1 / lo]}
    return base, rows
