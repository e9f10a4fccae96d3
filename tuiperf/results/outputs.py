"""A variant's output, carried out of its measuring process so that the same variant measured in two
Python environments can be compared: does the other version compute the same result?

The measuring process flattens the output (projected by the variant's ``compare=``) to leaves keyed by
path and copies them to the host (numpy arrays; only shapes and dtypes past a size limit); the parent
compares two digests with the guard's rule (:func:`relative_difference`). Numpy only: no JAX here, and
numpy only where two digests are compared (the process contract names these types, and the explorer's
start imports that contract: numpy would add a tenth of a second to its first frame).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

MAX_CARRIED_ELEMENTS = 4_000_000  # beyond this an output's values stay in its process: shapes only
HALF_PRECISION_TOLERANCE = 1e-2  # the least relative tolerance for bfloat16/float16 values


class Leaf(msgspec.Struct, frozen=True):
    dtype: str
    shape: tuple[int, ...]
    values: Any = None  # a numpy array, or None when the output was too large to carry


class OutputDigest(msgspec.Struct, frozen=True):
    """One variant's output as leaves by key path, and the relative tolerance it is compared with."""

    leaves: dict[str, Leaf]
    tolerance: float


def relative_difference(a: Any, b: Any) -> float:
    """Largest |a - b| relative to the largest |b|; NaN or infinity at the same places counts as equal,
    in one only as infinitely different. Non-numeric leaves are equal or not."""
    import numpy as np

    try:
        a = np.asarray(a)
        b = np.asarray(b)
        if a.dtype.kind == "c" or b.dtype.kind == "c":  # complex: compare both parts
            a = np.stack([a.real, a.imag]).astype(np.float64)
            b = np.stack([b.real, b.imag]).astype(np.float64)
        else:
            a, b = a.astype(np.float64), b.astype(np.float64)
    except (TypeError, ValueError):
        return 0.0 if _same(a, b) else float("inf")
    if a.size == 0:
        return 0.0
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if (nan_a != nan_b).any():
        return float("inf")
    inf_a, inf_b = np.isinf(a), np.isinf(b)
    if (inf_a != inf_b).any() or (a[inf_a] != b[inf_b]).any():
        return float("inf")
    finite = ~(nan_a | inf_a)
    if not finite.any():
        return 0.0
    scale = max(float(np.max(np.abs(b[finite]))), 1e-30)
    return float(np.max(np.abs(a[finite] - b[finite]))) / scale


def _same(a: Any, b: Any) -> bool:
    import numpy as np

    try:
        return bool(np.all(a == b))
    except BaseException:  # noqa: BLE001 - objects that cannot even be compared are different
        return False


def worst_difference(
    leaves: Iterable[tuple[str, Any, Any, float]], measure: Callable[[Any, Any], float] | None = None
) -> str:
    """The leaf (name, ours, the reference's, tolerance) furthest beyond its tolerance, in words; "" if none is.
    ``measure``: how a leaf's difference is taken (default :func:`relative_difference`, on the host)."""
    worst, detail = 0.0, ""
    for name, a, b, tolerance in leaves:
        difference = (measure or relative_difference)(a, b)
        if difference > tolerance and difference / max(tolerance, 1e-300) > worst:
            worst = difference / max(tolerance, 1e-300)
            shown = (
                "NaN or infinity in one only"
                if difference == float("inf")
                else f"max relative difference {difference:.3g}"
            )
            detail = f"{name}: {shown} (tolerance {tolerance:g})"
    return detail


def _field(digest: OutputDigest, key: str, field: str) -> Any:
    return getattr(digest.leaves[key], field)


def differences(ours: OutputDigest, theirs: OutputDigest) -> list[tuple[str, str]]:
    """(quantity, detail) for each way ``ours`` differs from ``theirs`` (the reference environment's)."""
    missing, extra = sorted(set(theirs.leaves) - set(ours.leaves)), sorted(set(ours.leaves) - set(theirs.leaves))
    if missing or extra:
        parts = [
            f"missing {', '.join(missing[:3])}" if missing else "",
            f"extra {', '.join(extra[:3])}" if extra else "",
        ]
        return [("output keys", "; ".join(p for p in parts if p))]
    found = []
    for quantity, field in (("output shapes", "shape"), ("output dtypes", "dtype")):
        differing = [
            k for k in sorted(ours.leaves) if getattr(ours.leaves[k], field) != getattr(theirs.leaves[k], field)
        ]
        if differing:
            key = differing[0]
            more = f" (and {len(differing) - 1} more)" if len(differing) > 1 else ""
            found.append(
                (quantity, f"{key}: {getattr(ours.leaves[key], field)} vs {getattr(theirs.leaves[key], field)}{more}")
            )
    if found:
        return found
    compared = []
    uncarried = 0
    for key in sorted(ours.leaves):
        a, b = ours.leaves[key], theirs.leaves[key]
        if a.values is None or b.values is None:
            uncarried += 1
            continue
        tolerance = max(ours.tolerance, theirs.tolerance)
        if a.dtype in ("bfloat16", "float16"):
            tolerance = max(tolerance, HALF_PRECISION_TOLERANCE)
        compared.append((key, a.values, b.values, tolerance))
    detail = worst_difference(compared)
    if detail:
        found.append(("output values", detail))
    elif uncarried:
        found.append(("output values", f"not compared: more than {MAX_CARRIED_ELEMENTS:,} elements"))
    return found
