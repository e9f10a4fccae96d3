"""Does it matter at my size? Where a variant's extra fixed cost stops mattering, from a sweep's points.

For a sweep over a size (a numeric parameter, three values or more), each variant's time per call is
fitted as ``fixed + per_unit × size`` on the medians already measured (least squares on relative
error, so the small sizes count as much as the large ones). A variant's extra fixed cost over the
baseline is the difference of the two fixed terms; it is under a share ``f`` of the variant's call
once ``fixed + per_unit × size ≥ extra / f``, i.e. above ``size = (extra / f − fixed) / per_unit``.

The 95 % intervals come from a parametric bootstrap over the points: each median is redrawn from a
normal with its own CI's spread plus the fit's relative misfit (a linear model that does not hold
widens every interval instead of hiding), and the fit and crossover are computed again. Seeded: the
same result gives the same figures. Only medians, their CIs and the swept values are used, so a
stored sweep gives the same answer as the run that measured it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tuiperf.common.text import one_line
from tuiperf.common.units import format_ns
from tuiperf.results.model import Crossover, CrossoverWhere, RunResult

if TYPE_CHECKING:  # numpy is imported where a fit is made: the sentences are read on the UI thread
    import numpy as np

SHARES = (0.10, 0.01)
BOOT = 2000
SEED = 0
MIN_POINTS = 3  # two points fit any line exactly: no misfit to see
POOR_FIT = 0.10  # a relative misfit above this is said beside the answer

Where = CrossoverWhere


def _fit(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fixed and per-unit terms for each row of ``ys`` (shape (B, n)), weighted by 1 / y²."""
    import numpy as np

    w = 1.0 / np.maximum(ys, 1e-12)  # sqrt of the weights: relative residuals
    a = np.stack([w, w * xs], axis=-1)  # (B, n, 2)
    b = np.ones_like(ys)  # w * y
    ata = np.einsum("bni,bnj->bij", a, a)
    atb = np.einsum("bni,bn->bi", a, b)
    det = ata[:, 0, 0] * ata[:, 1, 1] - ata[:, 0, 1] * ata[:, 1, 0]
    det = np.where(det == 0, np.nan, det)
    fixed = (ata[:, 1, 1] * atb[:, 0] - ata[:, 0, 1] * atb[:, 1]) / det
    per_unit = (ata[:, 0, 0] * atb[:, 1] - ata[:, 1, 0] * atb[:, 0]) / det
    return fixed, per_unit


def _series(result: RunResult, name: str) -> tuple[list[float], list[float], list[float]]:
    """(sizes, medians, standard errors) of ``name`` at each point where it was measured."""
    assert result.sweep is not None
    xs, ys, ses = [], [], []
    for value, point in zip(result.sweep.values, result.points, strict=False):
        variant = point.variant(name)
        if (
            variant is None
            or variant.sampling.stats is None
            or isinstance(value, bool)
            or not isinstance(value, int | float)
        ):
            continue
        lo, hi = variant.sampling.stats.ci95_median_ns
        xs.append(float(value))
        ys.append(variant.sampling.stats.median_ns)
        ses.append(max(hi - lo, 0.0) / 3.92)
    return xs, ys, ses


def sizes_of(result: RunResult) -> list[float] | None:
    """The swept values as sizes (numbers ≥ 0, three or more distinct), else None."""
    sweep = result.sweep
    if sweep is None or not result.points or sweep.grid:
        return None
    values = sweep.values[: len(result.points)]
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v >= 0 for v in values):
        return None
    return [float(v) for v in values] if len(set(values)) >= MIN_POINTS else None


def crossovers(result: RunResult, baseline: str | None = None) -> list[Crossover]:
    """For each variant with more fixed cost than the baseline: where it falls under each of
    :data:`SHARES` of the call. Empty for a sweep that is not over a size (or a single run)."""
    import numpy as np

    from tuiperf.results.ratios import against

    if sizes_of(result) is None:
        return []
    base, _ = against(result.points[-1], baseline)
    if base is None:
        return []
    rng = np.random.default_rng(SEED)
    fits = {}
    for name in result.sweep.medians_ns if result.sweep else []:
        xs, ys, ses = _series(result, name)
        if len(set(xs)) < MIN_POINTS:
            continue
        fits[name] = _bootstrap(np.array(xs), np.array(ys), np.array(ses), rng)
    if base not in fits:
        return []
    found = []
    lo_x, hi_x = min(sizes_of(result) or [0.0]), max(sizes_of(result) or [0.0])
    base_fixed = fits[base][0]
    for name, (fixed, per_unit, misfit) in fits.items():
        if name == base:
            continue
        extra = fixed - base_fixed  # each bootstrap draw's own difference
        if not extra[0] > 0:
            continue
        for share in SHARES:
            found.append(_crossover(name, base, share, extra, fixed, per_unit, misfit, (lo_x, hi_x)))
    return found


def _bootstrap(
    xs: np.ndarray, ys: np.ndarray, ses: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, float]:
    """Fixed and per-unit terms, element 0 the fit itself, then :data:`BOOT` redraws; and the misfit."""
    import numpy as np

    fixed, per_unit = _fit(xs, ys[None, :])
    predicted = fixed[0] + per_unit[0] * xs
    dof = max(len(xs) - 2, 1)
    misfit = float(np.sqrt(np.sum(((ys - predicted) / ys) ** 2) / dof))
    spread = np.sqrt(ses**2 + (misfit * ys) ** 2)
    draws = ys[None, :] + rng.standard_normal((BOOT, len(xs))) * spread[None, :]
    b_fixed, b_per_unit = _fit(xs, np.maximum(draws, 1e-3))
    return np.concatenate([fixed, b_fixed]), np.concatenate([per_unit, b_per_unit]), misfit


def _interval(values: np.ndarray) -> tuple[float, float]:
    import numpy as np

    lo, hi = np.nanpercentile(values, [2.5, 97.5])
    return float(lo), float(hi)


def _crossover(
    name: str,
    base: str,
    share: float,
    extra: np.ndarray,
    fixed: np.ndarray,
    per_unit: np.ndarray,
    misfit: float,
    swept: tuple[float, float],
) -> Crossover:
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        at = np.where(per_unit > 0, (extra / share - fixed) / per_unit, np.inf)
    at = np.where(np.isnan(at), np.inf, at)
    with np.errstate(invalid="ignore"):  # draws that never cross are +inf: the upper end is unbounded
        lo, hi = np.percentile(at[1:], [2.5, 97.5]) if len(at) > 1 else (at[0], at[0])
    extra_lo, _ = _interval(extra[1:])
    where: Where
    if extra_lo <= 0:
        where = "unresolved"  # the extra fixed cost's CI reaches zero
    elif not math.isfinite(at[0]):
        where = "never"
    elif at[0] <= swept[0]:
        where = "below"
    elif at[0] <= swept[1]:
        where = "inside"
    else:
        where = "beyond"
    finite = math.isfinite(at[0])
    return Crossover(
        variant=name,
        baseline=base,
        share=share,
        extra_ns=float(extra[0]),
        extra_ci95_ns=_interval(extra[1:]),
        fixed_ns=float(fixed[0]),
        per_unit_ns=float(per_unit[0]),
        per_unit_ci95_ns=_interval(per_unit[1:]),
        at=float(at[0]) if finite else None,
        at_ci95=(max(float(lo), 0.0), float(hi) if math.isfinite(hi) else None) if finite else None,
        where=where,
        misfit=misfit,
    )


def _size(value: float) -> str:
    """A size as people write one: ``2,000``, ``150``, ``3.5``."""
    if value >= 100:
        return f"{float(f'{value:.2g}'):,.0f}"
    return f"{value:.2g}"


def share_of_call(c: Crossover, size: float) -> float:
    """The extra fixed cost as a share of the variant's fitted call at ``size``."""
    call = c.fixed_ns + c.per_unit_ns * size
    return c.extra_ns / call if call > 0 else math.inf


def sentence(c: Crossover, parameter: str, device: str, swept: Sequence[float]) -> str:
    """One line: ``eqx.filter_jit's +23.0 µs is under 10 % of the call above batch ≈ 2,000 on cpu:0``."""
    name, param = one_line(c.variant), one_line(parameter)
    pct = f"{100 * c.share:g} %"
    extra = f"{name}'s +{format_ns(c.extra_ns)} over {one_line(c.baseline)}"
    ci = f"(95 % CI {format_ns(c.extra_ci95_ns[0])} – {format_ns(c.extra_ci95_ns[1])})"
    largest = max(swept)
    if c.where == "unresolved":
        text = f"{extra} {ci} is not told apart from no extra fixed cost: no crossover given"
    elif c.where == "never":
        text = f"{extra} {ci} never falls under {pct} of the call: the call does not grow with {param}"
    elif c.where == "below":
        text = f"{extra} {ci} is under {pct} of the call at every swept {param} (from {_size(min(swept))})"
    elif c.where == "inside":
        assert c.at is not None and c.at_ci95 is not None
        upper = _size(c.at_ci95[1]) if c.at_ci95[1] is not None else "beyond the swept range"
        text = (
            f"{extra} is under {pct} of the call above {param} ≈ {_size(c.at)} "
            f"(95 % CI {_size(c.at_ci95[0])} – {upper})"
        )
    else:
        assert c.at is not None
        still = 100 * share_of_call(c, largest)
        text = (
            f"{extra} never falls under {pct} of the call within the swept range: at {param}={_size(largest)} "
            f"it is still {still:.0f} %; the fit puts {pct} at {param} ≈ {_size(c.at)}, beyond what was measured"
        )
    fit = (
        f" (the linear fit misses the points by {100 * c.misfit:.0f} %: read it as rough)"
        if c.misfit > POOR_FIT
        else ""
    )
    return f"{text} on {one_line(device)}{fit}"


# A grid's cells vary two parameters at once: a fit along one of them would mix in the other.
GRID_NOTE = "not answered for a grid: the fit (fixed + per-unit × size) needs a sweep over one size parameter alone"


def sentences(result: RunResult, compute: bool = True) -> list[str]:
    """The sweep's crossovers as sentences, each variant's 10 % then 1 %: the stored ones, else (an
    older result, ``compute``) computed now."""
    sweep = result.sweep
    swept = sizes_of(result)
    if sweep is not None and sweep.grid:
        return [GRID_NOTE]
    if sweep is None or swept is None:
        return []
    found = sweep.crossovers or (crossovers(result) if compute else [])
    # "never" and "unresolved" read the same for every share: said once per variant
    once = [
        c
        for i, c in enumerate(found)
        if c.where not in ("never", "unresolved")
        or c.variant not in {d.variant for d in found[:i] if d.where == c.where}
    ]
    return [sentence(c, sweep.parameter, result.device.id, swept) for c in once]
