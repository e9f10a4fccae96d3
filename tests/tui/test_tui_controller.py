"""The run controller without an app: a fake runner, news collected in a list, threads started by
hand, a fake timer and clock. GIVEN runs started and news arriving in some order, THEN what the UI is
told and what it drops."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import Callable

import factories
import pytest

from tuiperf.common.errors import ParamError
from tuiperf.contract.events import Progress, RunStarted, SamplesAdded
from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.tui.controller import (
    LIVE_DELAY_S,
    STREAM_PLOT_S,
    RunBegan,
    RunController,
    RunDone,
    RunError,
    RunNews,
    RunUpdated,
)


class ScriptedRunner:
    """Streams two samples, then returns ``answer`` (or raises it); records the cancel flags."""

    def __init__(self, answer: object) -> None:
        self.answer = answer
        self.cancels: list[threading.Event] = []

    def catalog(self, scenario_dirs=None):
        return {"dirs": [], "scenarios": [], "broken": []}

    def cached_catalog(self, scenario_dirs=None):
        return None

    def devices(self):
        return []

    def run(self, request, on_event=None, cancel=None):
        self.cancels.append(cancel)
        on_event(RunStarted(request.scenario, ["a"], "cpu:0", "sync"))
        on_event(SamplesAdded("a", [1000.0, 1100.0]))
        on_event(Progress(0.5, 0.1, 0.1, {"a": 1050.0}, {"a": 2}))
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


class FakeTimer:
    def __init__(self, delay_s: float, fn: Callable[[], None]) -> None:
        self.delay_s, self.fn, self.stopped = delay_s, fn, False

    def stop(self) -> None:
        self.stopped = True


class Harness:
    def __init__(self, answer: object) -> None:
        self.runner = ScriptedRunner(answer)
        self.threads: list[Callable[[], None]] = []  # started, not yet run
        self.posted: list[RunNews] = []
        self.timers: list[FakeTimer] = []
        self.reruns = 0
        self.now = 100.0
        self.runs = RunController(
            self.runner,
            start_thread=self.threads.append,
            post=self.posted.append,
            schedule=self.schedule,
            rerun=self.rerun,
            clock=lambda: self.now,
        )

    def schedule(self, delay_s: float, fn: Callable[[], None]) -> FakeTimer:
        self.timers.append(FakeTimer(delay_s, fn))
        return self.timers[-1]

    def rerun(self) -> None:
        self.reruns += 1

    def run_thread(self, index: int = 0) -> list[RunNews]:
        """Run a started thread to its end; what the UI keeps of its news (the rest is dropped)."""
        before = len(self.posted)
        self.threads.pop(index)()
        return [kept for news in self.posted[before:] if (kept := self.runs.receive(news)) is not None]


def request() -> RunRequest:
    return RunRequest("s", {"n": 3}, variants=["a"], settings=RunSettings(dispatch="sync"))


def test_a_run_streams_its_progress_and_ends_with_its_result():
    result = factories.result({"a": factories.steady(1000.0)})
    h = Harness(result)
    state = h.runs.start(request())
    assert h.runs.running and state.header == "s · first device · sync dispatch · n=3" and state.variants == ["a"]
    kept = h.run_thread()
    assert [type(n) for n in kept] == [RunBegan, RunUpdated, RunUpdated, RunUpdated, RunDone]
    assert kept[-1].result is result and not h.runs.running
    assert state.samples == {"a": [1000.0, 1100.0]} and state.counts == {"a": 2}


def test_a_superseded_runs_late_news_is_dropped_and_the_run_was_cancelled():
    h = Harness(factories.result({"a": factories.steady(1000.0)}))
    h.runs.start(request())  # A
    h.runs.start(request())  # B, while A's thread has not finished
    h.threads.pop(0)()  # A runs to its end after B started: all its news is stale
    assert h.runner.cancels[0].is_set()
    assert [n for n in h.posted if h.runs.receive(n) is not None] == []
    assert h.runs.running  # B still measures
    assert [type(n) for n in h.run_thread()][-1] is RunDone and not h.runs.running
    assert {n.run_id for n in h.posted} == {1, 2}


@pytest.mark.parametrize(
    ("answer", "title", "message"),
    [
        (ParamError("size below the minimum 1", where="size"), "Invalid parameter", "size below the minimum 1"),
        (RuntimeError("boom"), "Run failed", "RuntimeError: boom"),
    ],
)
def test_a_runner_that_raises_ends_the_run_with_one_error(answer, title, message):
    h = Harness(answer)
    h.runs.start(request())
    *_, last = h.run_thread()
    assert isinstance(last, RunError) and (last.title, last.message) == (title, message)
    assert not h.runs.running and last.partial is None


def test_a_run_whose_process_stopped_ends_with_the_partial_result():
    partial = factories.result({"a": factories.steady(1000.0)})
    partial.error = "the measuring process died (signal 6)"
    h = Harness(partial)
    h.runs.start(request())
    *_, last = h.run_thread()
    assert isinstance(last, RunError) and last.title == "Run failed" and last.partial is partial


def test_cancel_sets_the_runs_flag_and_says_whether_a_run_was_measuring():
    h = Harness(factories.result({"a": [1.0]}))
    assert h.runs.cancel() is False
    h.runs.start(request())
    h.threads.pop()()  # the runner has the flag now
    assert h.runs.cancel() is True and h.runner.cancels[0].is_set()


def test_live_mode_reruns_once_after_the_last_change_and_not_for_an_invalid_form():
    h = Harness(None)
    for _ in range(3):  # three keys typed
        h.runs.form_changed(can_run=True)
    assert [t.stopped for t in h.timers] == [True, True, False] and h.timers[-1].delay_s == LIVE_DELAY_S
    h.timers[-1].fn()
    assert h.reruns == 1 and not h.runs.live_rerun.pending
    h.runs.form_changed(can_run=True)
    h.runs.form_changed(can_run=False)  # a value that cannot run: the pending re-run goes
    assert h.timers[-1].stopped and not h.runs.live_rerun.pending and h.reruns == 1


def test_the_streamed_histogram_is_redrawn_only_after_new_samples_and_not_too_often():
    h = Harness(factories.result({"a": [1.0]}))
    assert not h.runs.plot_due()  # nothing is running
    h.runs.start(request())
    assert not h.runs.plot_due()  # no samples yet
    h.runs.receive(RunUpdated(1, h.runs.state))
    assert h.runs.plot_due() and not h.runs.plot_due()  # drawn: nothing new since
    h.runs.receive(RunUpdated(1, h.runs.state))
    h.now += STREAM_PLOT_S / 2
    assert not h.runs.plot_due()  # too soon
    h.now += STREAM_PLOT_S / 2
    assert h.runs.plot_due()
    h.runs.receive(RunUpdated(0, h.runs.state))  # a superseded run's samples do not count
    h.now += STREAM_PLOT_S
    assert not h.runs.plot_due()


def test_waiting_for_the_end_returns_when_the_run_ends_or_none_will_run():
    async def scenario() -> None:
        h = Harness(factories.result({"a": [1.0]}))
        waiting = asyncio.ensure_future(h.runs.wait_for_end(5))
        h.runs.start(request())
        await asyncio.sleep(0)
        assert not waiting.done()
        h.run_thread()
        await waiting
        h.runs.start(request())
        with pytest.raises(TimeoutError):
            await h.runs.wait_for_end(0.01)  # this run has not ended
        h.runs.nothing_will_run()  # a run is measuring: that says nothing about it
        assert h.runs.running
        fresh = Harness(None)
        fresh.runs.nothing_will_run()  # the launch's scenario is unknown
        await fresh.runs.wait_for_end(5)

    asyncio.run(scenario())


def test_the_controller_and_the_catalog_feed_import_no_textual():
    code = (
        "import sys, tuiperf.tui.controller, tuiperf.tui.catalog_feed, tuiperf.tui.shell\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_a_grid_over_every_parameter_has_no_empty_part_in_its_header():
    from tuiperf.tui.controller import run_header

    grid = RunRequest("s", params={}, sweep=("size", [4, 8]), grid=("scale", [1.0, 2.0]), device="cpu:0")
    assert run_header(grid) == "s · cpu:0 · sync dispatch · grid over size × scale (4 cells)"
    one = RunRequest("s", params={"n": 3}, device="cpu:0")
    assert run_header(one) == "s · cpu:0 · sync dispatch · n=3"
