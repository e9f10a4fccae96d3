"""Result files: read (validated, older versions upgraded) and written (atomically, never clobbering).

Reading trusts nothing: a file someone else wrote may be truncated, not UTF-8, nested a million deep,
of another schema version or of another shape. Every such problem is one :class:`TuiperfError` line.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec

from tuiperf.common.errors import TuiperfError
from tuiperf.common.files import write_atomic
from tuiperf.common.limits import MAX_GRID_AXES, MAX_GRID_CELLS, MAX_POINTS
from tuiperf.common.text import inert_json
from tuiperf.results.model import SCHEMA_VERSION, RunResult
from tuiperf.results.settings import fill_absent

# What a real result reaches, x10 (beyond it a file is refused, saying which limit): the largest run
# tuiperf writes (10 variants x 1,000,000 samples, the --samples cap) is ~100-200 MB; scenarios have a
# handful of variants (the built-ins at most 8); names are short and the longest text is a crash's
# output tail (20 lines of at most 500 characters). A sweep's points are what tuiperf measures, no more
# (MAX_POINTS, MAX_GRID_CELLS: common/limits.py, the limits of the command line and the measuring side).
MAX_BYTES = 1 << 30
MAX_VARIANTS = 200
MAX_SAMPLES = 10_000_000
MAX_ITEMS = 50_000  # any other list: warnings, notes, profile rows, comparisons (pairs of variants)
MAX_NAME_CHARS = 1_000  # a variant, scenario, parameter or device name
MAX_TEXT_CHARS = 100_000  # any other text
_NAMES = {("VariantResult", "name"), ("ScenarioRef", "id"), ("DeviceInfo", "id"), ("Sweep", "parameter")}


def encode(result: RunResult) -> bytes:
    """The document as JSON, with every invisible character escaped (``\\u009b``): the same data,
    and a file that prints inert in a terminal. A lone surrogate (UTF-8 cannot hold one) becomes
    U+FFFD rather than losing the result."""
    try:
        data = msgspec.json.encode(result)
    except UnicodeEncodeError:
        data = msgspec.json.encode(_without_surrogates(msgspec.to_builtins(result)))
    return inert_json(data) + b"\n"


def _without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return re.sub("[\ud800-\udfff]", "\ufffd", value)
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_surrogates(v) for v in value]
    return value


def decode(data: bytes | str, where: str = "result") -> RunResult:
    """Parse and validate a result document of any supported schema version."""
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise TuiperfError(f"not a JSON result document ({exc})", where=where) from None
    except UnicodeDecodeError as exc:
        raise TuiperfError(f"not a JSON result document (not UTF-8 at byte {exc.start})", where=where) from None
    except RecursionError:
        raise TuiperfError("not a result document (nested too deeply)", where=where) from None
    if not isinstance(raw, dict):
        raise TuiperfError(f"not a result document (a JSON {type(raw).__name__}, not an object)", where=where)
    version = raw.get("schema_version")
    if version == 1:
        try:
            raw = upgrade_v1(raw)
        except (AttributeError, TypeError, ValueError, KeyError):  # a field of another type than v1 wrote
            raise TuiperfError(
                "not a valid version-1 result document (a field of the wrong type)", where=where
            ) from None
    elif version not in (2, SCHEMA_VERSION):
        raise TuiperfError(
            f"unsupported schema_version {version!r} (this tuiperf reads 1 to {SCHEMA_VERSION})", where=where
        )
    if version in (1, 2):
        raw = upgrade_v2(raw)
    try:
        result = msgspec.convert(options_as_meant(raw), RunResult)
        check_limits(result, where)
        check_sweep(result, where)
        return result
    except msgspec.ValidationError as exc:
        raise TuiperfError(f"not a valid result document: {exc}", where=where) from None
    except RecursionError:
        raise TuiperfError("not a result document (nested too deeply)", where=where) from None


def options_as_meant(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` (and each sweep point) with every run option it lacks set to what its writer meant by
    leaving it out (the option table's ``Option.absent``: an older tuiperf had no such option). A
    field of the wrong shape is left for validation to name."""
    options = doc.get("options", {})
    meant = {**doc, "options": fill_absent(options) if isinstance(options, dict) else options}
    if isinstance(doc.get("points"), list):
        meant["points"] = [options_as_meant(p) if isinstance(p, dict) else p for p in doc["points"]]
    return meant


def check_limits(result: RunResult, where: str = "result") -> None:
    """Refuse a document beyond what a real result reaches x10 (see the limits above), naming the
    first field past its limit: 200,000 variants or a 100 MB name otherwise keep a reader busy for minutes."""

    def too(what: str, path: str, limit: int) -> TuiperfError:
        return TuiperfError(f"not a result tuiperf reads: {path} has more than {limit:,} {what}", where=where)

    def walk(value: Any, path: str) -> None:
        for name in value.__struct_fields__:
            item, here = getattr(value, name), f"{path}.{name}"
            limit = MAX_NAME_CHARS if (type(value).__name__, name) in _NAMES else MAX_TEXT_CHARS
            if isinstance(item, str):
                if len(item) > limit:
                    raise too("characters", here, limit)
            elif isinstance(item, msgspec.Struct):
                walk(item, here)
            elif isinstance(item, dict):
                if len(item) > MAX_ITEMS:
                    raise too("entries", here, MAX_ITEMS)
                for key, entry in item.items():
                    if len(key) > MAX_NAME_CHARS or (isinstance(entry, str) and len(entry) > MAX_TEXT_CHARS):
                        raise too("characters", f"{here}[{key[:20]!r}]", MAX_TEXT_CHARS)
                    if isinstance(entry, msgspec.Struct):
                        walk(entry, f"{here}[{key[:20]!r}]")
                    elif isinstance(entry, list) and len(entry) > MAX_SAMPLES:
                        raise too("values", f"{here}[{key[:20]!r}]", MAX_SAMPLES)
            elif isinstance(item, list | tuple):
                numbers = not item or not isinstance(item[0], str | msgspec.Struct)
                limit = {"variants": MAX_VARIANTS, "points": MAX_POINTS}.get(
                    name, MAX_SAMPLES if numbers else MAX_ITEMS
                )
                if len(item) > limit:
                    raise too("entries", here, limit)
                for index, entry in enumerate(item):
                    if isinstance(entry, str) and len(entry) > MAX_TEXT_CHARS:
                        raise too("characters", f"{here}[{index}]", MAX_TEXT_CHARS)
                    if isinstance(entry, msgspec.Struct):
                        walk(entry, f"{here}[{index}]")

    walk(result, "$")


def check_sweep(result: RunResult, where: str = "result") -> None:
    """Refuse a sweep whose parts do not line up as tuiperf writes them, naming the first that does not:
    every view then reads only what the file holds (a grid declaring 3,000 × 3,000 cells with 4 points
    would otherwise be drawn as 9,000,000 cells)."""

    def bad(what: str) -> TuiperfError:
        return TuiperfError(f"not a result tuiperf reads: {what}", where=where)

    for index, point in enumerate(result.points):
        if point.sweep is not None or point.points:
            raise bad(f"$.points[{index}] is a sweep itself (a point is one run)")
    sweep = result.sweep
    if sweep is None:
        return
    points = len(result.points)
    if sweep.grid:
        if len(sweep.grid) != MAX_GRID_AXES:
            raise bad(f"$.sweep.grid has {len(sweep.grid)} axes; a grid has {MAX_GRID_AXES}")
        for index, axis in enumerate(sweep.grid):
            if not axis.values:
                raise bad(f"$.sweep.grid[{index}].values is empty")
        sizes = " × ".join(f"{len(axis.values):,}" for axis in sweep.grid)
        if sweep.cell_count > MAX_GRID_CELLS:
            most = f"a grid has at most {MAX_GRID_CELLS:,}"
            raise bad(f"$.sweep.grid declares {sweep.cell_count:,} cells ({sizes}); {most}")
        if points > sweep.cell_count:
            raise bad(f"$.points has {points:,} entries, more than the grid's {sweep.cell_count:,} cells ({sizes})")
    if len(sweep.values) != points:
        raise bad(f"$.sweep.values has {len(sweep.values):,} entries for {points:,} points (one value per point)")
    for field in ("medians_ns", "memory_bytes"):
        for name, series in getattr(sweep, field).items():
            if len(series) != points:
                raise bad(f"$.sweep.{field}[{name[:20]!r}] has {len(series):,} entries for {points:,} points")
    for index, crossover in enumerate(sweep.crossovers):
        if crossover.where in ("inside", "beyond") and crossover.at is None:
            raise bad(f"$.sweep.crossovers[{index}].at is null where {crossover.where!r} needs a size")
        if crossover.where == "inside" and crossover.at_ci95 is None:
            raise bad(f"$.sweep.crossovers[{index}].at_ci95 is null where 'inside' needs an interval")


def load(path: str | Path) -> RunResult:
    path = Path(path)
    try:
        if path.stat().st_size > MAX_BYTES:
            raise TuiperfError(
                f"result file larger than {MAX_BYTES >> 20:,} MB (a real result is a few hundred at most)",
                where=str(path),
            )
        data = path.read_bytes()
    except OSError as exc:
        raise TuiperfError(f"cannot read result file: {exc.strerror or exc}", where=str(path)) from None
    return decode(data, where=str(path))


def save(result: RunResult, path: str | Path, *, force: bool = False) -> Path:
    """Write ``result`` to ``path`` through a temporary file and ``os.replace``; refuse to replace an
    existing file unless ``force``."""
    return write_atomic(path, encode(result), force=force)


# -- schema version 1 (tuiperf 0.1) -----------------------------------------------------------------


def upgrade_v1(doc: dict[str, Any]) -> dict[str, Any]:
    """A version-1 document in the version-2 layout (the values are kept, the shape changes)."""
    env = doc.get("env") or None
    packages = ("jax", "jaxlib", "equinox", "flax", "numpy", "tuiperf")
    upgraded = {
        **doc,
        "schema_version": 2,
        "env": {**{k: v for k, v in env.items() if k not in packages}, "packages": {k: env.get(k) for k in packages}}
        if isinstance(env, dict) and env
        else None,
        "calibration": doc.get("calibration") or None,
        "options": {k: v for k, v in (doc.get("options") or {}).items()},
        "variants": [_upgrade_v1_variant(v) for v in doc.get("variants") or []],
        "points": [upgrade_v1({**run, "schema_version": 1}) for run in doc.get("runs") or []],
    }
    upgraded.pop("runs", None)
    if upgraded["points"]:
        upgraded["variants"] = []  # v1 repeated the last point's variants at the top level
    return upgraded


def _upgrade_v1_variant(v: dict[str, Any]) -> dict[str, Any]:
    status = "ok" if v.get("ok") else ("skipped" if v.get("skipped") else "failed")
    stages = v.get("stages_ms") or {}
    breakdown = v.get("breakdown_ns")
    if isinstance(breakdown, dict):
        stage_keys = ("framework", "jit_dispatch", "launch", "compute")
        call = sum(breakdown.get(k) or 0.0 for k in stage_keys)
        breakdown = {
            "stages": {k: {"ns": breakdown.get(k) or 0.0} for k in stage_keys},
            "call_ns": call,
            "total_ns": breakdown.get("total") or call,
            "residual_ns": breakdown.get("residual") or 0.0,
            "paths_ns": breakdown.get("paths_ns") or {},
            "rounds": breakdown.get("rounds") or 0,
        }
    kept = {k: val for k, val in v.items() if k not in ("ok", "skipped", "stages_ms", "breakdown_ns")}
    return {
        **kept,
        "status": status,
        "stages_ms": {k: stages.get(k) for k in ("trace", "lower", "compile", "first_call")},
        "breakdown_ns": breakdown,
    }


# -- schema version 2 (a variant's result as one flat record) -----------------------------------------

# Each part of a version-3 variant: its name, and (version-2 field, the part's field) it gathers.
_V2_PARTS: dict[str, tuple[tuple[str, str], ...]] = {
    "sampling": tuple(
        (name, name)
        for name in (
            "samples_ns",
            "loops_per_sample",
            "first_sample_s",
            "last_sample_s",
            "first_round",
            "last_round",
            "round_starts",
            "process_starts",
            "process_medians_ns",
            "stats",
            "modes",
            "median_interval",
            "slowest_share",
            "slowest_calls",
        )
    ),
    "program": (
        ("flops", "flops"),
        ("transcendentals", "transcendentals"),
        ("memory", "memory"),
        ("param_count", "param_count"),
    ),
    "recompiles": (
        ("retraces", "retraces"),
        ("recompiles", "recompiles"),
        ("recompile_causes", "causes"),
        ("eager", "eager"),
    ),
    "profile": (("profile", "rows"), ("profile_note", "note")),
}
_V2_RENAMED = {"stages_ms": "stages", "breakdown_ns": "breakdown"}


def upgrade_v2(doc: dict[str, Any]) -> dict[str, Any]:
    """A version-2 document (or a version-1 one upgraded to it) in the version-3 layout: each variant's
    fields gathered into its parts, the values kept. A field of the wrong shape is left for validation
    to name."""
    upgraded = {**doc, "schema_version": SCHEMA_VERSION}
    if isinstance(doc.get("variants"), list):
        upgraded["variants"] = [_upgrade_v2_variant(v) if isinstance(v, dict) else v for v in doc["variants"]]
    if isinstance(doc.get("points"), list):
        upgraded["points"] = [upgrade_v2(p) if isinstance(p, dict) else p for p in doc["points"]]
    return upgraded


def _upgrade_v2_variant(v: dict[str, Any]) -> dict[str, Any]:
    gathered = {old for fields in _V2_PARTS.values() for old, _ in fields} | {"error", "failed_phase", *_V2_RENAMED}
    upgraded = {key: value for key, value in v.items() if key not in gathered}
    for part, fields in _V2_PARTS.items():
        upgraded[part] = {new: v[old] for old, new in fields if old in v}
    for old, new in _V2_RENAMED.items():
        if old in v:
            upgraded[new] = v[old]
    if v.get("error") is not None:
        upgraded["failure"] = {"error": v["error"], "phase": v.get("failed_phase")}
    return upgraded
