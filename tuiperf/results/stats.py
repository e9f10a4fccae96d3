"""Statistics for latency samples: summaries, confidence intervals, comparisons, modes, warnings.

Everything works on plain sequences of nanosecond timings and needs only numpy and the standard
library (no scipy, no JAX), so the TUI and reports can use it anywhere.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

from tuiperf.common.units import format_ns
from tuiperf.results.model import Mode, Stats

Samples = Sequence[float] | np.ndarray  # a list of timings, or the array the sampler already holds

OUTLIER_RULE = "1.5*IQR (Tukey)"
OUTLIER_SHARE = 0.25  # warn when more than this share of samples are outliers
MIN_SAMPLES = 20  # below this, modes and warnings are not meaningful
MERGE_VALLEY = 0.7  # merge two KDE peaks when the valley between them is above 0.7x the lower peak
DIP_SIGMAS = 3.0  # ... or when the gap's sample count is within this many Poisson sigmas of no dip
MIN_MODE_SAMPLES = 30  # a sparse tail of 300 samples reads as a 20-sample "cluster"; real ones hold more
MIN_SEPARATION = 0.10  # clusters closer than 10 % of the lower centre are one (see _merge_close)


def _z(confidence: float) -> float:
    """Two-sided standard normal quantile, e.g. 1.96 for 0.95 (stdlib NormalDist, no scipy)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def _as_array(samples: Samples) -> np.ndarray:
    """Samples as a 1-D float array; raises ValueError when there are none."""
    x = np.asarray(samples, dtype=float).ravel()
    if x.size == 0:
        raise ValueError("no samples")
    return x


def summarize(samples_ns: Samples) -> Stats:
    """Descriptive statistics of one benchmark's timings (robust figures first: median, IQR)."""
    x = _as_array(samples_ns)
    p10, p25, median, p75, p90, p99 = np.percentile(x, [10, 25, 50, 75, 90, 99])
    iqr = p75 - p25
    outside = (x < p25 - 1.5 * iqr) | (x > p75 + 1.5 * iqr)
    lo, hi = median_ci(x)
    return Stats(
        n=int(x.size),
        median_ns=float(median),
        mean_ns=float(x.mean()),
        std_ns=float(x.std(ddof=1)) if x.size > 1 else 0.0,
        min_ns=float(x.min()),
        max_ns=float(x.max()),
        p10_ns=float(p10),
        p25_ns=float(p25),
        p75_ns=float(p75),
        p90_ns=float(p90),
        p99_ns=float(p99),
        iqr_ns=float(iqr),
        outliers=int(outside.sum()),
        outlier_rule=OUTLIER_RULE,
        ci95_median_ns=(lo, hi),
    )


def median_ci(samples: Samples, confidence: float = 0.95) -> tuple[float, float]:
    """Distribution-free CI of the median: order statistics at ranks n/2 -/+ z*sqrt(n)/2."""
    x = np.sort(_as_array(samples))
    n = x.size
    half = _z(confidence) * math.sqrt(n) / 2.0
    j = math.floor(n / 2.0 - half)  # 1-based rank of the lower bound
    k = math.ceil(1 + n / 2.0 + half)  # 1-based rank of the upper bound
    if j < 1 or k > n:  # too few samples for this confidence: the range is all we can say
        return float(x[0]), float(x[-1])
    return float(x[j - 1]), float(x[k - 1])


def _boot_medians(x: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Medians of n_boot bootstrap resamples of x, drawn exactly but in O(n_boot).

    Resampling draws indices floor(n*U) for n uniforms U, so the m-th smallest resampled value is
    sorted_x[floor(n*U_(m))], and U_(m) ~ Beta(m, n-m+1); for even n the next order statistic is
    U_(m) + (1-U_(m))*Beta(1, n-m). Same distribution as np.median over resamples, without the
    n_boot x n index matrix.
    """
    xs = np.sort(x)
    n = xs.size
    m = (n + 1) // 2
    u = rng.beta(m, n - m + 1, size=n_boot)
    lower: np.ndarray = xs[np.minimum((u * n).astype(np.int64), n - 1)]
    if n % 2:
        return lower
    u2 = u + (1.0 - u) * rng.beta(1, n - m, size=n_boot)
    upper: np.ndarray = xs[np.minimum((u2 * n).astype(np.int64), n - 1)]
    midpoints: np.ndarray = 0.5 * (lower + upper)
    return midpoints


def ratio_ci(
    a_ns: Samples,
    b_ns: Samples,
    *,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> tuple[float, float, float]:
    """median(a)/median(b) with a percentile-bootstrap CI: (ratio, lo, hi)."""
    a, b = _as_array(a_ns), _as_array(b_ns)
    _z(confidence)  # validates confidence
    rng = np.random.default_rng(seed)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = float(np.median(a) / np.median(b))
        boots = _boot_medians(a, n_boot, rng) / _boot_medians(b, n_boot, rng)
    tail = (1.0 - confidence) / 2.0 * 100.0
    lo, hi = np.percentile(boots, [tail, 100.0 - tail])
    return ratio, float(lo), float(hi)


def mann_whitney_p(a: Samples, b: Samples) -> float:
    """Two-sided Mann-Whitney U p-value (normal approx., tie and continuity corrected)."""
    x, y = _as_array(a), _as_array(b)
    n1, n2 = x.size, y.size
    total = n1 + n2
    _, inverse, counts = np.unique(np.concatenate([x, y]), return_inverse=True, return_counts=True)
    avg_rank = np.cumsum(counts) - (counts - 1) / 2.0  # average 1-based rank of each tie group
    u1 = avg_rank[inverse[:n1]].sum() - n1 * (n1 + 1) / 2.0
    ties = float((counts.astype(float) ** 3 - counts).sum())
    var = n1 * n2 / 12.0 * ((total + 1) - ties / (total * (total - 1))) if total > 1 else 0.0
    if var <= 0.0:  # all values equal (or a single value): no evidence of a difference
        return 1.0
    z = max(abs(u1 - n1 * n2 / 2.0) - 0.5, 0.0) / math.sqrt(var)
    return min(1.0, math.erfc(z / math.sqrt(2.0)))


def _single_mode(x: np.ndarray) -> list[Mode]:
    """The whole sample as one cluster."""
    return [Mode(center_ns=float(np.median(x)), fraction=1.0)]


def _kde_on_grid(
    lx: np.ndarray, lo: float, hi: float, bw: float, size: int = 512
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gaussian KDE of lx on a size-point grid: histogram on the grid, convolved with the kernel.

    Returns (grid, counts per grid bin, density); density is in effective sample counts (kernel
    peak 1), so density * step / (bw * sqrt(2 pi)) is the expected number of samples per bin.
    """
    grid = np.linspace(lo, hi, size)
    step = grid[1] - grid[0]
    counts = np.bincount(np.rint((lx - lo) / step).astype(np.int64), minlength=size)[:size]
    half = min(math.ceil(4.0 * bw / step), 4 * size)
    offsets = np.arange(-half, half + 1) * step
    kernel = np.exp(-0.5 * (offsets / bw) ** 2)
    density = np.convolve(counts.astype(float), kernel, mode="full")[half : half + size]
    return grid, counts, density


def _real_dip(counts: np.ndarray, d: np.ndarray, p: int, q: int, per_bin: float) -> bool:
    """Whether the valley between peaks p < q is deep (below 0.7x the lower peak) and not noise.

    Noise test: over the stretch around the valley where the density is below that threshold, a
    density that never fell below the lower peak would put E samples; a real gap holds fewer
    than E - DIP_SIGMAS*sqrt(E) (Poisson). Wide, empty gaps pass easily; the ripples that a
    half-Silverman bandwidth makes in a few hundred unimodal samples do not.
    """
    low = min(d[p], d[q])
    below = d[p : q + 1] < MERGE_VALLEY * low
    if not below.any():
        return False
    j = p + int(np.argmin(d[p : q + 1]))
    left, right = j, j
    while left > p and below[left - 1 - p]:
        left -= 1
    while right < q and below[right + 1 - p]:
        right += 1
    expected = low * per_bin * (right - left + 1)
    observed = counts[left : right + 1].sum()
    return bool(expected - observed > DIP_SIGMAS * math.sqrt(expected))


def _merged_peaks(counts: np.ndarray, d: np.ndarray, per_bin: float) -> list[int]:
    """Grid indices of the density's local maxima, merging neighbours without a real dip between."""
    peaks = [int(i) for i in np.flatnonzero((d[1:-1] > d[:-2]) & (d[1:-1] >= d[2:])) + 1]
    if d[0] > d[1]:
        peaks.insert(0, 0)
    if d[-1] > d[-2]:
        peaks.append(d.size - 1)
    merged = True
    while merged and len(peaks) > 1:
        merged = False
        for i in range(len(peaks) - 1):
            p, q = peaks[i], peaks[i + 1]
            if not _real_dip(counts, d, p, q, per_bin):
                peaks[i : i + 2] = [p if d[p] >= d[q] else q]
                merged = True
                break
    return peaks or [int(np.argmax(d))]


def detect_modes(samples_ns: Samples, *, min_fraction: float = 0.05) -> list[Mode]:
    """Clusters in a latency distribution (log-space KDE), e.g. JAX async-dispatch modes.

    Returns the modes sorted by center; one entry for unimodal data. Clusters
    closer than MIN_SEPARATION (10 %) are merged; clusters holding less than min_fraction of the
    samples are dropped (fractions are not re-normalised). Calibrated on known mixtures and on
    recorded samples in tests/test_modes.py.
    """
    x = _as_array(samples_ns)
    x = x[np.isfinite(x) & (x > 0)]
    if x.size < MIN_SAMPLES:
        return _single_mode(x) if x.size else []
    lx = np.log(x)
    p1, p25, p75, p99 = np.percentile(lx, [1, 25, 75, 99])
    inside = (lx >= p1) & (lx <= p99)
    core = lx[inside]
    spread = min(core.std(), (p75 - p25) / 1.34) or core.std()
    bw = 0.5 * 0.9 * spread * core.size**-0.2  # half of Silverman's robust rule of thumb
    steps = np.diff(np.unique(x[inside]))
    if steps.size >= 4 and np.mean(steps <= 1.01 * steps.min()) >= 0.5:
        bw = max(bw, steps.min() / x[inside].min())  # timer ticks: else each tick becomes a mode
    if not bw > 0 or p99 <= p1:  # equal samples: their std may still round to 1e-17, not 0
        return _single_mode(x)
    grid, counts, density = _kde_on_grid(core, p1 - 3 * bw, p99 + 3 * bw, bw)
    peaks = _merged_peaks(counts, density, (grid[1] - grid[0]) / (bw * math.sqrt(2 * math.pi)))
    valleys = [grid[p + int(np.argmin(density[p : q + 1]))] for p, q in itertools.pairwise(peaks)]
    labels = np.searchsorted(np.asarray(valleys), lx)
    clusters = [x[labels == k] for k in range(len(peaks))]
    clusters = _merge_close([c for c in clusters if c.size])
    modes: list[Mode] = []
    for members in clusters:
        fraction = members.size / x.size
        if fraction >= min_fraction and members.size >= MIN_MODE_SAMPLES:
            modes.append(Mode(center_ns=float(np.median(members)), fraction=float(fraction)))
    return sorted(modes, key=lambda m: m.center_ns) if len(modes) > 1 else _single_mode(x)


def _merge_close(clusters: list[np.ndarray]) -> list[np.ndarray]:
    """Merge neighbouring clusters whose centres are less than MIN_SEPARATION apart (relative).

    A KDE finds ripples a few tens of ns apart in a unimodal µs distribution (dispatch-floor read
    "7 modes" 30 ns apart); clusters that close change no conclusion, so they are one cluster.
    """
    merged = True
    while merged and len(clusters) > 1:
        merged = False
        centers = [float(np.median(c)) for c in clusters]
        for i in range(len(clusters) - 1):
            if centers[i + 1] - centers[i] < MIN_SEPARATION * centers[i]:
                clusters[i : i + 2] = [np.concatenate(clusters[i : i + 2])]
                merged = True
                break
    return clusters


def stability_warnings(stats: Stats, modes: list[Mode]) -> list[str]:
    """pyperf-style warnings about a result's reliability, each a sentence naming the figure."""
    warnings = []
    n, median = stats.n, stats.median_ns
    if n < MIN_SAMPLES:
        warnings.append(f"only {n} samples: at least {MIN_SAMPLES} are needed for reliable figures")
    # Robust spreads: a single 500 µs interrupt among thousands of 7 µs calls would make the std
    # (pyperf's rule) cry wolf on every JAX benchmark; the IQR and the outlier share do not.
    if median > 0 and stats.iqr_ns >= 0.10 * median:
        warnings.append(
            f"unstable: the middle half of the samples spans {100 * stats.iqr_ns / median:.0f} % of the median"
        )
    # Only a tail that holds a quarter of the samples: µs-scale JAX calls routinely have 5-15 % of
    # samples beyond 1.5 IQR (a tiny IQR, a long right tail), which does not move the median.
    if n and stats.outliers > OUTLIER_SHARE * n:
        warnings.append(
            f"{stats.outliers} outliers ({100 * stats.outliers / n:.0f} % of samples, "
            f"{stats.outlier_rule}); max {format_ns(stats.max_ns)}"
        )
    lo, hi = stats.ci95_median_ns
    if median > 0 and max(median - lo, hi - median) > 0.05 * median:
        width = 100 * max(median - lo, hi - median) / median
        warnings.append(f"imprecise: 95 % CI of the median reaches ±{width:.0f} % of the median")
    if len(modes) > 1:  # e.g. "clusters at 12.3 µs (61 %), 18.9 µs (37 %)"
        parts = ", ".join(f"{format_ns(m.center_ns)} ({100 * m.fraction:.0f} %)" for m in modes)
        warnings.append(f"multi-modal: clusters at {parts}")
    return warnings


def loglog_slope(xs: Samples, ys: Samples) -> float | None:
    """Scaling exponent: least-squares slope of log(y) on log(x); None without 2 usable points."""
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    lx, ly = np.log(x[ok]), np.log(y[ok])
    if lx.size < 2 or np.ptp(lx) == 0:
        return None
    dx = lx - lx.mean()
    return float((dx * (ly - ly.mean())).sum() / (dx * dx).sum())
