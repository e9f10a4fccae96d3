"""A run's entry point: one pass over the variants, or a sweep (interleaved or point after point).

Runners call :func:`execute` (in this process or in the measuring process); one pass is
:class:`tuiperf.measuring.run.Run`, an interleaved sweep :mod:`tuiperf.measuring.sweep`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable

import msgspec

from tuiperf.common.errors import TuiperfError
from tuiperf.contract.events import PhaseChanged
from tuiperf.contract.request import RunRequest
from tuiperf.measuring.resolve import resolve
from tuiperf.measuring.run import Emit, Run
from tuiperf.measuring.sweep import measure_interleaved
from tuiperf.measuring.turns import ALONE, Turns
from tuiperf.results import document
from tuiperf.results.model import RunResult
from tuiperf.results.outputs import OutputDigest


def execute(
    request: RunRequest,
    emit: Emit,
    cancel: threading.Event,
    on_turn: Callable[[str], None] | None = None,
    turns: Turns = ALONE,
    digests: dict[str, OutputDigest] | None = None,
    run_class: type[Run] | None = None,
) -> RunResult:
    """Measure ``request``. ``on_turn(variant)`` is called as each variant's turn begins during
    sampling (the measuring process records it, so a crash can name the variant that was running).
    ``turns``: the run takes turns with other processes (several Python environments); ``digests``,
    when given, receives each measured variant's output (of a sweep's last point) to compare across them.
    ``run_class`` measures each pass (a cluster's lockstep run, measuring.cluster); default :class:`Run`."""
    run_type = run_class or Run
    resolved = resolve(request)
    if resolved.sweep_values is not None and run_class is None and request.settings.sweep_order == "interleaved":
        return measure_interleaved(resolved, request, emit, cancel, on_turn, turns, digests)
    if resolved.sweep_values is None:
        return run_type(
            resolved, resolved.params, request, emit, cancel, on_turn=on_turn, turns=turns, digests=digests
        ).measure()
    assert request.sweep is not None
    parameter = request.sweep[0]
    values = resolved.sweep_values
    points: list[RunResult] = []
    stopped: list[str] = []
    started = time.monotonic()
    for index, value in enumerate(values):
        span = (index / len(values), (index + 1) / len(values))
        run = run_type(
            resolved,
            {**resolved.params, parameter: value},
            request,
            emit,
            cancel,
            span,
            value,
            started,
            on_turn=on_turn,
            point=index,
            turns=turns,
            digests=digests,
        )
        try:
            points.append(run.measure())
        except TuiperfError as exc:
            if not points:
                raise
            stopped.append(f"sweep stopped at {parameter}={value}: {exc}")  # keep the values measured so far
            break
        if points[-1].partial:
            break
    anchor = None
    if len(points) > 1 and len(points) == len(values) and not cancel.is_set():
        # Points are measured one after another: re-measure the first at the end, so drift between
        # them is seen (and flagged) rather than read as a slope.
        emit(PhaseChanged("sample", None, f"re-measuring {parameter}={values[0]} to check the sweep for drift"))
        again = run_type(
            resolved,
            {**resolved.params, parameter: values[0]},
            dataclasses.replace(request, settings=msgspec.structs.replace(request.settings, profile=False)),
            lambda event: None,
            cancel,
            on_turn=on_turn,
            anchor=True,
            point=len(values),
            turns=turns,
        )
        with contextlib.suppress(TuiperfError):
            anchor = again.measure()
    base = run_type(resolved, resolved.params, request, emit, cancel).header(with_env=False)
    return document.sweep_result(
        parameter,
        values,
        points,
        base,
        duration_s=time.monotonic() - started,
        warnings=stopped,
        anchor=anchor if anchor is not None and not anchor.partial else None,
    )
