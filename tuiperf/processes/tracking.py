"""What a measuring process has streamed so far, so that a run it did not finish is not lost: the
finished variants, the samples of the others, the variant and phase it was in when it stopped."""

from __future__ import annotations

import time
from collections.abc import Callable

from tuiperf.contract.events import Event, PhaseChanged, RunStarted, SamplesAdded, VariantFinished
from tuiperf.contract.options import stored
from tuiperf.contract.request import RunRequest
from tuiperf.processes.process import MeasuringProcess
from tuiperf.results import document
from tuiperf.results.document import RunHeader
from tuiperf.results.model import Crash, DeviceInfo, RunResult, ScenarioRef, VariantResult


class StreamTracker:
    """Folds a run's events as they pass (``track``) and builds its partial result after a stop."""

    def __init__(self, request: RunRequest, forward: Callable[[Event], None] | None = None) -> None:
        self.request, self.forward = request, forward
        self.finished: list[VariantResult] = []
        self.samples: dict[str, list[float]] = {}
        self.header: RunHeader | None = None
        self.names: list[str] = list(request.variants or [])
        self.variant: str | None = None
        self.phase: str | None = None
        self.points_started = 0  # RunStarted seen: one per point of a sweep
        self.started = time.monotonic()

    def track(self, event: Event) -> None:
        match event:
            case VariantFinished(variant=variant):
                self.finished.append(variant)
            case SamplesAdded(variant=name, samples_ns=samples_ns):
                self.samples.setdefault(name, []).extend(samples_ns)
            case PhaseChanged(phase=phase, variant=name):
                self.variant, self.phase = name, phase
            case RunStarted(header=header, variants=names):
                self.header, self.names = header, list(names)
                self.points_started += 1
                self.finished.clear()
                self.samples.clear()
        if self.forward is not None:
            self.forward(event)

    def running(self, turn: int) -> str | None:
        """The variant the process was running: the one it recorded as sampling, else the last named."""
        return self.names[turn] if 0 <= turn < len(self.names) else self.variant

    def point(self, child: MeasuringProcess | None) -> int:
        """The index of the sweep point the process was at: the one it recorded, else the last started
        (0 for a run that is no sweep)."""
        recorded = child.point() if child is not None else -1
        return recorded if recorded >= 0 else max(self.points_started - 1, 0)

    def crash(self, how: str, child: MeasuringProcess | None = None, stderr_tail: str = "") -> Crash:
        """The one way a crash is recorded: how the process stopped, the variant it was running (as
        ``child`` recorded it) and the phase, the tail of its output and its log."""
        return Crash(
            how=how,
            variant=self.running(child.turn()) if child is not None else None,
            phase=self.phase,
            stderr_tail=stderr_tail,
            log_path=str(child.log_path) if child is not None else None,
        )

    def after_cancel(self, how: str) -> RunResult:
        return document.after_cancel(
            self.header or header_from_request(self.request),
            self.finished,
            self.samples,
            self.names,
            how,
            duration_s=time.monotonic() - self.started,
        )

    def after_crash(self, crash: Crash) -> RunResult:
        return document.after_crash(
            self.header or header_from_request(self.request),
            self.finished,
            self.samples,
            self.names,
            crash,
            duration_s=time.monotonic() - self.started,
        )


def header_from_request(request: RunRequest) -> RunHeader:
    """The little that is known of a run whose measuring process died before it started."""
    return RunHeader(
        scenario=ScenarioRef(id=request.scenario, path=request.scenario_path or ""),
        params=dict(request.params),
        device=DeviceInfo(id=request.device or ""),
        options=stored(request.settings, request.variants),
    )
