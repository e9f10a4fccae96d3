"""The pure view of a result (tuiperf.tui.view): what each panel gets, without Textual."""

from __future__ import annotations

import factories
import msgspec

from tuiperf.results import document
from tuiperf.results.model import Mode
from tuiperf.tui.view import view_of


def test_nothing_measured_yet():
    view = view_of(None, ["a", "b"])
    assert view.shown is None and view.order == ["a", "b"] and view.series == {} and view.warning_count == 0


def test_a_run_gives_series_medians_cluster_marks_and_a_header():
    result = factories.result({"a": factories.steady(1000), "b": factories.steady(3000)}, params={"n": 4})
    modes = [Mode(center_ns=2900.0, fraction=0.9), Mode(center_ns=5000.0, fraction=0.01)]
    b = result.variants[1]
    result.variants[1] = msgspec.structs.replace(b, sampling=msgspec.structs.replace(b.sampling, modes=modes))
    failed = factories.variant("c", status="failed", error="boom")
    result.variants.append(failed)
    view = view_of(result)
    assert view.order == ["a", "b", "c"] and set(view.series) == {"a", "b"}
    assert view.medians["b"] == result.variants[1].sampling.stats.median_ns
    assert view.marks == [1000.0, 2900.0]  # cluster centres (one per unimodal variant); a 1 % cluster is not
    assert view.header == "s · cpu:0 · sync dispatch · n=4" and view.note == ""


def test_a_sweep_shows_its_last_point_labelled_with_its_value():
    points = [factories.result({"a": factories.steady(m)}, params={"n": n}) for n, m in ((1, 1000), (8, 4000))]
    sweep = document.sweep_result(
        "n", [1, 8], points, factories.header(params={"n": 1}), duration_s=2.0, warnings=["sweep stopped early"]
    )
    sweep.partial = True
    view = view_of(sweep)
    assert view.shown is not None and view.shown.params["n"] == 8
    assert view.note == "PARTIAL (n=8)" and view.shown.partial and view.sweep is sweep.sweep
    assert view.medians["a"] == points[1].variants[0].sampling.stats.median_ns
    assert ("warning", "sweep stopped early") in view.warnings and "n=8" in view.header


def test_a_partial_result_says_whether_it_was_cancelled_or_crashed():
    from tuiperf.results.model import Crash
    from tuiperf.tui.view import partial_cause

    header = factories.header()
    crash = Crash(how="was killed by SIGSEGV", variant="a", phase="sample")
    crashed = document.after_crash(header, [], {"a": [1.0, 2.0]}, ["a"], crash, duration_s=1.0)
    assert partial_cause(crashed) == "crashed"
    timed_out = document.after_crash(
        header, [], {}, ["a"], Crash(how="did not return within 3 s", variant="a"), duration_s=1.0
    )
    assert partial_cause(timed_out) == "timed out"
    cancelled = factories.result({"a": factories.steady(1000)})
    cancelled.partial = True
    assert partial_cause(cancelled) == "cancelled"
