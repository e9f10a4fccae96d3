"""Pure helpers of the TUI: parameter specs from the catalog, sweep values, histogram binning."""

from __future__ import annotations

import factories
import pytest

from tuiperf.api.params import Choice, Int
from tuiperf.common.errors import ParamError
from tuiperf.contract.catalog import ParamSpec
from tuiperf.tui.formatting import bin_counts, downsample, format_ns, histogram_range, split_values, suggest_sweep
from tuiperf.tui.view import collect_warnings
from tuiperf.tui.widgets.breakdown import stacked_bar
from tuiperf.tui.widgets.stats_table import ratio_against


def test_param_from_the_catalog_validates_like_the_core():
    spec = ParamSpec(name="width", kind="int", default=64, min=1, max=8192, help="h").to_param()
    assert isinstance(spec, Int) and spec.parse("1_024") == 1024
    with pytest.raises(ParamError, match="below the minimum 1"):
        spec.parse("0")
    choice = ParamSpec(name="k", kind="choice", default="a", choices=["a", "b"]).to_param()
    assert isinstance(choice, Choice) and choice.parse("b") == "b"


def test_sweep_suggestions_are_valid_values():
    spec = ParamSpec(name="n", kind="int", default=8, min=1, max=64).to_param()
    values = [spec.parse(v) for v in split_values(suggest_sweep(spec))]
    assert len(values) >= 3 and max(values) <= 64
    assert split_values("1, 2 4;8") == ["1", "2", "4", "8"]


def test_bimodal_samples_keep_two_peaks():
    samples = [100.0] * 600 + [200.0] * 400 + [10_000.0]  # one far outlier
    lo, hi = histogram_range({"a": samples})
    assert lo <= 100 and 200 <= hi < 10_000
    centres, fractions, outside = bin_counts(samples, lo, hi, 20)
    peaks = [c for c, f in zip(centres, fractions) if f > 0.3]
    assert len(peaks) == 2 and outside == 1
    assert abs(sum(fractions) - 1000 / 1001) < 1e-9


def test_bins_are_half_open_and_the_last_holds_hi():
    # bins [0, 1), [1, 2), [2, 3), [3, 4]: edges go up, hi stays in, anything beyond lo..hi is outside
    centres, fractions, outside = bin_counts([-0.5, 0.0, 0.99, 1.0, 2.5, 4.0, 4.01], 0.0, 4.0, 4)
    assert centres == [0.5, 1.5, 2.5, 3.5]
    assert [round(f * 7) for f in fractions] == [2, 1, 1, 1] and outside == 2


def test_log_bins_are_spaced_by_decade():
    values = [1.0, 5.0, 10.0, 50.0, 99.0, 100.0, 0.0]  # zero has no logarithm: outside
    centres, fractions, outside = bin_counts(values, 1.0, 100.0, 2, log=True)
    assert [round(c, 6) for c in centres] == [round(10**0.5, 6), round(10**1.5, 6)]
    assert [round(f * 7) for f in fractions] == [2, 4] and outside == 1


def test_downsample_and_format():
    assert downsample(list(range(100_000)), 500) == list(range(0, 100_000, 200))
    assert downsample([1, 2, 3], 5) == [1, 2, 3]
    assert format_ns(12_300) == "12.3 µs" and format_ns(None) == "—"


def test_ratio_uses_comparisons_or_inverts_them():
    import msgspec

    from tuiperf.results.model import Comparison

    result = factories.result({"a": [2.0] * 30, "b": [1.0] * 30})
    result = msgspec.structs.replace(
        result, comparisons=[Comparison(a="a", b="b", ratio=2.0, ci95=(1.8, 2.2), p_value=0.001)]
    )
    assert ratio_against(result, "a", "b") == (2.0, (1.8, 2.2), 0.001)
    ratio, ci, _ = ratio_against(result, "b", "a")
    assert ratio == 0.5 and ci[0] == pytest.approx(1 / 2.2) and ci[1] == pytest.approx(1 / 1.8)


def test_stacked_bar_shows_every_part():
    from tuiperf.results.model import Breakdown, Stage

    parts = {"framework": 1.0, "jit_dispatch": 100.0, "launch": 5000.0, "compute": 1000.0}
    breakdown = Breakdown(
        stages={k: Stage(ns=v) for k, v in parts.items()}, call_ns=6101.0, total_ns=6101.0, residual_ns=0.0
    )
    bar = stacked_bar(breakdown, 100.0, 62)
    assert 60 <= len(bar.plain) <= 62


def test_warnings_show_the_results_own_list_once_then_notes():
    from factories import header

    from tuiperf.results import document
    from tuiperf.results.model import Equivalence, Mismatch

    failed = factories.variant("a", status="failed", error="tiny.py:3: ValueError: boom")
    skipped = factories.variant("c", status="skipped", notes=["inox is not installed"])
    noted = factories.variant("b", notes=["closures bake weights in"])
    warnings = [
        "partial result: cancelled",
        "b does not compute the same thing as a: XLA FLOPs",
        "a failed: tiny.py:3: ValueError: boom",
        "b: multi-modal: clusters at 1 µs, 5 µs",
    ]
    result = document.run_result(
        header(),
        [failed, skipped, noted],
        duration_s=1.0,
        warnings=warnings,
        equivalence=Equivalence(
            mismatches=[Mismatch(a="b", b="a", quantity="XLA FLOPs", detail="")],
            notes=["c and a: same result, different programs (0.715× the XLA FLOPs: 506 FLOP vs 708 FLOP)"],
        ),
    )
    items = collect_warnings(result)
    assert [t for _, t in items][:4] == warnings  # the core's order, nothing repeated
    severity = dict((t, s) for s, t in items)
    assert severity["a failed: tiny.py:3: ValueError: boom"] == "error"
    assert severity["b does not compute the same thing as a: XLA FLOPs"] == "error"
    assert severity["b: multi-modal: clusters at 1 µs, 5 µs"] == "warning"
    assert ("info", "c: skipped — inox is not installed") in items
    assert ("info", "b: closures bake weights in") in items
    assert (
        "info",
        "guard: c and a: same result, different programs (0.715× the XLA FLOPs: 506 FLOP vs 708 FLOP)",
    ) in items


def test_guard_findings_come_from_the_structured_mismatches():
    from tuiperf.results.model import Equivalence, Mismatch

    equivalence = Equivalence(mismatches=[Mismatch(a="linen", b="eqx-vmap", quantity="XLA FLOPs", detail="")])
    assert equivalence.differs("linen")
    assert not equivalence.differs("eqx-vmap")  # the reference is not the one that differs
    assert not Equivalence().differs("linen")


def test_live_state_folds_events_and_says_which_are_urgent():
    from tuiperf.contract.events import PhaseChanged, Progress, RunStarted, SamplesAdded, VariantFinished
    from tuiperf.tui.run_state import RunState

    live = RunState(run_id=1)
    assert live.apply(RunStarted("s", ["a", "b"], "cpu:0", "sync")) is True
    assert live.apply(SamplesAdded("a", [1.0, 2.0])) is False
    assert live.apply(SamplesAdded("a", [3.0])) is False
    assert live.apply(Progress(0.5, 1.0, 1.0, {"a": 2.0}, {"a": 3})) is False
    assert live.apply(PhaseChanged("breakdown", "a")) is True
    assert live.apply(VariantFinished(factories.variant("a"))) is True
    assert live.snapshot_samples() == {"a": [1.0, 2.0, 3.0]}
    assert live.snapshot_samples(limit=2) == {"a": [1.0, 3.0]} and live.snapshot_samples(limit=3) == {
        "a": [1.0, 2.0, 3.0]
    }
    live.apply(SamplesAdded("a", [float(i) for i in range(4, 101)]))
    assert live.snapshot_samples(limit=10) == {"a": [float(i) for i in range(1, 101, 10)]}  # every 10th
    assert (live.fraction, live.counts, live.phase, list(live.finished_variants)) == (0.5, {"a": 3}, "breakdown", ["a"])
    live.apply(RunStarted("s", ["a", "b"], "cpu:0", "sync", sweep_value=64))  # next pass of a sweep starts clean
    assert live.snapshot_samples() == {} and live.sweep_value == 64


def test_progress_rows_line_up_like_a_table_one_line_each():
    from rich.text import Text

    from tuiperf.tui.widgets.run_progress import estimate_lines

    rows = [
        [Text("jit"), Text("7.83 µs"), Text("n=400"), Text("done")],
        [Text("broken"), Text("—"), Text("n=0"), Text("FAILED")],
    ]
    assert estimate_lines(rows, more=2).plain.splitlines() == [
        "jit     7.83 µs  n=400  done",
        "broken        —    n=0  FAILED",
        "… 2 more variants (see Statistics, key 4)",
    ]


def test_round_ticks_are_round_and_cover_the_range():
    """The histogram's % axis read 0 9.7 19.3 29.0 38.6 48.3 58.0 (plotext's own, uneven)."""
    from tuiperf.tui.formatting import round_ticks

    assert round_ticks(0, 58.0, most=5) == [0, 20, 40, 60]
    assert round_ticks(0, 0.7, most=5) == [0, 0.2, 0.4, 0.6, 0.8]
    assert round_ticks(0, 100, most=6) == [0, 20, 40, 60, 80, 100]
    assert round_ticks(5, 5) == []
