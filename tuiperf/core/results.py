"""The JSON result document: one format for the CLI, the TUI, saved files and other tools.

Stable top-level keys: ``schema_version, tool, scenario, params, device, options, env, calibration,
partial, variants, comparisons, equivalence, warnings`` and, for sweeps, ``sweep`` and ``runs``.
Each variant: ``name, ok, skipped, error, notes, samples_ns, loops_per_sample, stats, modes,
stages_ms, breakdown_ns, flops, param_count, retraces, recompiles, profile, warnings``.
Times are nanoseconds per call (``*_ns``) or milliseconds for one-time stages (``stages_ms``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tuiperf.core.errors import TuiperfError
from tuiperf.core.stats import detect_modes, loglog_slope, mann_whitney_p, ratio_ci, stability_warnings, summarize

SCHEMA_VERSION = 1


def variant_entry(
    name: str,
    *,
    ok: bool = True,
    skipped: bool = False,
    error: str | None = None,
    notes: list[str] | None = None,
    samples_ns: list[float] | None = None,
    loops_per_sample: int = 1,
    stages_ms: dict | None = None,
    breakdown_ns: dict | None = None,
    flops: float | None = None,
    param_count: int | None = None,
    retraces: int = 0,
    recompiles: int = 0,
    profile: list[dict] | None = None,
    warnings: list[str] | None = None,
) -> dict[str, Any]:
    """A variant's result; statistics, clusters and stability warnings are derived from the samples."""
    samples = [float(s) for s in samples_ns or []]
    warnings = list(warnings or [])
    stats = summarize(samples) if samples else None
    modes = detect_modes(samples) if samples else []
    if stats is not None:
        warnings.extend(stability_warnings(stats, modes))
    if retraces or recompiles:
        warnings.append(
            f"{recompiles} compilation(s) and {retraces} trace(s) happened during steady-state "
            "sampling: the samples include compile time (a retrace: changing static "
            "arguments, shapes or dtypes)"
        )
    if loops_per_sample > 1:
        notes = [
            *(notes or []),
            f"calls shorter than the timer can resolve: each sample times "
            f"{loops_per_sample} calls and reports the mean",
        ]
    return {
        "name": name,
        "ok": ok,
        "skipped": skipped,
        "error": error,
        "notes": list(notes or []),
        "samples_ns": samples,
        "loops_per_sample": loops_per_sample,
        "stats": stats,
        "modes": modes,
        "stages_ms": stages_ms or {"trace": None, "lower": None, "compile": None, "first_call": None},
        "breakdown_ns": breakdown_ns,
        "flops": flops,
        "param_count": param_count,
        "retraces": retraces,
        "recompiles": recompiles,
        "profile": profile or [],
        "warnings": warnings,
    }


def comparisons(variants: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every pair of measured variants, each later one against each earlier one (``a`` / ``b``).

    Any variant can then be the baseline: the reverse ratio is 1/ratio with the CI bounds inverted
    (a percentile bootstrap CI follows a monotone transform). The first measured variant is the
    default baseline.
    """
    measured = [v for v in variants if v["ok"] and v["samples_ns"]]
    rows = []
    for i, later in enumerate(measured):
        for earlier in measured[:i]:
            ratio, lo, hi = ratio_ci(later["samples_ns"], earlier["samples_ns"])
            rows.append(
                {
                    "a": later["name"],
                    "b": earlier["name"],
                    "ratio": ratio,
                    "ci95": [lo, hi],
                    "p_value": mann_whitney_p(later["samples_ns"], earlier["samples_ns"]),
                }
            )
    return rows


def compare_runs(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """Each variant measured in both documents: new/old ratio of medians with its 95 % CI and p-value."""
    before = {v["name"]: v for v in old["variants"] if v["ok"] and v["samples_ns"]}
    rows = []
    for variant in new["variants"]:
        base = before.get(variant["name"])
        if base is None or not variant["ok"] or not variant["samples_ns"]:
            continue
        ratio, lo, hi = ratio_ci(variant["samples_ns"], base["samples_ns"])
        rows.append(
            {
                "variant": variant["name"],
                "old_ns": base["stats"]["median_ns"],
                "new_ns": variant["stats"]["median_ns"],
                "ratio": ratio,
                "ci95": [lo, hi],
                "p_value": mann_whitney_p(variant["samples_ns"], base["samples_ns"]),
            }
        )
    return rows


def sweep_summary(parameter: str, values: list[Any], runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-value medians per variant and each variant's log-log slope (1 = linear growth)."""
    names = list(dict.fromkeys(v["name"] for run in runs for v in run["variants"]))
    medians: dict[str, list[float | None]] = {}
    for name in names:
        medians[name] = []
        for run in runs:
            entry = next((v for v in run["variants"] if v["name"] == name), None)
            medians[name].append(entry["stats"]["median_ns"] if entry and entry["stats"] else None)
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    slopes = {}
    for name, series in medians.items():
        points = [(x, y) for x, y in zip(values, series) if y is not None] if numeric else []
        slopes[name] = loglog_slope([p[0] for p in points], [p[1] for p in points]) if points else None
    return {"parameter": parameter, "values": values[: len(runs)], "medians_ns": medians, "slopes": slopes}


def save(doc: dict[str, Any], path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, default=str) + "\n", encoding="utf-8")
    return path


def load(path: str | Path) -> dict[str, Any]:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TuiperfError(f"cannot read result file: {exc}", where=str(path)) from None
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise TuiperfError(
            f"unsupported schema_version {doc.get('schema_version')!r} (this tuiperf reads {SCHEMA_VERSION})",
            where=str(path),
        )
    return doc
