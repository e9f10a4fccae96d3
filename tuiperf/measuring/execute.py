"""A run's entry point: one pass over the variants, or a sweep or grid (interleaved or point after point).

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
from tuiperf.measuring.resolve import point_label
from tuiperf.measuring.run import measure_pass
from tuiperf.measuring.sweep import measure_interleaved, sweep_point
from tuiperf.results import document
from tuiperf.results.model import RunResult


def execute(request: RunRequest, hooks: Hooks, policy: PassPolicy = ONE_PROCESS) -> RunResult:
    """Measure ``request``, talking to the caller through ``hooks``; ``policy``: how this process
    measures each pass (alone, or as one process of a cluster: :mod:`tuiperf.measuring.cluster`)."""
    ctx = RunContext.create(request, hooks, policy)
    resolved = ctx.resolved
    if not resolved.axes:
        return measure_pass(ctx, Point(resolved.params))
    if request.settings.sweep_order == "interleaved" and policy.interleaves_sweeps:
        return measure_interleaved(ctx)
    return measure_sequential(ctx)


def forget_compiled() -> None:
    """Drop JAX's caches of the traced and compiled functions measured so far: a reused measuring process
    otherwise grew by ~4 MB a run (335 -> 419 MB over 20 runs of mlp-closure-vs-argument, whose
    every run builds new jitted functions; benchmarks/ui_responsiveness.py), and a sequential sweep by
    every point's programs (see :func:`measure_sequential`)."""
    import gc

    import jax

    jax.clear_caches()
    gc.collect()


def measure_sequential(ctx: RunContext) -> RunResult:
    """A sweep's points (a grid's cells) one after another, then the first again (the anchor) to see drift.

    A point's programs are forgotten once it is measured (its result keeps only figures): JAX's caches
    otherwise kept every point's traced and compiled programs to the end of the run."""
    resolved = ctx.resolved
    cells = resolved.points()
    points: list[RunResult] = []
    stopped: list[str] = []
    for index, swept in enumerate(cells):
        try:
            points.append(measure_pass(ctx, sweep_point(resolved, swept, index, len(cells))))
        except TuiperfError as exc:
            if not points:
                raise
            stopped.append(f"sweep stopped at {point_label(swept)}: {exc}")  # keep the points measured so far
            break
        finally:
            forget_compiled()
        if points[-1].partial:
            break
    anchor = None
    if len(points) > 1 and len(points) == len(cells) and not ctx.cancel.is_set():
        # Points are measured one after another: re-measure the first at the end, so drift between
        # them is seen (and flagged) rather than read as a slope.
        ctx.emit(PhaseChanged("sample", None, f"re-measuring {point_label(cells[0])} to check the sweep for drift"))
        settings = msgspec.structs.replace(ctx.settings, profile=False)
        quiet = dataclasses.replace(
            ctx.with_hooks(emit=lambda event: None, digests=None),
            request=dataclasses.replace(ctx.request, settings=settings),
        )
        with contextlib.suppress(TuiperfError):
            first = sweep_point(resolved, cells[0])
            anchor = measure_pass(quiet, Point(first.params, len(cells), anchor=True))
    base = Pass(ctx, Point(resolved.params)).header(None, with_env=False)
    return document.sweep_result(
        *resolved.axes[0],
        points,
        base,
        columns=resolved.axes[1] if len(resolved.axes) > 1 else None,
        duration_s=time.monotonic() - ctx.started,
        warnings=stopped,
        anchor=anchor if anchor is not None and not anchor.partial else None,
    )
