"""`tuiperf calibrate`: measure how far fresh processes land apart on this machine, and keep it.

Every later single-process run adds that spread to its 95 % intervals (:mod:`tuiperf.results.calibration`),
so that an interval says where a re-run lands, not only where this process's samples do.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console
from rich.text import Text

from tuiperf.cli import flags
from tuiperf.common.errors import TuiperfError
from tuiperf.processes.calibrating import BUDGET_S, PROCESSES


def add_parser(commands: Any) -> None:
    calibrate = commands.add_parser(
        "calibrate",
        help="measure how far fresh processes land apart on this machine; intervals then include it",
    )
    calibrate.add_argument(
        "--processes", type=int, default=PROCESSES, metavar="N", help=f"fresh processes per case (default {PROCESSES})"
    )
    calibrate.add_argument(
        "--budget", type=float, default=BUDGET_S, metavar="SECONDS", help=f"each process's (default {BUDGET_S:g})"
    )
    calibrate.add_argument("--show", action="store_true", help="print the stored calibration only")
    calibrate.add_argument(
        "--busy-ok", action="store_true", help="keep it even if other processes kept the machine busy meanwhile"
    )
    flags.scenario_dirs(calibrate)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from tuiperf.cli.measure import run_interruptibly
    from tuiperf.processes import calibrating
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
    runner = ProcessRunner(args.scenarios, calibrate_first=False)

    def run(request: Any, _on_event: Any, _cancel: Any) -> Any:
        result, interrupted = run_interruptibly(runner, request, err)
        if result is None or interrupted:
            raise KeyboardInterrupt
        return result

    try:
        stored = calibrating.measure(run, processes=args.processes, budget_s=args.budget, refuse_busy=not args.busy_ok)
    except KeyboardInterrupt:
        return 130
    except calibrating.MachineBusy as exc:
        raise TuiperfError(
            f"{exc}; nothing stored: run it again when the machine is quieter (`--busy-ok` keeps it anyway, and "
            "`--show` then says it was measured beside other work)"
        ) from None
    except calibrating.NotCalibrated as exc:
        raise TuiperfError(f"{exc}; nothing stored") from None
    finally:
        runner.close()
    assert stored is not None  # no cancel event was given: only an interrupt stops it
    console.print(Text(f"wrote {calibration.save(stored)}"))
    _print(console, stored)
    return 0


def _print(console: Console, stored: Any) -> None:
    from tuiperf.common.text import one_line
    from tuiperf.common.units import format_ns
    from tuiperf.results import calibration

    where = ", ".join(one_line(w) for w in (stored.machine, stored.environment) if w) or "this machine"
    console.print(Text(f"fresh-process spread on {where}, {stored.date}:"))
    for p in stored.points:
        console.print(
            Text(
                f"  {one_line(p.case)}: a call of {format_ns(p.call_ns)}: a ratio ±{100 * p.ratio_sd:.1f} %, "
                f"a median ±{100 * p.median_sd:.1f} % (standard deviations over {p.processes} processes)"
            )
        )
    if stored.others_cores > calibration.QUIET_CORES:
        console.print(
            Text(
                f"  measured while other processes used {stored.others_cores:.2f} cores (kept with --busy-ok): its "
                "spread may be theirs, not this machine's; `tuiperf calibrate` on a quiet machine replaces it"
            )
        )
    if stored.points:
        fewest = min(p.processes for p in stored.points)
        bound = calibration.upper_bound_factor(fewest - 1)  # a stored point has 3 processes or more
        console.print(
            Text(
                f"  intervals use each figure's {100 * calibration.UPPER_CONFIDENCE:.0f} % upper confidence bound "
                f"(× {bound:.2f} for {fewest} processes), interpolated in log call time for their call"
            )
        )
