"""A run's entry point: one pass over the variants, or a sweep (interleaved or point after point).

Runners call :func:`execute` (in this process or in the measuring process); one pass is
:func:`tuiperf.measuring.run.measure_pass`, an interleaved sweep :mod:`tuiperf.measuring.sweep`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time

import msgspec

from tuiperf.common.errors import TuiperfError
from tuiperf.contract.events import PhaseChanged
from tuiperf.contract.request import RunRequest
from tuiperf.measuring.context import Hooks, Point, RunContext
from tuiperf.measuring.passes import Pass
from tuiperf.measuring.policy import ONE_PROCESS, PassPolicy
from tuiperf.measuring.run import measure_pass
from tuiperf.measuring.sweep import measure_interleaved
from tuiperf.results import document
from tuiperf.results.model import RunResult


def execute(request: RunRequest, hooks: Hooks, policy: PassPolicy = ONE_PROCESS) -> RunResult:
    """Measure ``request``, talking to the caller through ``hooks``; ``policy``: how this process
    measures each pass (alone, or as one process of a cluster: :mod:`tuiperf.measuring.cluster`)."""
    ctx = RunContext.create(request, hooks, policy)
    resolved = ctx.resolved
    if resolved.sweep_values is None:
        return measure_pass(ctx, Point(resolved.params))
    if request.settings.sweep_order == "interleaved" and policy.interleaves_sweeps:
        return measure_interleaved(ctx)
    return measure_sequential(ctx)


def measure_sequential(ctx: RunContext) -> RunResult:
    """A sweep's points one after another, then the first again (the anchor) to see drift."""
    assert ctx.request.sweep is not None and ctx.resolved.sweep_values is not None
    parameter, values, resolved = ctx.request.sweep[0], ctx.resolved.sweep_values, ctx.resolved
    points: list[RunResult] = []
    stopped: list[str] = []
    for index, value in enumerate(values):
        span = (index / len(values), (index + 1) / len(values))
        try:
            points.append(measure_pass(ctx, Point({**resolved.params, parameter: value}, index, value, span)))
        except TuiperfError as exc:
            if not points:
                raise
            stopped.append(f"sweep stopped at {parameter}={value}: {exc}")  # keep the values measured so far
            break
        if points[-1].partial:
            break
    anchor = None
    if len(points) > 1 and len(points) == len(values) and not ctx.cancel.is_set():
        # Points are measured one after another: re-measure the first at the end, so drift between
        # them is seen (and flagged) rather than read as a slope.
        ctx.emit(PhaseChanged("sample", None, f"re-measuring {parameter}={values[0]} to check the sweep for drift"))
        settings = msgspec.structs.replace(ctx.settings, profile=False)
        quiet = dataclasses.replace(
            ctx.with_hooks(emit=lambda event: None, digests=None),
            request=dataclasses.replace(ctx.request, settings=settings),
        )
        with contextlib.suppress(TuiperfError):
            anchor = measure_pass(quiet, Point({**resolved.params, parameter: values[0]}, len(values), anchor=True))
    base = Pass(ctx, Point(resolved.params)).header(None, with_env=False)
    return document.sweep_result(
        parameter,
        values,
        points,
        base,
        duration_s=time.monotonic() - ctx.started,
        warnings=stopped,
        anchor=anchor if anchor is not None and not anchor.partial else None,
    )
