"""The pytest plugin: a verdict against a committed baseline, and a sample project that uses it."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests import factories
from tuiperf.results import baseline
from tuiperf.results.baseline import Entry, Figure

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
PROJECT = Path(__file__).resolve().parent / "plugin_project"


def entry(**figures: tuple[float, float, float]) -> Entry:
    return Entry(
        scenario="s",
        device="cpu",
        dispatch="sync",
        variants={name: Figure(median_ns=m, low_ns=lo, high_ns=hi) for name, (m, lo, hi) in figures.items()},
    )


def test_a_variant_fails_only_when_its_whole_interval_lies_above_the_threshold() -> None:
    old = entry(a=(100.0, 99.0, 101.0), b=(100.0, 99.0, 101.0), c=(100.0, 99.0, 101.0))
    new = entry(a=(120.0, 119.0, 121.0), b=(111.0, 105.0, 117.0), c=(101.0, 100.0, 102.0))
    checks = {c.variant: c for c in baseline.judge("t", old, new, 10.0, {})}
    assert checks["a"].verdict == "regressed" and checks["a"].low is not None and checks["a"].low > 1.1
    assert checks["b"].verdict == "ok"  # 1.11 × but its interval reaches below 1.10
    assert checks["c"].verdict == "ok"
    message = checks["a"].message()
    assert message.startswith("a is slower than its baseline: new/baseline 1.200× [1.184–1.216] (95 % interval)")
    assert "wholly above the threshold 1.100× (+10 %)" in message
    strict = {c.variant: c.verdict for c in baseline.judge("t", old, new, 10.0, {"b": 2.0})}  # per variant
    assert strict == {"a": "regressed", "b": "regressed", "c": "ok"}


def test_no_baseline_or_another_setting_is_said_and_never_fails() -> None:
    new = entry(a=(120.0, 119.0, 121.0))
    assert [c.verdict for c in baseline.judge("t", None, new, 10.0, {})] == ["new"]
    other = Entry(scenario="s", params={"n": "4"}, device="cpu", dispatch="sync", variants=new.variants)
    (check,) = baseline.judge("t", other, new, 10.0, {})
    assert check.verdict == "not comparable" and "parameter n 4 → —" in check.note


def test_relative_figures_are_ratios_to_the_reference_in_the_same_run() -> None:
    result = factories.result({"ref": factories.steady(1000.0), "x": factories.steady(1500.0)})
    figures = baseline.entry_of(result, "ref")
    assert figures.relative_to == "ref" and list(figures.variants) == ["x"]
    x = figures.variants["x"]
    assert x.median_ns == pytest.approx(1.5, rel=1e-3) and x.low_ns < 1.5 < x.high_ns
    reverse = baseline.entry_of(result, "x").variants["ref"]
    assert reverse.median_ns == pytest.approx(1 / 1.5, rel=1e-3)
    absolute = baseline.entry_of(result)
    assert absolute.variants["x"].median_ns == pytest.approx(1500.0, rel=1e-3)


def test_the_baseline_file_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    baseline.saved(path, "t::s", entry(a=(1.0, 0.9, 1.1)))
    baseline.saved(path, "t2::s", entry(a=(2.0, 1.9, 2.1)))
    assert list(baseline.read(path).tests) == ["t2::s", "t::s"] or list(baseline.read(path).tests) == ["t::s", "t2::s"]
    assert baseline.read(path).tests["t2::s"].variants["a"].median_ns == 2.0
    assert baseline.read(tmp_path / "none.json").tests == {}


def test_the_plugin_is_registered_and_cheap_to_load() -> None:
    """The pytest11 entry point names it; at import it needs pytest and the standard library only."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    module = project["project"]["entry-points"]["pytest11"]["tuiperf"]
    assert module == "tuiperf.cli.pytest_plugin"
    tree = ast.parse((ROOT / "tuiperf" / "cli" / "pytest_plugin.py").read_text())
    top_level = set()
    for node in tree.body:  # imports inside functions and under TYPE_CHECKING are not run at load
        if isinstance(node, ast.Import):
            top_level |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            top_level.add(node.module.split(".")[0])
    assert top_level <= {"__future__", "contextlib", "json", "collections", "pathlib", "typing", "pytest"}


def test_one_measurement_at_a_time_across_workers(tmp_path: Path) -> None:
    """While one worker holds the lock, another's try fails at once; after, it succeeds."""
    import fcntl

    from tuiperf.cli.pytest_plugin import exclusive

    path = tmp_path / "b.json.lock"

    def try_lock() -> bool:
        with open(path, "a+b") as other:
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            fcntl.flock(other, fcntl.LOCK_UN)
            return True

    with exclusive(path):
        assert not try_lock()
    assert try_lock()


FAKE_TESTS = """
import pytest

def test_aa(tuiperf):
    tuiperf.check("plugin-demo", variants=["same"], relative_to="steady")

@pytest.mark.tuiperf(threshold=5)
def test_slowed(tuiperf):
    tuiperf.check("plugin-demo", variants=["slowed"], relative_to="steady")
"""


class FakeRunner:
    """A runner whose results are made up here: ``slowed`` takes DEMO_SLOWDOWN times ``steady``'s time."""

    def run(self, request):
        slowdown = float(os.environ.get("DEMO_SLOWDOWN", "1"))
        times = {"steady": 50_000.0, "same": 50_000.0, "slowed": 50_000.0 * slowdown}
        names = request.variants or ["steady", "same", "slowed"]
        return factories.result({name: factories.steady(times[name]) for name in names}, scenario=request.scenario)

    def close(self) -> None:
        pass


def test_save_then_check_in_one_process(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugin's whole path, save then check, with made-up measurements (no process started)."""
    from tuiperf.cli import pytest_plugin

    monkeypatch.setattr(pytest_plugin.State, "runner", lambda self: FakeRunner())
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # the inner sessions load this plugin alone
    pytester.makepyfile(test_demo=FAKE_TESTS)
    plugin = ["-p", "no:cacheprovider"]
    saved = pytester.runpytest_inprocess(*plugin, "--tuiperf-save", plugins=[pytest_plugin])
    saved.assert_outcomes(passed=2)
    assert saved.outlines[-3].startswith("baseline saved in ") or any("baseline saved in" in x for x in saved.outlines)
    stored = json.loads((pytester.path / "tuiperf-baseline.json").read_text())
    assert stored["tests"]["test_demo.py::test_aa::plugin-demo"]["variants"]["same"]["median_ns"] == 1.0

    monkeypatch.setenv("DEMO_SLOWDOWN", "1.2")
    checked = pytester.runpytest_inprocess(*plugin, "--tuiperf-json", "run.json", plugins=[pytest_plugin])
    checked.assert_outcomes(passed=1, failed=1)
    checked.stdout.fnmatch_lines(
        [
            "*tuiperf: slowed's ratio to steady is slower than its baseline: new/baseline 1.200× [[]1.1*–1.2*[]] "
            "(95 % interval), wholly above the threshold 1.050× (+5 %)",
            "*- tuiperf -*",
            "test*variant*baseline*now*new/baseline [[]95% CI[]]*threshold*verdict*",
            "test_demo.py::test_aa::plugin-demo*same*1.000× steady*1.000× steady*1.000×*+10 %*ok*",
            "test_demo.py::test_slowed::plugin-demo*slowed*1.000× steady*1.200× steady*1.200×*+5 %*regressed*",
        ]
    )
    report = json.loads((pytester.path / "run.json").read_text())
    assert [(t["test"], t["outcome"], [c["verdict"] for c in t["checks"]]) for t in report["tests"]] == [
        ("test_demo.py::test_aa", "passed", ["ok"]),
        ("test_demo.py::test_slowed", "failed", ["regressed"]),
    ]

    pytester.makepyfile(test_demo='def test_typo(tuiperf):\n    tuiperf.check("plugin-demo", relative_to="stedy")\n')
    typo = pytester.runpytest_inprocess(*plugin, plugins=[pytest_plugin])
    typo.assert_outcomes(failed=1)
    typo.stdout.fnmatch_lines(["*tuiperf: relative_to='stedy' is not a variant of plugin-demo (*)*"])


@pytest.mark.slow
def test_sample_project_passes_its_aa_check_and_fails_the_variant_slowed_by_20_percent(tmp_path: Path) -> None:
    """The sample project, measured for real against the baseline it commits (the ratios to ``steady``
    were recorded here; the same work is the same ratio on any machine)."""
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "DEMO_SLOWDOWN": "1.2"}  # -p loads it
    # 1 s, not 0.3: beside the suite's other workers a 0.3 s run once read slowed's new/baseline 1.130×
    # [0.823–2.013] (too few rounds to rule out a busy spell): "ok" where the 20 % slowdown should fail.
    command = [sys.executable, "-m", "pytest", "-p", "tuiperf.cli.pytest_plugin", "--tuiperf-budget", "1.0"]
    slowed = subprocess.run(
        [*command, "--tuiperf-json", "run.json"], cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    out = slowed.stdout
    assert slowed.returncode == 1, out + slowed.stderr
    assert "1 failed, 1 passed" in out and "FAILED test_demo_perf.py::test_slowed" in out
    assert re.search(
        r"tuiperf: slowed's ratio to steady is slower than its baseline: new/baseline 1\.\d{3}× "
        r"\[1\.\d{3}–1\.\d{3}\] \(95 % interval\), wholly above the threshold 1\.050× \(\+5 %\)",
        out,
    )
    assert "- tuiperf -" in out and "new/baseline [95% CI]" in out  # the summary table
    rows = [line for line in out.splitlines() if line.startswith("test_demo_perf.py::")]
    assert [row.split()[1] for row in rows] == ["same", "slowed"] and rows[0].rstrip().endswith("ok")
    assert rows[1].rstrip().endswith("regressed")
    report = json.loads((project / "run.json").read_text())
    verdicts = {t["test"]: [c["verdict"] for c in t["checks"]] for t in report["tests"]}
    assert verdicts == {"test_demo_perf.py::test_aa": ["ok"], "test_demo_perf.py::test_slowed": ["regressed"]}
