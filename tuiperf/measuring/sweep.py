"""A sweep whose points are sampled in the same rounds (``--sweep-order interleaved``, the default).

Measured one after another, a sweep's points see different moments of the machine: on a busy VM the
first point, measured again at the end, read 25 % away from itself, which a slope across the points
then carries. Here every point is set up and compiled first, then one sampler takes turns over every
(point, variant), so drift hits every point alike; then each point is analysed (breakdown, profile,
guard) and reported in order, as a sequential sweep reports it: its RunStarted, the events its
preparation gave, its samples, its variants. The cost: every point's inputs and programs are alive at
once (``--sweep-order sequential`` measures one at a time), and the live view gets its samples when
sampling ends rather than as they come.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import time
from collections.abc import Callable

from tuiperf.common.errors import TuiperfError
from tuiperf.contract.events import Event, PhaseChanged, Progress, RunStarted, SamplesAdded
from tuiperf.contract.protocol import ANALYSE, SAMPLE, START
from tuiperf.contract.request import RunRequest
from tuiperf.measuring.env import device_id
from tuiperf.measuring.prepare import Prepared
from tuiperf.measuring.resolve import Resolved
from tuiperf.measuring.run import PREPARE_SHARE, SAMPLE_SHARE, Emit, Run, device_scope
from tuiperf.measuring.sampler import Target, sample_interleaved
from tuiperf.measuring.sentinel import sentinel
from tuiperf.measuring.timing import timer_resolution_ns
from tuiperf.measuring.turns import Turns
from tuiperf.results import document
from tuiperf.results.model import RunResult
from tuiperf.results.outputs import OutputDigest


@dataclasses.dataclass
class Point:
    """One value of the swept parameter: its pass, what its preparation said, what it prepared."""

    run: Run
    held: list[Event] = dataclasses.field(default_factory=list)  # told once the point is reported
    prepared: list[Prepared] = dataclasses.field(default_factory=list)
    targets: list[Target] = dataclasses.field(default_factory=list)


def measure_interleaved(
    resolved: Resolved,
    request: RunRequest,
    emit: Emit,
    cancel: threading.Event,
    on_turn: Callable[[str], None] | None,
    turns: Turns,
    digests: dict[str, OutputDigest] | None,
) -> RunResult:
    assert request.sweep is not None and resolved.sweep_values is not None
    parameter, values = request.sweep[0], resolved.sweep_values
    started = time.monotonic()
    points: list[Point] = []
    for value in values:
        point = Point(Run(resolved, {**resolved.params, parameter: value}, request, emit, cancel, sweep_value=value))
        point.run.emit = _holding(point.held, emit)
        point.run.on_turn, point.run.turns, point.run.digests = on_turn, turns, digests
        points.append(point)
    resolution = timer_resolution_ns()
    headers = [p.run.header(resolution=resolution) for p in points]
    first = points[0].run
    from tuiperf.api.devices import use_devices

    use_devices(first.run_device_list())
    stopped: list[str] = []
    with device_scope(first.device):
        for index, point in enumerate(points):
            turns.wait((0, START, index))
            emit(PhaseChanged("compile", None, f"preparing {parameter}={values[index]} ({index + 1} of {len(values)})"))
            try:
                point.prepared = point.run.prepare_point()
            except TuiperfError as exc:
                if index == 0:
                    raise
                stopped.append(f"sweep stopped at {parameter}={values[index]}: {exc}")
                del points[index:], headers[index:]
                break
            if cancel.is_set():
                break
        _sample_together(points, parameter, request, emit, cancel, on_turn, turns, resolution, started)
        results = []
        for index, (point, header) in enumerate(zip(points, headers, strict=True)):
            turns.wait((0, ANALYSE, index))
            run = point.run
            run.emit = emit
            run.span = (index / len(points), (index + 1) / len(points))
            emit(RunStarted(run.scenario.id, run.names, device_id(run.device), run.dispatch, run.sweep_value, header))
            for event in point.held:
                emit(event)
            for target in point.targets:
                if target.samples:
                    emit(SamplesAdded(target.name, list(target.samples)))
            run.analyse(point.prepared, point.targets, resolution)
            results.append(run.document(header))
    base = first.header(with_env=False)
    return document.sweep_result(
        parameter, values, results, base, duration_s=time.monotonic() - started, warnings=stopped
    )


def _holding(held: list[Event], emit: Emit) -> Emit:
    """Events of a point being prepared: phases are shown now (what is compiling), the rest is held
    until the point is reported (its variants' rows belong after its RunStarted)."""

    def hold(event: Event) -> None:
        if isinstance(event, PhaseChanged):
            emit(PhaseChanged(event.phase, None, event.message))
        elif not isinstance(event, Progress):
            held.append(event)

    return hold


def _sample_together(
    points: list[Point],
    parameter: str,
    request: RunRequest,
    emit: Emit,
    cancel: threading.Event,
    on_turn: Callable[[str], None] | None,
    turns: Turns,
    resolution: float,
    started: float,
) -> None:
    """One sampler over every point's variants; each point then knows its targets, compile counts and
    causes, as if it had sampled alone."""
    keyed: dict[str, tuple[Point, str]] = {}
    everything: list[Target] = []
    for point in points:
        point.targets = point.run.targets_of(point.prepared, resolution)
        for target in point.targets:
            name = target.name
            target.name = f"{parameter}={point.run.sweep_value}\u241f{name}"  # unique while sampled together
            keyed[target.name] = (point, name)
            everything.append(target)
    if everything and not cancel.is_set():
        emit(PhaseChanged("sample", None, f"sampling every {parameter} value together, round by round"))
        watch = sentinel()
        before = {t.name: watch.snapshot(t.name) for t in everything}
        for target in everything:
            watch.take_causes(target.name)

        def on_tick(elapsed: float, fraction: float) -> None:
            overall = PREPARE_SHARE + SAMPLE_SHARE * min(max(fraction, 0.0), 1.0)
            emit(Progress(fraction=overall, elapsed_s=time.monotonic() - started, eta_s=None))

        def on_target(target: Target) -> None:
            watch.current = target.name
            if on_turn is not None:
                on_turn(keyed[target.name][1])

        now = time.perf_counter_ns()
        for point in points:
            point.run.sampling_started_ns = now
        samples, budget = request.settings.samples, request.settings.budget_s * len(points)
        with watch.explaining():
            sample_interleaved(
                everything,
                samples=samples,
                budget_s=budget,
                cancel=cancel,
                interleave=request.settings.interleave,
                on_tick=on_tick,
                on_turn=on_target,
                gate=lambda round_index, done: turns.wait((0, SAMPLE, round_index), done),
                scope=functools.partial(device_scope, points[0].run.device),
            )
        watch.current = None
        for target in everything:
            point, name = keyed[target.name]
            traces, compiles = watch.snapshot(target.name)
            point.run.compile_counts[name] = (traces - before[target.name][0], compiles - before[target.name][1])
            point.run.compile_causes[name] = watch.take_causes(target.name)
    for target in everything:
        target.name = keyed[target.name][1]
