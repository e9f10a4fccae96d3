"""A run's lifecycle without Textual: start, stream, cancel, drop a superseded run's news, debounce.

The screen hands the controller three narrow callables instead of itself:

- ``start_thread(fn)`` runs ``fn`` off the UI thread (the screen: a Textual thread worker);
- ``post(news)`` carries a :data:`RunNews` to the UI thread (the screen: ``post_message``), where the
  screen hands it back to :meth:`RunController.receive`, which drops what a superseded run sent;
- ``schedule(delay_s, fn)`` calls ``fn`` later on the UI thread (the screen: ``set_timer``).

So tests drive a run with a fake runner, a list for ``post`` and a fake clock, without an app.
"""

from __future__ import annotations

import asyncio
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from tuiperf.common.errors import TuiperfError
from tuiperf.common.text import inert_data, one_line
from tuiperf.contract.events import Event, RunFailed
from tuiperf.contract.request import Runner, RunRequest
from tuiperf.results.model import RunResult
from tuiperf.tui.run_state import RunState

if TYPE_CHECKING:
    from tuiperf.tui.tab_contents import TabContents
    from tuiperf.tui.view import ResultView

    # What the panels show of a result, made in the run's thread: its view and its tabs' text (None:
    # the panels make their own). Read off the UI thread when the run starts (the baseline, the widths).
    MakeView = Callable[[RunResult], tuple[ResultView, TabContents | None]]

LIVE_DELAY_S = 0.6  # live mode re-runs this long after the last change
# The streamed histogram is rebuilt at most twice a second: its picture is built in a thread, but
# plotext is pure Python and shares the GIL with the event loop (ui_responsiveness.py's lag).
STREAM_PLOT_S = 0.5


@dataclass(frozen=True)
class RunBegan:
    run_id: int
    state: RunState
    sweep: bool = False


@dataclass(frozen=True)
class RunUpdated:
    """Progress, a phase or new samples (the UI reads them from ``state`` at its own pace)."""

    run_id: int
    state: RunState


@dataclass(frozen=True)
class RunDone:
    """A complete (or, after cancel, partial) result document, with what the panels show of it, made in
    the run's thread: its view (texts made inert, series gathered) and its tabs' text."""

    run_id: int
    result: RunResult
    view: ResultView | None = None
    contents: TabContents | None = None


@dataclass(frozen=True)
class RunError:
    """The single way a failure reaches the UI: from the runner, a RunFailed event or a crash."""

    run_id: int
    title: str
    message: str
    where: str | None = None
    partial: RunResult | None = None
    details: str = ""


RunNews = RunBegan | RunUpdated | RunDone | RunError


class Timer(Protocol):
    def stop(self) -> None: ...


Schedule = Callable[[float, Callable[[], None]], Timer]


class Debounce:
    """Calls ``action`` once, ``delay_s`` after the last :meth:`poke` (keys typed in a burst: once)."""

    def __init__(self, schedule: Schedule, delay_s: float, action: Callable[[], object]) -> None:
        self._schedule, self.delay_s, self._action = schedule, delay_s, action
        self._timer: Timer | None = None

    @property
    def pending(self) -> bool:
        return self._timer is not None

    def poke(self) -> None:
        self.cancel()
        self._timer = self._schedule(self.delay_s, self._fire)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _fire(self) -> None:
        self._timer = None
        self._action()


def run_header(request: RunRequest) -> str:
    """The progress block's first line: what runs, where (device, Python environments) and how."""
    parts = [request.scenario, request.device or "first device"]
    if request.settings.devices > 1:
        parts.append(f"{request.settings.devices} devices")
    if request.environments:
        parts.append(f"in {', '.join(request.environments)}")
    parts += [f"{request.settings.dispatch} dispatch", " ".join(f"{k}={v}" for k, v in request.params.items())]
    if request.sweep and request.grid:
        n = len(request.sweep[1]) * len(request.grid[1])
        parts.append(f"grid over {request.sweep[0]} × {request.grid[0]} ({n} cell{'s' * (n != 1)})")
    elif request.sweep:
        n = len(request.sweep[1])
        parts.append(f"sweep over {request.sweep[0]} ({n} point{'s' * (n != 1)})")
    return one_line(" · ".join(p for p in parts if p))  # no empty part: every parameter swept leaves none


def planned_variants(request: RunRequest) -> list[str]:
    """The rows a run will show: over several environments, each variant once per environment, named
    as the run's events name them (``variant @ environment``, the reference's first)."""
    variants = list(request.variants or [])
    if len(request.environments) < 2:
        return variants
    from tuiperf.results.environments import qualified  # it imports numpy: not at the app's start

    return [qualified(v, e) for e in request.environments for v in variants]


class RunController:
    """At most one run measures; a new one supersedes (cancels) the one in progress, whose late news
    :meth:`receive` then drops. Live mode's re-run follows the form :data:`LIVE_DELAY_S` after its
    last change (:meth:`form_changed`)."""

    def __init__(
        self,
        runner: Runner,
        start_thread: Callable[[Callable[[], None]], object],
        post: Callable[[RunNews], object],
        schedule: Schedule,
        rerun: Callable[[], object],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._runner, self._start_thread, self._post, self._clock = runner, start_thread, post, clock
        self.run_id = 0  # the current run's; news of any other is stale
        self.state: RunState | None = None  # what the current (or last) run has streamed
        self.running = False
        self.live_rerun = Debounce(schedule, LIVE_DELAY_S, rerun)
        self._cancel: threading.Event | None = None
        self._unplotted = False  # samples arrived since the streamed histogram was last drawn
        self._last_plot = -STREAM_PLOT_S
        self._ended = asyncio.Event()  # the current run ended (clear until the first one has)

    # -- the UI thread's side ---------------------------------------------------------------------
    def start(self, request: RunRequest, *, by_live_mode: bool = False, make_view: MakeView | None = None) -> RunState:
        """Measure ``request`` in a thread; a run still in progress is cancelled. ``make_view``: what the
        panels show of the result, made in the run's thread (default: its view alone)."""
        if self._cancel is not None:
            self._cancel.set()  # its late news is dropped by receive()
        self.run_id += 1
        state = self.state = RunState(self.run_id)
        state.variants = inert_data(planned_variants(request))  # drawn only, as the events' names
        state.started_by_live_mode = by_live_mode
        state.header = run_header(request)
        cancel = self._cancel = threading.Event()
        self.running, self._unplotted = True, False
        self._ended.clear()
        self._start_thread(lambda: self._measure(request, state, cancel, make_view))
        return state

    def cancel(self) -> bool:
        """Stop the run in progress (it ends with a partial result); False when none is."""
        if not (self.running and self._cancel is not None):
            return False
        self._cancel.set()
        return True

    def receive(self, news: RunNews) -> RunNews | None:
        """News posted by a run, back on the UI thread: None when a newer run superseded it."""
        if news.run_id != self.run_id:
            return None
        if isinstance(news, RunUpdated):
            self._unplotted = True
        elif isinstance(news, RunDone | RunError):
            self.running = False
            self._ended.set()
        return news

    def plot_due(self) -> bool:
        """Whether the streamed histogram should be redrawn now (new samples, and not too soon)."""
        now = self._clock()
        if not (self.running and self._unplotted and now - self._last_plot >= STREAM_PLOT_S):
            return False
        self._unplotted, self._last_plot = False, now
        return True

    def form_changed(self, can_run: bool) -> None:
        """Live mode: re-run after the last change, if the form can run then."""
        self.live_rerun.cancel()
        if can_run:
            self.live_rerun.poke()

    def nothing_will_run(self) -> None:
        """No run is coming (the launch's scenario is unknown, the catalog failed): waiters stop."""
        if not self.running:
            self._ended.set()

    async def wait_for_end(self, timeout_s: float = 600.0) -> None:
        """Until the current run ends; before the first run, until that one ends (or none will)."""
        await asyncio.wait_for(self._ended.wait(), timeout_s)

    # -- the run's thread ---------------------------------------------------------------------------
    def _measure(
        self, request: RunRequest, state: RunState, cancel: threading.Event, make_view: MakeView | None = None
    ) -> None:
        run_id = state.run_id
        self._post(RunBegan(run_id, state, sweep=request.sweep is not None))

        def on_event(event: Event) -> None:
            if isinstance(event, RunFailed):
                return  # the runner also returns the partial result; that one is reported below
            state.apply(event)
            self._post(RunUpdated(run_id, state))

        try:
            result = self._runner.run(request, on_event=on_event, cancel=cancel)
        except TuiperfError as exc:
            self._post(RunError(run_id, exc.title, exc.message, exc.where))
            return
        except Exception as exc:  # noqa: BLE001 - any failure is shown, the app stays up
            details = traceback.format_exc(limit=6)
            self._post(RunError(run_id, "Run failed", f"{type(exc).__name__}: {exc}", details=details))
            return
        if result.error:  # the measuring process stopped: what it measured comes with the error
            title = "Measuring process crashed" if result.crash is not None else "Run failed"
            self._post(RunError(run_id, title, result.error, partial=result))
            return
        self._post(RunDone(run_id, result, *made_for(result, make_view)))


def made_for(result: RunResult, make_view: MakeView | None) -> tuple[ResultView, TabContents | None]:
    """The result's view and tabs' text, in the run's thread: made by ``make_view``, or the view alone
    when there is none or it fails (the panels then make the tabs' text, and say if they cannot)."""
    from tuiperf.tui.view import view_of  # not before the first frame: it imports the results' views

    if make_view is not None:
        try:
            return make_view(result)
        except Exception:  # noqa: BLE001 - what the panels make themselves says what went wrong
            pass
    return view_of(result), None
