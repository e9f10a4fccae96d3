"""Tests for tuiperf.results.stats, checked against numpy on seeded data."""

from __future__ import annotations

import msgspec
import numpy as np
import pytest

from tuiperf.results.model import Stats
from tuiperf.results.stats import (
    detect_modes,
    format_ns,
    loglog_slope,
    mann_whitney_p,
    median_ci,
    ratio_ci,
    stability_warnings,
    summarize,
)


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def mixture(r: np.random.Generator, n: int, centers: list, fractions: list) -> np.ndarray:
    """Gaussian clusters with a 3 % spread, sizes n*fraction."""
    sizes = [round(n * f) for f in fractions]
    return np.concatenate([r.normal(c, 0.03 * c, k) for c, k in zip(centers, sizes)])


# --- summarize ---------------------------------------------------------------------------------


def test_summarize_matches_numpy():
    x = rng().lognormal(np.log(10_000), 0.2, 1001)
    s = summarize(list(x))
    assert s.n == 1001 and isinstance(s.n, int)
    assert s.median_ns == pytest.approx(np.median(x))
    assert s.mean_ns == pytest.approx(np.mean(x))
    assert s.std_ns == pytest.approx(np.std(x, ddof=1))
    assert (s.min_ns, s.max_ns) == (x.min(), x.max())
    for q in (10, 25, 75, 90, 99):
        assert getattr(s, f"p{q}_ns") == pytest.approx(np.percentile(x, q))
    assert s.iqr_ns == pytest.approx(np.percentile(x, 75) - np.percentile(x, 25))
    assert s.outlier_rule == "1.5*IQR (Tukey)"
    lo, hi = s.ci95_median_ns
    assert lo < s.median_ns < hi


def test_summarize_outliers_on_crafted_array():
    # sorted: -20, 1..9, 20 -> p25 = 2.5, p75 = 7.5, IQR = 5, fences [-5, 15]: -20 and 20 are out.
    x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 20, -20]
    s = summarize(x)
    p25, p75 = np.percentile(x, [25, 75])
    iqr = p75 - p25
    expected = sum(v < p25 - 1.5 * iqr or v > p75 + 1.5 * iqr for v in x)
    assert s.outliers == expected == 2


def test_summarize_single_and_empty():
    s = summarize([42.0])
    assert s.std_ns == 0.0 and s.median_ns == 42.0 and s.outliers == 0
    with pytest.raises(ValueError, match="no samples"):
        summarize([])


# --- median_ci ---------------------------------------------------------------------------------


def test_median_ci_contains_true_median_of_large_sample():
    x = rng().normal(100.0, 10.0, 20_000)
    lo, hi = median_ci(x)
    assert lo < 100.0 < hi
    assert hi - lo < 1.0  # ~ 2 * 1.96 * 1.2533 * 10 / sqrt(20000) = 0.35
    width = {c: np.subtract(*median_ci(x, c)[::-1]) for c in (0.90, 0.99)}
    assert width[0.99] > hi - lo > width[0.90]


def test_median_ci_coverage_about_95_percent():
    r = rng()
    hits = 0
    for _ in range(200):
        lo, hi = median_ci(r.exponential(1.0, 101))
        hits += lo <= np.log(2.0) <= hi  # true median of Exp(1)
    assert 0.90 <= hits / 200 <= 0.99


def test_median_ci_tiny_sample_is_the_range():
    assert median_ci([3.0, 1.0, 2.0]) == (1.0, 3.0)


# --- ratio_ci ----------------------------------------------------------------------------------


def test_ratio_ci_same_distribution_contains_one():
    r = rng()
    a, b = r.lognormal(9, 0.2, 2000), r.lognormal(9, 0.2, 2000)
    ratio, lo, hi = ratio_ci(a, b)
    assert ratio == pytest.approx(np.median(a) / np.median(b))
    assert lo < 1.0 < hi and lo < ratio < hi


def test_ratio_ci_half_is_tight():
    a = rng().normal(1000.0, 10.0, 5000)
    ratio, lo, hi = ratio_ci(a, 2 * a)
    assert ratio == pytest.approx(0.5)
    assert 0.495 < lo < 0.5 < hi < 0.505


def test_ratio_ci_matches_naive_bootstrap():
    r = rng(1)
    a, b = r.lognormal(9, 0.3, 400), r.lognormal(9.1, 0.3, 400)
    idx = r.integers(0, 400, size=(4000, 400))
    idx_b = r.integers(0, 400, size=(4000, 400))
    naive = np.median(a[idx], axis=1) / np.median(b[idx_b], axis=1)
    _, lo, hi = ratio_ci(a, b, n_boot=4000)
    assert (lo, hi) == pytest.approx(tuple(np.percentile(naive, [2.5, 97.5])), rel=0.01)


def test_ratio_ci_is_seeded():
    a, b = rng(2).normal(10, 1, 300), rng(3).normal(11, 1, 300)
    assert ratio_ci(a, b, seed=7) == ratio_ci(a, b, seed=7)


# --- mann_whitney_p ----------------------------------------------------------------------------


def test_mann_whitney_shifted_vs_identical():
    r = rng()
    a = r.normal(100, 10, 300)
    assert mann_whitney_p(a, r.normal(106, 10, 300)) < 0.001
    assert mann_whitney_p(a, r.normal(100, 10, 300)) > 0.05
    assert mann_whitney_p([5, 5, 5], [5, 5]) == 1.0


def test_mann_whitney_known_value_with_ties():
    # ranks 1, 2, 3.5 | 3.5, 5, 6, 7 -> U = 6.5 - 6 = 0.5, mean 6, var 8 - 6/42 (one tied pair);
    # continuity-corrected z = 5 / sqrt(7.857) = 1.784 -> p = 0.07446 (scipy's asymptotic value)
    p = mann_whitney_p([1, 2, 3], [3, 4, 5, 6])
    assert p == pytest.approx(0.07446, abs=1e-4)


# --- detect_modes ------------------------------------------------------------------------------


def test_detect_modes_unimodal_lognormal():
    modes = detect_modes(rng().lognormal(np.log(10_000), 0.3, 5000))
    assert len(modes) == 1
    assert modes[0].fraction == 1.0
    assert modes[0].center_ns == pytest.approx(10_000, rel=0.03)


def test_detect_modes_two_clusters_60_40():
    modes = detect_modes(mixture(rng(), 5000, [10_000, 16_000], [0.6, 0.4]))
    assert len(modes) == 2
    assert modes[0].center_ns == pytest.approx(10_000, rel=0.02)
    assert modes[1].center_ns == pytest.approx(16_000, rel=0.02)
    assert modes[0].fraction == pytest.approx(0.6, abs=0.05)
    assert modes[1].fraction == pytest.approx(0.4, abs=0.05)


def test_detect_modes_three_clusters():
    modes = detect_modes(mixture(rng(), 6000, [10_000, 16_000, 25_000], [0.4, 0.35, 0.25]))
    assert [round(m.center_ns, -3) for m in modes] == [10_000, 16_000, 25_000]
    assert [m.fraction for m in modes] == pytest.approx([0.4, 0.35, 0.25], abs=0.05)


def test_detect_modes_drops_small_clusters_and_handles_few_samples():
    x = mixture(rng(), 2000, [10_000, 30_000], [0.97, 0.03])
    assert len(detect_modes(x)) == 1
    assert len(detect_modes(x, min_fraction=0.01)) == 2
    assert [(m.center_ns, m.fraction) for m in detect_modes([1.0, 100.0] * 9)] == [(pytest.approx(50.5), 1.0)]


def test_detect_modes_few_false_positives_on_small_unimodal_samples():
    false = sum(len(detect_modes(rng(s).gamma(4, 1000, 100) + 8000)) > 1 for s in range(50))
    assert false <= 2


def test_detect_modes_timer_ticks_are_not_modes():
    x = rng().normal(1000, 30, 2000).round(-1)  # 10 ns timer resolution: ticks 1 % apart
    assert len(detect_modes(x)) == 1


# --- stability_warnings ------------------------------------------------------------------------


def test_stability_warnings_noisy_vs_tight():
    tight = rng().normal(10_000, 50, 2000)
    s = summarize(tight)
    assert stability_warnings(s, detect_modes(tight)) == []

    noisy = np.append(mixture(rng(), 400, [12_300, 18_900], [0.6, 0.4]), [60_000] * 30)
    warnings = stability_warnings(summarize(noisy), detect_modes(noisy))
    text = " | ".join(warnings)
    assert "unstable: the middle half" in text and "% of the median" in text
    assert "outliers" not in text  # 7 % in a long tail does not move the median: no warning
    tails = np.concatenate([rng().normal(10_000, 50, 700), [1_000] * 140, [60_000] * 140])  # 29 % far out
    assert any("outliers (29 % of samples" in w for w in stability_warnings(summarize(tails), detect_modes(tails)))
    assert any(w.startswith("multi-modal: clusters at 12.3 µs") and "60.0 µs (7 %)" in w for w in warnings)


def test_stability_warnings_few_samples_and_wide_ci():
    x = [100.0, 180.0, 120.0, 90.0, 150.0]
    warnings = stability_warnings(summarize(x), detect_modes(x))
    assert any("only 5 samples" in w for w in warnings)
    assert any("95 % CI of the median" in w for w in warnings)


# --- loglog_slope, format_ns -------------------------------------------------------------------


def test_loglog_slope():
    xs = [1, 2, 4, 8, 16]
    assert loglog_slope(xs, [3 * x for x in xs]) == pytest.approx(1.0)
    assert loglog_slope(xs, [7.0] * 5) == pytest.approx(0.0)
    assert loglog_slope(xs, [x**2 for x in xs]) == pytest.approx(2.0)
    assert loglog_slope([4], [5]) is None
    assert loglog_slope([0, -1, 2], [1, 1, 1]) is None  # one usable point


@pytest.mark.parametrize(
    "ns, text",
    [
        (850, "850 ns"),
        (12_345, "12.3 µs"),
        (4_560_000, "4.56 ms"),
        (1.234e9, "1.23 s"),
        (999.7, "1.00 µs"),
        (0, "0 ns"),
        (5.5, "5.50 ns"),
    ],
)
def test_format_ns(ns, text):
    assert format_ns(ns) == text


def test_both_outlier_fences_sit_at_one_and_a_half_iqr():
    x = [*range(1, 101), -80, 180]  # p25 26.25, p75 76.75, IQR 50.5: fences -49.5 and 152.5
    assert summarize(x).outliers == 2
    assert summarize([*range(1, 101), -40, 150]).outliers == 0  # inside both fences
    assert summarize([*range(1, 101), -80]).outliers == 1


def test_median_ci_uses_the_order_statistics_around_the_middle():
    assert median_ci(list(range(1, 101))) == (40.0, 61.0)  # ranks floor(50 - 9.8) and ceil(51 + 9.8)
    assert median_ci(list(range(1, 1001))) == (469.0, 532.0)  # ranks floor(500 - 31.0) and ceil(501 + 31.0)
    assert median_ci([5.0, 1.0, 3.0]) == (1.0, 5.0)  # too few for 95 %: the range


def test_stability_warnings_fire_at_their_documented_thresholds():
    def warnings_for(**changes: object) -> list[str]:
        stats = Stats(
            n=100,
            median_ns=100.0,
            mean_ns=100.0,
            std_ns=5.0,
            min_ns=50.0,
            max_ns=500.0,
            p10_ns=90.0,
            p25_ns=95.0,
            p75_ns=104.99,
            p90_ns=110.0,
            p99_ns=200.0,
            iqr_ns=9.99,
            outliers=25,
            outlier_rule="1.5*IQR (Tukey)",
            ci95_median_ns=(95.0, 105.0),
        )
        return stability_warnings(msgspec.structs.replace(stats, **changes), [])

    assert warnings_for() == []  # just inside every threshold
    assert [w.split(":")[0] for w in warnings_for(iqr_ns=10.0)] == ["unstable"]  # IQR at 10 % of the median
    assert warnings_for(outliers=26)[0].startswith("26 outliers (26 % of samples")  # more than a quarter
    assert (
        warnings_for(ci95_median_ns=(94.9, 105.0))[0] == "imprecise: 95 % CI of the median reaches ±5 % of the median"
    )
    assert warnings_for(n=19, outliers=0)[0] == "only 19 samples: at least 20 are needed for reliable figures"
    assert warnings_for(median_ns=0.0, iqr_ns=0.0, outliers=0, ci95_median_ns=(0.0, 0.0)) == []  # no 0/0 spread


def test_bootstrap_medians_of_an_even_sample_average_the_middle_pair():
    assert ratio_ci([2.0] * 4, [1.0] * 4) == (2.0, 2.0, 2.0)
    assert ratio_ci([1.0, 3.0], [1.0, 1.0])[0] == 2.0


def test_identical_samples_give_no_evidence_of_a_difference():
    assert mann_whitney_p([5.0, 5.0, 5.0], [5.0, 5.0, 5.0]) == 1.0
    assert mann_whitney_p([5.0], [5.0]) == 1.0


def test_a_ratio_of_a_thousand_or_more_is_never_in_exponent_form():
    """A recompiling variant's ratio read "973× [884–1.06e+03]" in the report's per-call table."""
    from tuiperf.common.units import ratio_with_interval, sig3

    assert ratio_with_interval(973.0, 884.0, 1060.4) == "973× [884–1,060]"
    assert [sig3(x) for x in (999.4, 999.6, 12_345.0)] == ["999", "1,000", "12,300"]
