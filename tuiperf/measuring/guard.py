"""The equivalence guard: do variants that claim to compute the same thing really do?

A comparison is only fair if both sides do the same work. Flax's ``kernel_size=3`` (an int) on a
3-D input silently builds a 1-D convolution: same output shape, an eighth of the FLOPs. The guard
compares every equivalent variant with the reference variant on output structure, shapes, dtypes,
values, XLA FLOPs and parameter count, and names both variants and the quantity that differs.

Values decide. Different FLOPs with values that agree are a note ("same result, different programs":
one pads a sliced gradient, another fuses differently), not a verdict; the FLOPs rule exists for the
trap where the values *and* the work differ. A variant declared ``equivalent="values"`` is compared
on its outputs only: FLOPs and parameter count are not checked for it.

Outputs of different libraries rarely share a container type (a tuple of parameters here, a dict or
an NNX ``State`` there). A variant's ``Bench(compare=...)`` projects its output to a canonical form
first; when either side was projected, leaves are matched by key path (``['params']['w']``), so
container types and leaf order no longer matter. NaN equals NaN at the same position.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from tuiperf.results.model import loop_words
from tuiperf.results.outputs import (
    HALF_PRECISION_TOLERANCE,
    MAX_CARRIED_ELEMENTS,
    Leaf,
    OutputDigest,
    relative_difference,
    worst_difference,
)

FLOPS_REL_TOL = 0.05  # FLOP counts of equivalent programs differ a little with fusion choices
MAX_COMPARED_ELEMENTS = 50_000_000  # beyond this, values are compared where they are, not copied to the host
SHOWN_KEYS = 3


@dataclass(frozen=True)
class Costs:
    """The work XLA and the parameters say a variant does, compared between equivalent variants."""

    flops: float | None = None
    transcendentals: float | None = None  # XLA counts sin, exp, tanh, ... apart from the FLOPs
    param_count: int | None = None
    checked: bool = True  # False: declared equivalent in values only (FLOPs, parameters unchecked)
    loops: tuple[int | None, ...] = ()  # trip counts of the program's while loops (results.model.Program)


@dataclass
class Subject:
    name: str
    output: Any
    costs: Costs = Costs()
    compare: Callable[[Any], Any] | None = None  # projection applied before comparing
    tolerance: float | None = None  # this variant's relative tolerance


@dataclass
class Findings:
    mismatches: list[dict[str, str]]  # {"a", "b", "quantity", "detail"}: not the same computation
    notes: list[str]  # the same result by different programs (FLOPs differ, values agree)


def _leaves_in_order(output: Any) -> list[ArrayLike]:
    import jax

    return jax.tree.leaves(output)


def _leaves_by_key(output: Any) -> dict[str, ArrayLike]:
    """Leaves by key path ``params/w`` (so ``{"params/w": ...}`` and ``{"params": {"w": ...}}`` name the
    same leaf)."""
    import jax

    flat, _ = jax.tree_util.tree_flatten_with_path(output)
    return {"/".join(_key_name(k) for k in path): leaf for path, leaf in flat}


def _key_name(key: Any) -> str:
    for attribute in ("key", "name", "idx"):
        if hasattr(key, attribute):
            return str(getattr(key, attribute))
    return str(key)


def _project(subject: Subject) -> Any:
    return subject.compare(subject.output) if subject.compare is not None else subject.output


def compare(reference: Subject, other: Subject, rtol: float) -> list[dict[str, str]]:
    """Mismatches between two variants, each ``{"a", "b", "quantity", "detail"}``."""
    return compare_pair(reference, other, rtol).mismatches


def compare_pair(reference: Subject, other: Subject, rtol: float) -> Findings:
    """Mismatches between two variants, and notes on the same values computed by different programs."""
    found: list[dict[str, str]] = []

    def mismatch(quantity: str, detail: str) -> None:
        found.append({"a": other.name, "b": reference.name, "quantity": quantity, "detail": detail})

    projected = []
    for subject in (reference, other):
        try:
            projected.append(_project(subject))
        except BaseException as exc:  # noqa: BLE001 - the author's projection failing is a finding, not a crash
            found.append(
                {
                    "a": subject.name,
                    "b": (other if subject is reference else reference).name,
                    "quantity": "comparison",
                    "detail": f"its compare= raised {type(exc).__name__}: {exc}",
                }
            )
    if len(projected) == 2:
        _compare_outputs(projected[0], projected[1], reference, other, rtol, mismatch)
    values_agree = not found
    costs: list[dict[str, str]] = []
    if reference.costs.checked and other.costs.checked:
        _compare_costs(
            reference,
            other,
            lambda quantity, detail: costs.append(
                {"a": other.name, "b": reference.name, "quantity": quantity, "detail": detail}
            ),
        )
    notes = []
    if values_agree:  # the same result: a program that does other work is a note, not a verdict
        notes = [
            f"{other.name} and {reference.name}: same result, different programs ({_cost_words(c)})" for c in costs
        ]
        loops = _loops_said(reference, other)
        if loops is not None and reference.costs.checked and other.costs.checked and _counts_differ(reference, other):
            notes.append(f"{other.name} and {reference.name}: same result, different programs ({loops})")
        costs = []
    return Findings(found + costs, notes)


def _cost_words(finding: dict[str, str]) -> str:
    """``0.715× the FLOPs (506 FLOP vs 708 FLOP)`` from a cost mismatch's detail."""
    if finding["quantity"] in ("XLA FLOPs", "XLA transcendentals") and finding["detail"].endswith("×)"):
        counts, _, ratio = finding["detail"].rpartition(" (")
        return f"{ratio.rstrip(')')} the {finding['quantity']}: {counts}"
    return f"{finding['quantity']} {finding['detail']}"


def _first_of(differing: list[int], names: list[str], ours: list[Any], theirs: list[Any]) -> str:
    """The first differing leaf, ours vs the reference's, and how many more differ."""
    i = differing[0]
    more = f" (and {len(differing) - 1} more)" if len(differing) > 1 else ""
    return f"{names[i]}: {ours[i]} vs {theirs[i]}{more}"


def _compare_outputs(
    ref_out: Any, out: Any, reference: Subject, other: Subject, rtol: float, mismatch: Callable[[str, str], None]
) -> None:
    keyed = reference.compare is not None or other.compare is not None
    if keyed:
        ref_leaves, leaves = _leaves_by_key(ref_out), _leaves_by_key(out)
        missing, extra = sorted(set(ref_leaves) - set(leaves)), sorted(set(leaves) - set(ref_leaves))
        if missing or extra:
            parts = [
                f"missing {', '.join(missing[:SHOWN_KEYS])}" if missing else "",
                f"extra {', '.join(extra[:SHOWN_KEYS])}" if extra else "",
            ]
            mismatch("output keys", "; ".join(p for p in parts if p))
            return
        names = sorted(ref_leaves)
        pairs = [(leaves[k], ref_leaves[k]) for k in names]
    else:
        ref_in_order, in_order = _leaves_in_order(ref_out), _leaves_in_order(out)
        if len(in_order) != len(ref_in_order):
            mismatch("output structure", f"{len(in_order)} output leaves vs {len(ref_in_order)}")
            return
        names = [f"leaf {i}" for i in range(len(in_order))]
        pairs = list(zip(in_order, ref_in_order))
    shapes = [tuple(np.shape(a)) for a, _ in pairs]
    ref_shapes = [tuple(np.shape(b)) for _, b in pairs]
    differing = [i for i, (a, b) in enumerate(zip(shapes, ref_shapes)) if a != b]
    if differing:
        mismatch("output shapes", _first_of(differing, names, shapes, ref_shapes))
        return
    dtypes = [_dtype(a) for a, _ in pairs]
    ref_dtypes = [_dtype(b) for _, b in pairs]
    differing = [i for i, (a, b) in enumerate(zip(dtypes, ref_dtypes)) if a != b and not _weak(pairs[i])]
    if differing:
        mismatch("output dtypes", _first_of(differing, names, dtypes, ref_dtypes))
    large = sum(int(np.prod(s)) for s in shapes) > MAX_COMPARED_ELEMENTS
    worst = worst_difference(
        (
            (name, a, b, _tolerance(rtol, reference, other, dtype, _dtype(b)))
            for name, (a, b), dtype in zip(names, pairs, dtypes)
        ),
        relative_difference_on_device if large else None,
    )
    if worst:
        mismatch("output values", worst)


def relative_difference_on_device(a: Any, b: Any) -> float:
    """:func:`~tuiperf.results.outputs.relative_difference` taken where the arrays are (a GPU's memory):
    four numbers come back to the host instead of both outputs."""
    import jax.numpy as jnp

    try:
        a, b = jnp.asarray(a), jnp.asarray(b)
    except TypeError:  # not an array: a Python object compares on the host
        return relative_difference(a, b)
    if a.size == 0:
        return 0.0
    if jnp.iscomplexobj(a) or jnp.iscomplexobj(b):  # complex: compare both parts
        a, b = jnp.stack([a.real, a.imag]), jnp.stack([b.real, b.imag])
    apart, largest, scale, any_finite = (float(x) for x in _difference_parts()(a, b))
    if apart:
        return float("inf")
    return largest / max(scale, 1e-30) if any_finite else 0.0


@functools.cache
def _difference_parts() -> Callable[[Any, Any], Any]:
    import jax
    import jax.numpy as jnp

    @jax.jit
    def parts(a: Any, b: Any) -> Any:
        dtype = jnp.result_type(a.dtype, b.dtype, jnp.float32)
        a, b = a.astype(dtype), b.astype(dtype)
        nan_a, inf_a, inf_b = jnp.isnan(a), jnp.isinf(a), jnp.isinf(b)
        apart = jnp.any(nan_a != jnp.isnan(b)) | jnp.any(inf_a != inf_b) | jnp.any(inf_a & (a != b))
        finite = ~(nan_a | inf_a)
        largest = jnp.max(jnp.where(finite, jnp.abs(a - b), 0))
        scale = jnp.max(jnp.where(finite, jnp.abs(b), 0))
        return apart, largest, scale, jnp.any(finite)

    return parts


def _loops_said(reference: Subject, other: Subject) -> str | None:
    """Why the two programs' FLOPs are not compared (either holds a loop, whose body XLA counts once)."""
    held = [f"{s.name} holds {loop_words(s.costs.loops)}" for s in (other, reference) if s.costs.loops]
    if not held:
        return None
    return f"{' and '.join(held)}, whose body XLA counts once: their FLOPs are not compared"


def _counts_differ(reference: Subject, other: Subject) -> bool:
    a, b = reference.costs, other.costs
    return a.loops != b.loops or any(
        x is not None and y is not None and abs(x - y) > FLOPS_REL_TOL * max(x, y)
        for x, y in ((a.flops, b.flops), (a.transcendentals, b.transcendentals))
    )


def _compare_costs(reference: Subject, other: Subject, mismatch: Callable[[str, str], None]) -> None:
    if reference.costs.loops or other.costs.loops:  # XLA's counts are not the work: only the parameters
        pass
    elif reference.costs.flops and other.costs.flops is not None:
        ratio = other.costs.flops / reference.costs.flops
        if abs(ratio - 1) > FLOPS_REL_TOL:
            mismatch("XLA FLOPs", f"{_si(other.costs.flops)} vs {_si(reference.costs.flops)} ({ratio:.3g}×)")
    if (
        not (reference.costs.loops or other.costs.loops)
        and reference.costs.transcendentals is not None
        and other.costs.transcendentals is not None
    ):
        theirs, ours = reference.costs.transcendentals, other.costs.transcendentals
        if abs(ours - theirs) > FLOPS_REL_TOL * max(ours, theirs):
            ratio_words = f" ({ours / theirs:.3g}×)" if theirs else ""
            mismatch("XLA transcendentals", f"{_si(ours, '')} vs {_si(theirs, '')}{ratio_words}")
    if (
        reference.costs.param_count is not None
        and other.costs.param_count is not None
        and reference.costs.param_count != other.costs.param_count
    ):
        mismatch("parameter count", f"{other.costs.param_count:,} vs {reference.costs.param_count:,}")


def _tolerance(rtol: float, reference: Subject, other: Subject, *dtypes: str) -> float:
    """For one leaf: the looser of the scenario's and the two variants' tolerances, at least the
    half-precision floor when that leaf is in half precision."""
    tolerance = max(rtol, reference.tolerance or 0.0, other.tolerance or 0.0)
    if any(d in ("bfloat16", "float16") for d in dtypes):
        tolerance = max(tolerance, HALF_PRECISION_TOLERANCE)
    return tolerance


def _weak(pair: tuple[Any, Any]) -> bool:
    """A Python scalar has no dtype of its own (JAX treats it as weakly typed): no dtype mismatch."""
    return any(type(x) in (bool, int, float, complex) for x in pair)  # not numpy scalars (np.float64 is a float)


def check_equivalence(subjects: list[Subject], rtol: float, reference: str | None = None) -> list[dict[str, str]]:
    """Compare every subject with the reference (by name; default: the first)."""
    return check(subjects, rtol, reference).mismatches


def check(subjects: list[Subject], rtol: float, reference: str | None = None) -> Findings:
    """Every subject against the reference (by name; default: the first): mismatches and notes."""
    if len(subjects) < 2:
        return Findings([], [])
    ref = next((s for s in subjects if s.name == reference), subjects[0])
    pairs = [compare_pair(ref, other, rtol) for other in subjects if other is not ref]
    return Findings([m for p in pairs for m in p.mismatches], [n for p in pairs for n in p.notes])


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


def _dtype(x: Any) -> str:
    return str(getattr(x, "dtype", type(x).__name__))


def _si(value: float, unit: str = "FLOP") -> str:
    for factor, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g} {suffix}{unit}".rstrip()
    return f"{value:.3g} {unit}".rstrip()


def digest(subject: Subject, rtol: float) -> OutputDigest:
    """``subject``'s output (projected by its ``compare=``) as host leaves by key path, to be compared
    with the same variant's output in another Python environment (:mod:`tuiperf.results.outputs`)."""
    leaves = _leaves_by_key(_project(subject))
    total = sum(int(np.prod(np.shape(leaf))) for leaf in leaves.values())
    carried = {}
    for key, leaf in leaves.items():
        values = np.asarray(leaf) if total <= MAX_CARRIED_ELEMENTS else None
        carried[key] = Leaf(dtype=_dtype(leaf), shape=tuple(np.shape(leaf)), values=values)
    return OutputDigest(leaves=carried, tolerance=max(rtol, subject.tolerance or 0.0))
