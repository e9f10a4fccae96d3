"""`tuiperf calibrate`: measure how far fresh processes land apart on this machine, and keep it.

Every later single-process run adds that spread to its 95 % intervals (:mod:`tuiperf.results.calibration`),
so that an interval says where a re-run lands, not only where this process's samples do.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from rich.console import Console
from rich.text import Text

from tuiperf.cli import flags
from tuiperf.common.errors import TuiperfError

# (label, scenario, parameters, variant a, variant b): a ~10 µs call and a ~1 ms call (idle 2-core VM), each
# the ratio of a framework's wrapper to jax.jit, the most common reading (a Python-side path against a C++
# one moves more between processes than two C++ paths do: dispatch-floor's aot-compiled / jax.jit read
# ±0.7 % where these read several %).
CASES: tuple[tuple[str, str, dict[str, Any], str, str], ...] = (
    (
        "filter-jit-overhead (mlp width=32 depth=3) eqx.filter_jit / jax.jit",
        "filter-jit-overhead",
        {"model": "mlp", "width": 32, "depth": 3},
        "eqx.filter_jit",
        "jax.jit",
    ),
    (
        "filter-jit-overhead (mlp width=512 depth=3 batch=32) eqx.filter_jit / jax.jit",
        "filter-jit-overhead",
        {"model": "mlp", "width": 512, "depth": 3, "batch": 32},
        "eqx.filter_jit",
        "jax.jit",
    ),
)


def add_parser(commands: Any) -> None:
    calibrate = commands.add_parser(
        "calibrate",
        help="measure how far fresh processes land apart on this machine; intervals then include it",
    )
    calibrate.add_argument("--processes", type=int, default=6, metavar="N", help="fresh processes per case (default 6)")
    calibrate.add_argument("--budget", type=float, default=2.0, metavar="SECONDS", help="each process's (default 2)")
    calibrate.add_argument("--show", action="store_true", help="print the stored calibration only")
    flags.scenario_dirs(calibrate)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from tuiperf.cli.measure import run_interruptibly
    from tuiperf.contract import options
    from tuiperf.contract.request import RunRequest
    from tuiperf.processes.runner import ProcessRunner
    from tuiperf.results import calibration

    console = Console(highlight=False, soft_wrap=True)
    if args.show:
        stored = calibration.load()
        if stored is None:
            console.print(Text(f"no calibration stored at {calibration.path()}: run `tuiperf calibrate`"))
            return 1
        _print(console, stored)
        return 0
    if not 3 <= args.processes <= 30:
        raise TuiperfError(f"--processes must be 3 to 30 for a spread, got {args.processes}")
    if not 0.1 <= args.budget <= 60:
        raise TuiperfError(f"--budget must be 0.1 to 60 seconds, got {args.budget}")
    where = calibration.path()
    if where is None:
        raise TuiperfError(f"${calibration.ENV_VAR} is off: a calibration would not be kept")
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    points, machine = [], ""
    for label, scenario, params, a, b in CASES:
        settings = options.TABLE(dispatch="sync", budget_s=args.budget, processes=args.processes, profile=False)
        request = RunRequest(scenario=scenario, params=dict(params), variants=[b, a], settings=settings)
        runner = ProcessRunner(args.scenarios)
        try:
            result, interrupted = run_interruptibly(runner, request, err)
        finally:
            runner.close()
        if result is None or interrupted:
            return 130
        point = calibration.point_from(result, label, a, b)
        if point is None:
            raise TuiperfError(f"{label}: fewer than 3 processes measured both variants; nothing stored")
        points.append(point)
        machine = result.env.cpu if result.env else machine
    stored = calibration.ProcessSpread(
        date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), machine=machine, points=points
    )
    console.print(Text(f"wrote {calibration.save(stored)}"))
    _print(console, stored)
    return 0


def _print(console: Console, stored: Any) -> None:
    from tuiperf.common.text import one_line
    from tuiperf.common.units import format_ns

    console.print(Text(f"fresh-process spread on {one_line(stored.machine) or 'this machine'}, {stored.date}:"))
    for p in stored.points:
        console.print(
            Text(
                f"  {one_line(p.case)}: a call of {format_ns(p.call_ns)}: a ratio ±{100 * p.ratio_sd:.1f} %, "
                f"a median ±{100 * p.median_sd:.1f} % (standard deviations over {p.processes} processes)"
            )
        )
