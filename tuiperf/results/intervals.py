"""95 % intervals that hold on a re-run: from what varies between rounds, and between processes.

A run's samples are not independent draws. Two things move a re-run's figures far beyond an i.i.d.
bootstrap of the samples (measured on this project's 2-core VM: eqx.filter_jit / jax.jit read 4.45 to
4.67 over six runs, each with an interval of ±0.2 %):

- time: slow spells (every call ~1.5× slower for 0.1-3 s) and drift last many rounds. The sampler gives
  every variant a turn in each round, so a round's variants saw the same moment: the ratio is taken per
  group of consecutive rounds (paired), and those per-group figures are resampled in blocks (a circular
  block bootstrap, six blocks), which keeps a spell's rounds together instead of spreading them
  thinly over every resample;
- the process: a fresh process lands a few % away from the last one (memory placement, code layout).
  One process cannot see that; several can (``--processes N``: the processes are the units), or a
  calibration of this machine's fresh-process spread (:mod:`tuiperf.results.calibration`) adds it.

``Interval.covers`` says which of these an interval includes. Results without round data (stored before,
or too few rounds) keep the samples-only interval and say so.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

from tuiperf.results.covers import PROCESSES, ROUNDS, SAMPLES
from tuiperf.results.model import Interval, Sampling

Z95 = NormalDist().inv_cdf(0.975)
MAX_GROUPS = 64  # rounds are pooled into at most this many consecutive groups (a median per group)
BLOCKS = 6  # the rounds are resampled in this many blocks (8 read 86 % coverage in tests/test_intervals.py, 4 too wide)
QUANTILES = 16  # a group of rounds is resampled as this many quantiles of its samples
MIN_GROUPS = 8  # with fewer rounds, time cannot be resampled: the interval covers samples only
MIN_ROUNDS = 32  # auto sampling never stops as converged before this many rounds (~0.3 s of 5 µs calls)
N_BOOT = 1000
# Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom (no scipy here).
T95: tuple[float, ...] = (
    *(12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131),
    *(2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042),
)


def t95(df: int) -> float:
    """Student's t two-sided 95 % quantile for ``df`` degrees of freedom (normal beyond 30)."""
    return T95[df - 1] if 1 <= df <= len(T95) else Z95


def turns(samples: Sequence[float], round_starts: Sequence[int]) -> list[np.ndarray]:
    """The samples of each turn, in order (turn k of every variant of a process is in round k)."""
    x = np.asarray(samples, dtype=float)
    bounds = [*round_starts, x.size]
    return [x[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def processes_of(variant: Sampling) -> list[Sampling]:
    """A variant's samples and rounds split per measuring process (itself when there was one)."""
    starts = variant.process_starts
    if len(starts) < 2:
        return [variant]
    bounds = [*starts, len(variant.samples_ns)]
    parts = []
    for a, b in itertools.pairwise(bounds):
        rounds = [r - a for r in variant.round_starts if a <= r < b]
        parts.append(Sampling(samples_ns=variant.samples_ns[a:b], round_starts=rounds))
    return parts


def _group_quantiles(turn_list: list[np.ndarray], groups: int) -> np.ndarray:
    """Each of ``groups`` runs of consecutive turns as QUANTILES evenly spaced quantiles of its samples:
    a resample's pooled median is then the median of its groups' quantiles (equal-sized groups)."""
    edges = np.linspace(0, len(turn_list), groups + 1).round().astype(int)
    levels = (np.arange(QUANTILES) + 0.5) / QUANTILES
    return np.array([np.quantile(np.concatenate(turn_list[a:b]), levels) for a, b in itertools.pairwise(edges)])


def _block_indices(n: int, seed: int) -> np.ndarray:
    """N_BOOT resamples of n items in time order: a circular block bootstrap of about BLOCKS blocks of
    consecutive items (a spell or a drift stays inside a block rather than averaging out)."""
    length = max(1, math.ceil(n / BLOCKS))
    blocks = math.ceil(n / length)
    starts = np.random.default_rng(seed).integers(0, n, size=(N_BOOT, blocks))
    index = (starts[:, :, None] + np.arange(length)[None, None, :]) % n
    return index.reshape(N_BOOT, -1)[:, :n]


def _log_pooled_medians(quantiles: np.ndarray, index: np.ndarray) -> tuple[float, np.ndarray]:
    """log of the pooled median of every group, and of each resample's groups."""
    with np.errstate(divide="ignore", invalid="ignore"):
        whole = math.log(float(np.median(quantiles))) if np.median(quantiles) > 0 else math.nan
        boots = np.log(np.median(quantiles[index].reshape(index.shape[0], -1), axis=1))
    return whole, boots


def _log_median(x: np.ndarray) -> float:
    median = float(np.median(x))
    return math.log(median) if median > 0 else math.nan


def round_offsets(a: Sampling, b: Sampling | None = None, seed: int = 0) -> tuple[float, float] | None:
    """Offsets (log scale) of the 95 % interval of log median(a) − log median(b) over time, the rounds
    resampled in blocks for both at once (paired; ``b`` None: of log median(a) alone), widened by t/z
    for the few blocks; None without enough rounds to resample."""
    ta = turns(a.samples_ns, a.round_starts)
    tb = turns(b.samples_ns, b.round_starts) if b is not None else []
    k = min(len(ta), len(tb)) if b is not None else len(ta)
    if k < MIN_GROUPS:
        return None
    groups = min(MAX_GROUPS, k)
    index = _block_indices(groups, seed)
    point, boots = _log_pooled_medians(_group_quantiles(ta[:k], groups), index)
    if b is not None:
        point_b, boots_b = _log_pooled_medians(_group_quantiles(tb[:k], groups), index)
        point, boots = point - point_b, boots - boots_b
    if not (math.isfinite(point) and np.isfinite(boots).all()):
        return None
    lo, hi = np.percentile(boots - point, [2.5, 97.5])
    widen = t95(math.ceil(groups / math.ceil(groups / BLOCKS)) - 1) / Z95
    return float(lo * widen), float(hi * widen)


def _widen(offsets: tuple[float, float], sd: float) -> tuple[float, float]:
    """Add a normal component of standard deviation ``sd`` to each side (variances add)."""
    extra = (Z95 * sd) ** 2
    return -math.sqrt(offsets[0] ** 2 + extra), math.sqrt(offsets[1] ** 2 + extra)


def _around(point: float, offsets: tuple[float, float]) -> tuple[float, float]:
    return point * math.exp(offsets[0]), point * math.exp(offsets[1])


def _between(logs: list[float], floor_sd: float | None) -> tuple[float, float, float]:
    """Over several processes (the units): (sd of the per-process logs, used sd, half-width of their mean)."""
    sd = float(np.std(logs, ddof=1))
    used = max(sd, floor_sd or 0.0)
    return sd, used, t95(len(logs) - 1) * used / math.sqrt(len(logs))


def ratio_interval(
    a: Sampling,
    b: Sampling,
    point: float,
    samples_ci: tuple[float, float],
    process_sd: tuple[float, str] | None,
    *,
    seed: int = 0,
) -> tuple[tuple[float, float], Interval]:
    """The 95 % interval of median(a) / median(b) (``point``), and what it covers.

    ``process_sd``: this machine's calibrated fresh-process spread of a log ratio, and where it came
    from; None when there is none. ``samples_ci`` is the i.i.d. samples-only interval (kept beside it).
    """
    return _interval(a, b, point, samples_ci, process_sd, seed)


def median_interval(
    variant: Sampling,
    point: float,
    samples_ci: tuple[float, float],
    process_sd: tuple[float, str] | None,
    *,
    seed: int = 0,
) -> tuple[tuple[float, float], Interval]:
    """The 95 % interval of one variant's median (``point``) over time and processes, and what it covers."""
    return _interval(variant, None, point, samples_ci, process_sd, seed)


def _interval(
    a: Sampling,
    b: Sampling | None,
    point: float,
    samples_ci: tuple[float, float],
    process_sd: tuple[float, str] | None,
    seed: int,
) -> tuple[tuple[float, float], Interval]:
    samples_only = (samples_ci, Interval(covers=SAMPLES, samples_ci95=samples_ci))
    if not (point > 0 and math.isfinite(point)):
        return samples_only
    floor_sd, source = process_sd if process_sd is not None else (None, "")
    parts_a = processes_of(a)
    parts_b = processes_of(b) if b is not None else []
    if len(parts_a) > 1 and (b is None or len(parts_b) == len(parts_a)):
        logs = [_log_median(np.asarray(p.samples_ns)) for p in parts_a]
        if b is not None:
            logs = [x - _log_median(np.asarray(q.samples_ns)) for x, q in zip(logs, parts_b, strict=True)]
        if all(map(math.isfinite, logs)):
            sd, used, half = _between(logs, floor_sd)
            # a standard deviation between the processes' medians (or ratios), not their range: the
            # report's "slowest … above fastest" line is the range
            whose = "the ratio's" if b is not None else "the median's"
            how = f"{len(logs)} processes of this run, {whose} standard deviation between them ±{100 * sd:.1f} %"
            how += f", at least {source}: ±{100 * used:.1f} %" if used > sd else ""
            return _around(point, (-half, half)), Interval(covers=PROCESSES, processes=how, samples_ci95=samples_ci)
    offsets = round_offsets(a, b, seed)
    if offsets is None:
        return samples_only
    # The samples-only interval is a floor: the groups' figures cannot be more precise than their samples.
    offsets = (
        min(offsets[0], math.log(samples_ci[0] / point) if samples_ci[0] > 0 else offsets[0]),
        max(offsets[1], math.log(samples_ci[1] / point) if samples_ci[1] > 0 else offsets[1]),
    )
    if floor_sd is None:
        return _around(point, offsets), Interval(covers=ROUNDS, samples_ci95=samples_ci)
    bounds = _around(point, _widen(offsets, floor_sd))
    return bounds, Interval(covers=PROCESSES, processes=f"{source}: ±{100 * floor_sd:.1f} %", samples_ci95=samples_ci)
