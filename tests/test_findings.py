"""Findings only beyond noise (issue 52): one rule (tuiperf/results/findings.py) for every display.

Scenario: the same code measured twice, as an A/A pair. In one process the medians land 0.3 % apart
with a ratio interval that holds 1, while Mann-Whitney over the samples (which differ in shape) reads
p < 1e-6; in two processes (the same interpreter added twice with --env) the medians land 1.8 % apart
with an interval of one process each that excludes 1. Neither is a finding, and no p beside them says
otherwise."""

from __future__ import annotations

import msgspec
from rich.console import Console

from tests.factories import header, variant
from tuiperf.cli.report import latency
from tuiperf.results import document
from tuiperf.results.covers import PROCESSES, ROUNDS
from tuiperf.results.environments import changes
from tuiperf.results.export import markdown
from tuiperf.results.findings import agreeing_p, comparison_finding, is_finding, p_cell
from tuiperf.results.model import Comparison, EnvironmentRun, Interval, RunResult
from tuiperf.results.verdict import verdicts
from tuiperf.tui.environment_lines import environment_lines
from tuiperf.tui.widgets.stats_table import stats_content


def _rounds(n: int, per: int = 25) -> list[int]:
    return list(range(0, n, per))


def _samples(median: float, n: int, spread: float) -> list[float]:
    return [median * (1 + spread * (((i * 7919) % 101) / 50 - 1)) for i in range(n)]


def _one_process_aa() -> RunResult:
    """Two identical variants in one run: equal medians, one narrower than the other (a shape difference
    Mann-Whitney flags over thousands of samples)."""
    a = _samples(10_000.0, 4000, 0.01)
    b = _samples(10_000.0, 4000, 0.05)
    b = sorted(b)[: len(b) // 2] + [x * 1.0 for x in sorted(b)[len(b) // 2 :]]
    variants = [variant("first", a, round_starts=_rounds(4000)), variant("second", b, round_starts=_rounds(4000))]
    result = document.run_result(header(), variants, duration_s=1.0)
    row = result.comparisons[0]
    # The stored comparison of an A/A pair like the issue's: a ratio interval that holds 1, p < 1e-6.
    fixed = Comparison(a=row.a, b=row.b, ratio=1.003, ci95=(0.995, 1.011), p_value=1e-9, interval=row.interval)
    return msgspec.structs.replace(result, comparisons=[fixed])


def _two_processes_aa() -> RunResult:
    a = variant("step @ one", _samples(10_000.0, 2000, 0.02), round_starts=_rounds(2000))
    b = variant("step @ two", _samples(10_180.0, 2000, 0.02), round_starts=_rounds(2000))
    a = msgspec.structs.replace(a, environment="one")
    b = msgspec.structs.replace(b, environment="two")
    result = document.run_result(header(), [a, b], duration_s=1.0)
    result.environments = [EnvironmentRun(name="one", python="/py"), EnvironmentRun(name="two", python="/py")]
    return result


def test_the_rule():
    assert not is_finding((0.99, 1.02))
    assert is_finding((1.01, 1.03))
    assert not is_finding((1.01, 1.03), ROUNDS, two_processes=True)  # two processes, the process part left out
    assert is_finding((1.01, 1.03), PROCESSES, two_processes=True)
    assert agreeing_p(1e-9, finding=False) is None and agreeing_p(0.4, finding=False) == 0.4
    assert agreeing_p(1e-9, finding=True) == 1e-9 and agreeing_p(0.3, finding=True) is None
    assert p_cell(1e-9, finding=False) == "—"


def test_a_p_below_1e_6_is_never_shown_beside_an_interval_that_holds_one():
    result = _one_process_aa()
    row = result.comparisons[0]
    assert row.ci95[0] <= 1 <= row.ci95[1] and row.p_value < 1e-6
    console = Console(width=160, record=True)
    for part in latency(result, 160, console):
        console.print(part)
    report = console.export_text()
    assert "< 1e-6" not in report and "1.00× [0.995–1.01]" in report
    assert "< 1e-6" not in markdown(result)
    content = stats_content(result, "first", 160)
    shown = "\n".join(str(cells[4]) for _, cells in content.rows)
    assert "< 1e-6" not in shown
    assert "differ in shape" not in str(content.verdicts) and "< 1e-6" not in str(content.verdicts)
    assert verdicts(result, "first")[0][1].startswith("second and first take the same time within noise")


def test_an_aa_pair_of_two_processes_is_not_a_finding_without_the_process_part():
    result = _two_processes_aa()
    (change,) = changes(result)
    lo, hi = change.ci95
    assert 1 < lo < 1.018 < hi and change.interval is not None and change.interval.covers == ROUNDS
    assert change.p_value < 1e-6  # Mann-Whitney over 4,000 samples 1.8 % apart
    assert not change.finding
    sentence = change.sentence()
    assert "1.8 % slower in these two processes, undecided" in sentence and ", p" not in sentence
    assert "p < 1e-6" not in markdown(result)
    lines = "\n".join(str(line) for line in environment_lines(result, 160))
    assert "undecided (one process each)" in lines and "< 1e-6" not in lines
    (why,) = [s for name, s in verdicts(result, "step @ one") if name == "step @ two"]
    assert "in these two processes, undecided" in why
    # With the process part in its interval the same gap is a finding, and its p agrees.
    covered = msgspec.structs.replace(
        result.comparisons[0], interval=Interval(covers=PROCESSES, processes="this machine's calibration")
    )
    result.comparisons = [covered]
    assert comparison_finding(result, covered)
    assert "p < 1e-6" in changes(result)[0].sentence()


def test_the_statistics_tab_does_not_say_ok_for_a_variant_that_compiled_on_every_sample():
    """Issue 52: a variant whose every sample compiled read "ok" in the Statistics tab."""
    samples = _samples(10_000.0, 40, 0.01)
    steady_one = variant("stable", samples)
    recompiling = variant("recompiling", [x * 300 for x in samples], retraces=40, recompiles=40)
    result = document.run_result(header(), [steady_one, recompiling], duration_s=1.0)
    content = stats_content(result, "stable", 200)
    status = {name: str(cells[5]) for name, cells in content.rows}
    assert status == {"stable": "ok", "recompiling": "compiled 40× while timed"}


def test_the_comparison_screens_verdict_follows_the_rule():
    """Two stored runs are two processes: an interval over each run's rounds only is no finding."""
    from tuiperf.tui.screens.comparison import verdict

    assert str(verdict(1.06, 1.10, finding=False)) == "undecided (one process each)"
    assert str(verdict(1.06, 1.10, finding=True)) == "slower"
    assert str(verdict(0.98, 1.02, finding=False)) == "same"
