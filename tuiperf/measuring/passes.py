"""One pass over the variants at one set of parameter values, as public steps: :meth:`Pass.prepare`
(set up, compile, warm up, plan), :meth:`Pass.sample`, :meth:`Pass.analyse` (breakdown, profile,
guard) and :meth:`Pass.document`. A plain run calls them in order (:mod:`tuiperf.measuring.run`); an
interleaved sweep prepares every point's pass, samples them together, then analyses each
(:mod:`tuiperf.measuring.sweep`); a cluster's process passes its policy (:mod:`tuiperf.measuring.cluster`).
"""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

from tuiperf.common.errors import ScenarioError, Skip
from tuiperf.contract.events import PhaseChanged, RunStarted, SamplesAdded
from tuiperf.contract.protocol import SAMPLE, Gate
from tuiperf.measuring import analysis, assemble, tried
from tuiperf.measuring.compile_time import process_first_compile
from tuiperf.measuring.context import Outcomes, Point, RunContext, describe_exception
from tuiperf.measuring.device_setup import start_device_libraries
from tuiperf.measuring.env import device_id
from tuiperf.measuring.policy import SamplingPlan
from tuiperf.measuring.prepare import Prepared, as_bench, prepare
from tuiperf.measuring.progress import PREPARE_SHARE, SAMPLE_SHARE, PassProgress
from tuiperf.measuring.sampler import Pace, Target
from tuiperf.measuring.sampling import Sampled, sample_watched
from tuiperf.results import document
from tuiperf.results.document import RunHeader
from tuiperf.results.model import RunResult, VariantResult


class Pass:
    def __init__(self, ctx: RunContext, point: Point) -> None:
        self.ctx, self.point = ctx, point
        self.progress = PassProgress(ctx, point.span)
        self.found = Outcomes(ctx.emit)
        self.attempts: list[tried.Attempt] = []  # remedies tried beside the variants (measuring.tried)

    @property
    def names(self) -> list[str]:
        return self.ctx.resolved.names

    def header(self, resolution: float | None, *, with_env: bool = True) -> RunHeader:
        return assemble.header(self.ctx, self.point.params, resolution, with_env=with_env)

    def run_started(self, header: RunHeader) -> RunStarted:
        ctx = self.ctx
        return RunStarted(
            ctx.resolved.scenario.id, self.names, device_id(ctx.device), ctx.dispatch, self.point.value, header
        )

    def finish(self, result: VariantResult) -> None:
        self.found.finish(result)

    # -- the steps ----------------------------------------------------------------------------------
    def prepare(self) -> list[Prepared]:
        """Set up and compile this pass's variants and plan its sampling."""
        self.ctx.hooks.turn(None, self.point.index)  # no variant yet: a setup that fails is this point's
        ctx = self.setup()
        start_device_libraries(self.ctx.device)
        if self.ctx.settings.measure == "compile":
            process_first_compile()  # the process's own first-compile costs, paid before any variant's
        prepared, self.attempts = tried.added(self.ctx, self.prepare_variants(ctx), self.found, self.point.index)
        self.progress.plan(prepared)
        return prepared

    def setup(self) -> Any:
        scenario = self.ctx.resolved.scenario
        self.ctx.emit(PhaseChanged("setup", None, "building inputs and weights"))
        if scenario.setup_fn is None:
            return None
        try:
            return scenario.setup_fn(SimpleNamespace(**self.point.params))
        except BaseException as exc:  # noqa: BLE001 - reported with the scenario file's line
            raise ScenarioError(f"setup failed: {describe_exception(exc, scenario.path)}", where=scenario.id) from None

    def prepare_variants(self, setup: Any) -> list[Prepared]:
        ctx, scenario = self.ctx, self.ctx.resolved.scenario
        prepared = []
        at = 0 if self.point.anchor else self.point.index  # the anchor is the first point again
        left_out = {gone.variant: gone for gone in ctx.request.left_out if gone.point == at}
        for index, name in enumerate(self.names):
            if ctx.cancel.is_set():
                break
            if (gone := left_out.get(name)) is not None:  # it failed here in an earlier process
                self.finish(document.failed(name, gone.error, gone.phase, notes=gone.notes))
                continue
            ctx.emit(PhaseChanged("compile", name, "building, compiling and warming up"))
            ctx.hooks.turn(name, self.point.index)  # an interleaved sweep's phases name neither: still blamed
            try:
                bench = as_bench(scenario.variants[name].build(SimpleNamespace(**self.point.params), setup))
                budget_s, fixed = ctx.settings.budget_s, ctx.policy.fixed_calls
                prepared.append(prepare(name, bench, ctx.cancel, ctx.device, budget_s, fixed_calls=fixed))
            except Skip as why:
                self.finish(document.variant_result(name, status="skipped", notes=[str(why)]))
            except BaseException as exc:  # noqa: BLE001 - one failing variant never stops the others
                error = describe_exception(exc, scenario.path)
                self.finish(document.failed(name, error, "compile"))
            self.progress.report(PREPARE_SHARE * (index + 1) / len(self.names))
        return prepared

    def plan_sampling(self, prepared: list[Prepared], resolution: float) -> tuple[SamplingPlan, list[Target]]:
        """The policy's plan, and what the sampler times for each prepared variant."""
        plan = self.ctx.policy.plan_sampling(prepared, resolution, self.ctx.settings)
        targets = [
            Target(p.name, p.bench.fn, p.bench.args, p.first.block, Pace.of(plan.estimate_ns(p), plan.resolution_ns))
            for p in prepared
        ]
        return plan, targets

    def sample(self, prepared: list[Prepared], resolution: float) -> Sampled:
        ctx = self.ctx
        plan, targets = self.plan_sampling(prepared, resolution)
        started, compiles = time.perf_counter_ns(), {}
        if targets and not ctx.cancel.is_set():
            ctx.emit(PhaseChanged("sample", None, "steady-state sampling"))
            sent = {t.name: 0 for t in targets}

            def on_tick(elapsed: float, fraction: float) -> None:
                for target in targets:
                    new = target.samples[sent[target.name] :]
                    if new:
                        sent[target.name] += len(new)
                        ctx.emit(SamplesAdded(target.name, list(new)))
                self.progress.report(PREPARE_SHARE + SAMPLE_SHARE * fraction, targets)

            point = self.point.index
            compiles = sample_watched(
                ctx,
                targets,
                plan,
                on_tick=on_tick,
                on_turn=lambda target: ctx.hooks.turn(target.name, point),
                gate=lambda round_index, done: ctx.hooks.lockstep.wait(Gate(point, SAMPLE, round_index), done),
                budget_s=ctx.settings.budget_s,
            )
            on_tick(0.0, 1.0)
        timed = tuple(target.timed() for target in targets)
        return Sampled(plan, timed, started, compiles, ctx.policy.after_sampling(timed))

    def analyse(self, prepared: list[Prepared], sampled: Sampled) -> None:
        analysis.analyse(self.ctx, self.point, prepared, sampled, self.found, self.progress)
        tried.documented(self.ctx, self.attempts, prepared, self.found, self.point.params)

    def document(self, header: RunHeader, sampled: Sampled | None) -> RunResult:
        return assemble.result_of(self.ctx, header, self.found, sampled, self.progress.started)
