"""The equivalence guard: do variants that claim to compute the same thing really do?

A comparison is only fair if both sides do the same work. Flax's ``kernel_size=3`` (an int) on a
3-D input silently builds a 1-D convolution: same output shape, an eighth of the FLOPs. The guard
compares every equivalent variant with the first one on output structure, shapes, dtypes, values,
XLA FLOPs and parameter count, and names both variants and the quantity that differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

FLOPS_REL_TOL = 0.05  # FLOP counts of equivalent programs differ a little with fusion choices
MAX_COMPARED_ELEMENTS = 50_000_000  # beyond this, values are not copied to the host to compare


@dataclass
class Subject:
    name: str
    output: Any
    flops: float | None
    param_count: int | None


def _leaves(output: Any) -> tuple[str, list[Any]]:
    import jax

    leaves, treedef = jax.tree.flatten(output)
    return str(treedef), leaves


def compare(reference: Subject, other: Subject, rtol: float) -> list[dict[str, str]]:
    """Mismatches between two variants, each ``{"a", "b", "quantity", "detail"}``."""
    found: list[dict[str, str]] = []

    def mismatch(quantity: str, detail: str) -> None:
        found.append({"a": other.name, "b": reference.name, "quantity": quantity, "detail": detail})

    _ref_tree, ref_leaves = _leaves(reference.output)
    _tree, leaves = _leaves(other.output)
    if len(leaves) != len(ref_leaves):
        mismatch("output structure", f"{len(leaves)} output arrays vs {len(ref_leaves)}")
        return found
    shapes = [tuple(np.shape(x)) for x in leaves]
    ref_shapes = [tuple(np.shape(x)) for x in ref_leaves]
    if shapes != ref_shapes:
        mismatch("output shapes", f"{shapes} vs {ref_shapes}")
    dtypes = [str(getattr(x, "dtype", type(x).__name__)) for x in leaves]
    ref_dtypes = [str(getattr(x, "dtype", type(x).__name__)) for x in ref_leaves]
    if dtypes != ref_dtypes:
        mismatch("output dtypes", f"{dtypes} vs {ref_dtypes}")
    if shapes == ref_shapes and sum(int(np.prod(s)) for s in shapes) <= MAX_COMPARED_ELEMENTS:
        worst = max((_relative_difference(a, b) for a, b in zip(leaves, ref_leaves)), default=0.0)
        if worst > rtol:
            mismatch("output values", f"max relative difference {worst:.3g} (tolerance {rtol:g})")
    if reference.flops and other.flops is not None:
        ratio = other.flops / reference.flops
        if abs(ratio - 1) > FLOPS_REL_TOL:
            mismatch("XLA FLOPs", f"{_si(other.flops)} vs {_si(reference.flops)} ({ratio:.3g}×)")
    if (
        reference.param_count is not None
        and other.param_count is not None
        and reference.param_count != other.param_count
    ):
        mismatch("parameter count", f"{other.param_count:,} vs {reference.param_count:,}")
    return found


def check_equivalence(subjects: list[Subject], rtol: float) -> list[dict[str, str]]:
    if len(subjects) < 2:
        return []
    reference, *others = subjects
    return [m for other in others for m in compare(reference, other, rtol)]


def describe(mismatches: list[dict[str, str]]) -> list[str]:
    """One sentence per pair of variants, naming every quantity that differs."""
    by_pair: dict[tuple[str, str], list[str]] = {}
    for m in mismatches:
        by_pair.setdefault((m["a"], m["b"]), []).append(f"{m['quantity']} {m['detail']}")
    return [
        f"{a} does not compute the same thing as {b}: "
        + "; ".join(details)
        + ". The comparison is not fair: check the layer configuration."
        for (a, b), details in by_pair.items()
    ]


def _relative_difference(a: Any, b: Any) -> float:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.size == 0:
        return 0.0
    scale = max(float(np.max(np.abs(b))), 1e-30)
    diff = float(np.max(np.abs(a - b)))
    return diff / scale if np.isfinite(diff) else float("inf")


def _si(value: float) -> str:
    for factor, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g} {suffix}FLOP"
    return f"{value:.3g} FLOP"
