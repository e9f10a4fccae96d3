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
import time

from tuiperf.api.devices import use_devices
from tuiperf.common.errors import TuiperfError
from tuiperf.contract.events import Event, PhaseChanged, Progress, SamplesAdded
from tuiperf.contract.protocol import ANALYSE, SAMPLE, START, Gate
from tuiperf.measuring.context import Emit, Point, RunContext
from tuiperf.measuring.passes import Pass
from tuiperf.measuring.policy import SamplingPlan
from tuiperf.measuring.prepare import Prepared
from tuiperf.measuring.progress import PREPARE_SHARE, SAMPLE_SHARE
from tuiperf.measuring.resolve import Resolved, point_label
from tuiperf.measuring.sampler import Target
from tuiperf.measuring.sampling import Compiles, Sampled, sample_watched
from tuiperf.measuring.timing import timer_resolution_ns
from tuiperf.results import document
from tuiperf.results.model import RunResult, Scalar


class Held:
    """The events of a point being prepared: phases are shown now (what is compiling), the rest is held
    until the point is reported (its variants' rows belong after its RunStarted); then passed on."""

    def __init__(self, emit: Emit) -> None:
        self.forward, self.events = emit, list[Event]()
        self.released = False

    def __call__(self, event: Event) -> None:
        if self.released:
            self.forward(event)
        elif isinstance(event, PhaseChanged):
            self.forward(PhaseChanged(event.phase, None, event.message))
        elif not isinstance(event, Progress):
            self.events.append(event)

    def release(self) -> None:
        self.released = True
        for event in self.events:
            self.forward(event)


@dataclasses.dataclass(frozen=True)
class SweepPoint:
    """One point of a sweep (a cell of a grid): its pass, the events its preparation gave, and its label."""

    one: Pass
    held: Held
    label: str = ""  # n_args=4, or a grid's n_args=4, size=64


def sweep_point(resolved: Resolved, swept: dict[str, Scalar], index: int = 0, count: int = 1) -> Point:
    """The pass of one point of a sweep or grid (its value: the swept value, or a grid cell's label)."""
    value = next(iter(swept.values())) if len(swept) == 1 else point_label(swept)
    return Point({**resolved.params, **swept}, index, value, (index / count, (index + 1) / count))


def measure_interleaved(ctx: RunContext) -> RunResult:
    cells = ctx.resolved.points()
    points: list[SweepPoint] = []
    for index, swept in enumerate(cells):
        held = Held(ctx.emit)
        one = Pass(ctx.with_hooks(emit=held), sweep_point(ctx.resolved, swept, index))
        points.append(SweepPoint(one, held, label=point_label(swept)))
    resolution = timer_resolution_ns()
    headers = [p.one.header(resolution) for p in points]
    use_devices(ctx.devices())
    stopped: list[str] = []
    prepared: list[list[Prepared]] = []
    lockstep = ctx.hooks.lockstep
    with ctx.scope():
        for index, point in enumerate(points):
            lockstep.wait(Gate(0, START, index))
            ctx.emit(
                PhaseChanged("compile", None, f"preparing {point_label(cells[index])} ({index + 1} of {len(cells)})")
            )
            try:
                prepared.append(point.one.prepare())
            except TuiperfError as exc:
                if index == 0:
                    raise
                stopped.append(f"sweep stopped at {point_label(cells[index])}: {exc}")
                del points[index:], headers[index:]
                break
            if ctx.cancel.is_set():
                break
        prepared += [[] for _ in points[len(prepared) :]]  # a cancel stops preparing: the rest measure nothing
        sampled_points = sample_together(ctx, points, prepared, resolution)
        results = []
        for index, (point, header) in enumerate(zip(points, headers, strict=True)):
            lockstep.wait(Gate(0, ANALYSE, index))
            one, sampled = point.one, sampled_points[index]
            one.progress.within((index / len(points), (index + 1) / len(points)))
            ctx.emit(one.run_started(header))
            point.held.release()
            for target in sampled.targets:
                if target.samples:
                    ctx.emit(SamplesAdded(target.name, list(target.samples)))
            one.analyse(prepared[index], sampled)
            results.append(one.document(header, sampled))
            # Its inputs and programs go once it is documented (what was sampled holds none): the points
            # after it are analysed without every earlier one alive.
            prepared[index] = []
    base = Pass(ctx, Point(ctx.resolved.params)).header(None, with_env=False)
    axes = ctx.resolved.axes
    return document.sweep_result(
        *axes[0],
        results,
        base,
        duration_s=time.monotonic() - ctx.started,
        warnings=stopped,
        columns=axes[1] if len(axes) > 1 else None,
    )


def sample_together(
    ctx: RunContext, points: list[SweepPoint], prepared: list[list[Prepared]], resolution: float
) -> list[Sampled]:
    """One sampler over every point's variants: each point's targets, compile counts and causes, as if
    it had sampled alone."""
    keyed: dict[str, tuple[int, str]] = {}  # the name sampled under: (point, variant)
    everything: list[Target] = []
    plans: list[tuple[SamplingPlan, list[Target]]] = []
    for index, point in enumerate(points):
        plan, targets = point.one.plan_sampling(prepared[index], resolution)
        together = [dataclasses.replace(t, name=f"{point.label}\u241f{t.name}") for t in targets]  # unique names
        keyed.update((t.name, (index, own.name)) for t, own in zip(together, targets, strict=True))
        plans.append((plan, together))
        everything.extend(together)
    started = time.perf_counter_ns()
    compiles: list[dict[str, Compiles]] = [{} for _ in points]
    if everything and not ctx.cancel.is_set():
        what = "cell of the grid" if len(ctx.resolved.axes) > 1 else f"{ctx.resolved.axes[0][0]} value"
        ctx.emit(PhaseChanged("sample", None, f"sampling every {what} together, round by round"))

        def on_tick(elapsed: float, fraction: float) -> None:
            overall = PREPARE_SHARE + SAMPLE_SHARE * min(max(fraction, 0.0), 1.0)
            ctx.emit(Progress(fraction=overall, elapsed_s=time.monotonic() - ctx.started, eta_s=None))

        def on_turn(target: Target) -> None:
            index, name = keyed[target.name]
            ctx.hooks.turn(name, points[index].one.point.index)

        seen = sample_watched(
            ctx,
            everything,
            SamplingPlan(resolution, ctx.settings.samples),
            on_tick=on_tick,
            on_turn=on_turn,
            gate=lambda round_index, done: ctx.hooks.lockstep.wait(Gate(0, SAMPLE, round_index), done),
            budget_s=ctx.settings.budget_s * len(points),
        )
        for key, found in seen.items():
            index, name = keyed[key]
            compiles[index][name] = found
    return [
        Sampled(plan, tuple(t.timed(keyed[t.name][1]) for t in targets), started, compiles[index])
        for index, (plan, targets) in enumerate(plans)
    ]
