"""One pass over the variants, start to end: the composition a plain run (and each point of a
sequential sweep) makes of the steps of :class:`~tuiperf.measuring.passes.Pass`.

Runners call :func:`tuiperf.measuring.execute.execute` (in this process or in the measuring process),
which picks the composition; requests are checked first (:mod:`tuiperf.measuring.resolve`); documents
are assembled by :mod:`tuiperf.results.document`.
"""

from __future__ import annotations

from tuiperf.api.devices import use_devices
from tuiperf.contract.protocol import ANALYSE, START, Gate
from tuiperf.measuring.context import Point, RunContext
from tuiperf.measuring.passes import Pass
from tuiperf.measuring.timing import timer_resolution_ns
from tuiperf.results.model import RunResult


def measure_pass(ctx: RunContext, point: Point) -> RunResult:
    """Set up, prepare, sample and analyse one pass; its result."""
    one = Pass(ctx, point)
    resolution = timer_resolution_ns()
    header = one.header(resolution)
    ctx.emit(one.run_started(header))
    use_devices(ctx.devices())
    lockstep = ctx.hooks.lockstep
    lockstep.wait(Gate(point.index, START, 0))
    with ctx.scope():
        prepared = one.prepare()
        sampled = one.sample(prepared, resolution)
        lockstep.wait(Gate(point.index, ANALYSE, 0))
        one.analyse(prepared, sampled)
    return one.document(header, sampled)
