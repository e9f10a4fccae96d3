"""What XLA and the parameters say a program costs: FLOPs and parameter counts."""

from __future__ import annotations

import math
from typing import Any


def flops_of(compiled: Any) -> float | None:
    """XLA's FLOP count from ``cost_analysis()`` of a jax or equinox compiled object."""
    compiled = getattr(compiled, "compiled", compiled)  # equinox wraps jax's Compiled
    try:
        analysis = compiled.cost_analysis()
    except Exception:  # noqa: BLE001 - some backends do not implement it
        return None
    if isinstance(analysis, list | tuple):
        analysis = analysis[0] if analysis else None
    flops = analysis.get("flops") if isinstance(analysis, dict) else None
    return float(flops) if flops is not None and math.isfinite(flops) and flops >= 0 else None


def count_params(tree: Any) -> int | None:
    """Elements in every array leaf of ``tree`` (None for no tree)."""
    import jax

    if tree is None:
        return None
    return int(sum(getattr(leaf, "size", 0) for leaf in jax.tree.leaves(tree) if hasattr(leaf, "shape")))
