"""tuiperf in a test suite: the ``tuiperf`` fixture measures a scenario in a measuring process and fails
the test only when a variant's new/baseline interval lies wholly above its threshold.

Registered through the ``pytest11`` entry point (``tuiperf``), so it loads wherever tuiperf is
installed; loading it imports pytest and the standard library only (no JAX, nothing of tuiperf's run
path until a test asks for the fixture)::

    def test_dispatch_floor(tuiperf):
        tuiperf.check("dispatch-floor", params={"n_args": 4}, threshold=10, thresholds={"aot-compiled": 5})

    @pytest.mark.tuiperf(threshold=5)          # the default threshold of the test's checks
    def test_mine(tuiperf):
        tuiperf.check("my-scenario")

Options: ``--tuiperf-save`` records the new figures as the baseline (a file to commit; ``--tuiperf-baseline``
or the ``tuiperf_baseline`` ini value, default ``tuiperf-baseline.json`` in the rootdir); ``--tuiperf-json``
writes the test run's checks for a CI artifact; the summary table is printed at the end of the run.
Scenario folders: the ``scenarios=`` argument, else the ``tuiperf_scenarios`` ini value (folders
relative to the rootdir, default ``scenarios``), besides the built-in ones.

Under pytest-xdist, one measurement at a time: each worker takes an exclusive lock on a file named after
the baseline's path in the temporary folder (``fcntl.flock``) while it measures and while it writes the
baseline, so that workers neither
time each other nor overwrite each other's entries. (Where ``fcntl`` is missing, Windows, there is no
lock: run with ``-n 0``.) The summary and JSON reach the controller with each test's report.

Inline callables are not measured: a measuring process imports only scenario files (nothing pickled
crosses the boundary) and a callable timed inside the test process would share it with pytest.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tuiperf.processes.runner import ProcessRunner
    from tuiperf.results.baseline import Check
    from tuiperf.results.model import RunResult

PROPERTY = "tuiperf"  # the user_properties key a test's checks travel under (to the xdist controller)
DEFAULT_THRESHOLD_PCT = 10.0
DEFAULT_BUDGET_S = 1.0


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tuiperf", "tuiperf: performance checks against a committed baseline")
    group.addoption("--tuiperf-save", action="store_true", help="record the new figures as the baseline")
    group.addoption("--tuiperf-baseline", metavar="FILE", help="the baseline file (default: tuiperf-baseline.json)")
    group.addoption("--tuiperf-json", metavar="FILE", help="write the test run's checks as JSON (a CI artifact)")
    group.addoption("--tuiperf-budget", type=float, metavar="S", help="seconds of sampling per check (default 1)")
    parser.addini("tuiperf_baseline", "the baseline file, relative to the rootdir", default="tuiperf-baseline.json")
    parser.addini("tuiperf_scenarios", "scenario folders, relative to the rootdir", type="paths", default=[])
    parser.addini("tuiperf_threshold", "default threshold in percent", default=str(DEFAULT_THRESHOLD_PCT))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "tuiperf(threshold=PCT, thresholds={variant: PCT}): defaults for the test's tuiperf checks"
    )
    state = config.stash[_STATE] = State(config)
    config.pluginmanager.register(Reporter(state), f"tuiperf-reporter-{id(config)}")


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is not None:
        state.close()


class State:
    """The session's: the measuring processes (one runner, reused), the options, the checks seen."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.save = bool(config.getoption("tuiperf_save"))
        root = Path(config.rootpath)
        given = config.getoption("tuiperf_baseline")
        self.baseline = Path(given) if given else root / str(config.getini("tuiperf_baseline"))
        self.json = config.getoption("tuiperf_json")
        budget = config.getoption("tuiperf_budget")
        self.budget_s = float(budget) if budget is not None else DEFAULT_BUDGET_S
        folders = [Path(p) for p in config.getini("tuiperf_scenarios")] or [root / "scenarios"]
        self.scenario_dirs = [str(f) for f in folders if f.is_dir()]
        self.threshold_pct = float(config.getini("tuiperf_threshold"))
        self.seen: list[
            dict[str, Any]
        ] = []  # one per checked test, as its report carried it (xdist: to the controller)
        self._runner: ProcessRunner | None = None

    def runner(self) -> ProcessRunner:
        if self._runner is None:
            from tuiperf.processes.runner import ProcessRunner

            # A test session does not spend ~35 s calibrating by itself: a kept calibration is used.
            self._runner = ProcessRunner(self.scenario_dirs, calibrate_first=False)
        return self._runner

    def lock(self) -> contextlib.AbstractContextManager[None]:
        """One measurement (or baseline write) at a time across pytest-xdist workers."""
        import hashlib
        import tempfile

        digest = hashlib.sha256(str(self.baseline.resolve()).encode()).hexdigest()[:16]
        return exclusive(Path(tempfile.gettempdir()) / f"tuiperf-baseline-{digest}.lock")

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
            self._runner = None


_STATE = pytest.StashKey[State]()


@contextlib.contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created where missing) meanwhile: every process (and every
    thread, each opening the file anew) that asks waits its turn."""
    try:
        import fcntl
    except ImportError:  # Windows: no lock (the module docstring says to run with -n 0)
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)


class Measure:
    """What the ``tuiperf`` fixture gives a test."""

    def __init__(self, state: State, item: pytest.Item) -> None:
        self.state, self.item = state, item
        marker = item.get_closest_marker("tuiperf")
        self.threshold_pct = float(marker.kwargs.get("threshold", state.threshold_pct)) if marker else None
        self.thresholds: dict[str, float] = dict(marker.kwargs.get("thresholds", {})) if marker else {}
        self.results: list[RunResult] = []

    def measure(
        self,
        scenario: str,
        *,
        params: dict[str, Any] | None = None,
        variants: list[str] | None = None,
        scenarios: list[str | Path] | None = None,
        budget: float | None = None,
        dispatch: str | None = None,
    ) -> RunResult:
        """Measure ``scenario`` (its id) as ``tuiperf run`` would, in a measuring process, one
        measurement at a time across xdist workers; the result, for a test's own assertions."""
        from tuiperf.contract import options
        from tuiperf.contract.request import RunRequest

        settings: dict[str, Any] = {"budget_s": budget or self.state.budget_s, "profile": False}
        if dispatch is not None:
            settings["dispatch"] = dispatch
        dirs = [str(Path(s)) for s in scenarios] if scenarios is not None else self.state.scenario_dirs
        request = RunRequest(
            scenario=scenario,
            params=dict(params or {}),
            variants=variants,
            scenario_dirs=dirs,
            settings=options.parsed(settings),
        )
        options.check(request.settings)
        with self.state.lock():
            result = self.state.runner().run(request)
        self.results.append(result)
        return result

    def check(
        self,
        scenario: str,
        *,
        threshold: float | None = None,
        thresholds: dict[str, float] | None = None,
        relative_to: str | None = None,
        name: str | None = None,
        **measure: Any,
    ) -> list[Check]:
        """Measure ``scenario`` and judge each variant against the baseline: the test fails when a
        variant's new/baseline 95 % interval lies wholly above ``1 + threshold/100`` (``thresholds``:
        per variant). ``relative_to=VARIANT`` judges each other variant's ratio to that one in the same
        interleaved run instead of its time (robust to a machine faster, slower or busier than the
        baseline's). With ``--tuiperf-save`` the new figures become the baseline instead. ``name`` tells
        two checks of one scenario in one test apart."""
        from tuiperf.results import baseline

        if relative_to is not None:
            measure["variants"] = measure.get("variants") and list(dict.fromkeys([relative_to, *measure["variants"]]))
        result = self.measure(scenario, **measure)
        failed = [v for v in result.variants if v.status == "failed"]
        if result.error or failed or not result.variants:
            why = result.error or "; ".join(f"{v.name}: {v.failure.error if v.failure else 'failed'}" for v in failed)
            pytest.fail(f"tuiperf: {scenario} was not measured: {why or 'no variant'}", pytrace=False)
        if relative_to is not None and relative_to not in {v.name for v in result.variants}:
            known = ", ".join(v.name for v in result.variants)
            pytest.fail(f"tuiperf: relative_to={relative_to!r} is not a variant of {scenario} ({known})", pytrace=False)
        key = f"{self.item.nodeid}::{name or scenario}"
        new = baseline.entry_of(result, relative_to or "")
        pct = threshold if threshold is not None else self.threshold_pct
        pct = self.state.threshold_pct if pct is None else pct
        per_variant = {**self.thresholds, **(thresholds or {})}
        if self.state.save:
            with self.state.lock():
                baseline.saved(self.state.baseline, key, new)
            checks = [
                baseline.Check(
                    key,
                    n,
                    "new",
                    per_variant.get(n, pct),
                    new_ns=f.median_ns,
                    note="saved",
                    relative_to=new.relative_to,
                )
                for n, f in new.variants.items()
            ]
        else:
            with self.state.lock():
                old = baseline.read(self.state.baseline).tests.get(key)
            checks = baseline.judge(key, old, new, pct, per_variant)
        self.item.user_properties.append(
            (PROPERTY, json.dumps({"checks": [vars(c) for c in checks], "warnings": list(result.warnings)}))
        )
        regressed = [c for c in checks if c.verdict == "regressed"]
        if regressed:
            busy = [w for w in result.warnings if w.startswith("the machine was busy")]
            caveat = f"\n(note: {busy[0]})" if busy else ""
            pytest.fail("tuiperf: " + "\n".join(c.message() for c in regressed) + caveat, pytrace=False)
        return checks


@pytest.fixture
def tuiperf(request: pytest.FixtureRequest) -> Measure:
    """Measure scenarios and check them against the committed baseline (see :class:`Measure`)."""
    return Measure(request.config.stash[_STATE], request.node)


class Reporter:
    """The session's reports: the checks each test's report carries, the table, the JSON."""

    def __init__(self, state: State) -> None:
        self.state = state

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for key, value in report.user_properties:
            if key == PROPERTY and isinstance(value, str):
                self.state.seen.append({**json.loads(value), "outcome": report.outcome, "test": report.nodeid})

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        if not self.state.seen or hasattr(config, "workerinput"):
            return
        from tuiperf.common.text import one_line

        rows = [["test", "variant", "baseline", "now", "new/baseline [95% CI]", "threshold", "verdict"]]
        for seen in self.state.seen:
            for c in seen["checks"]:
                ratio = "–"
                if c["ratio"] is not None:
                    ratio = f"{c['ratio']:.3f}× [{c['low']:.3f}–{c['high']:.3f}]"
                rows.append(
                    [
                        one_line(c["test"]),
                        one_line(c["variant"]),
                        _figure(c["baseline_ns"], c["relative_to"]),
                        _figure(c["new_ns"], c["relative_to"]),
                        ratio,
                        f"+{c['threshold_pct']:g} %",
                        one_line(c["verdict"] + (f" ({c['note']})" if c["note"] else "")),
                    ]
                )
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        terminalreporter.write_sep("-", "tuiperf")
        for row in rows:
            line = "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
            terminalreporter.write_line(line.rstrip())
        busy = [w for seen in self.state.seen for w in seen["warnings"] if w.startswith("the machine was busy")]
        if busy:
            terminalreporter.write_line(f"⚠ {one_line(busy[0])}")
        if self.state.save:
            terminalreporter.write_line(f"baseline saved in {one_line(self.state.baseline)}")

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        state = self.state
        if not state.json or hasattr(session.config, "workerinput"):
            return
        from tuiperf.common.files import write_atomic
        from tuiperf.common.version import __version__

        document = {
            "tool": "tuiperf",
            "version": __version__,
            "baseline": str(state.baseline),
            "saved": state.save,
            "exit_status": int(exitstatus),
            "tests": state.seen,
        }
        write_atomic(state.json, (json.dumps(document, indent=1) + "\n").encode("utf-8"), force=True)


def _figure(value: float | None, relative_to: str) -> str:
    """A baseline or new figure: a time, or (``relative_to``) a ratio to that variant."""
    from tuiperf.common.text import one_line
    from tuiperf.common.units import format_ns

    if value is None:
        return "–"
    return f"{value:.3f}× {one_line(relative_to)}" if relative_to else format_ns(value)
