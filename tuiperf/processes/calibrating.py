"""Measure this machine's process-to-process spread (:mod:`tuiperf.results.calibration` keeps it).

By default the first run in a machine and environment that has no calibration measures one first
(:func:`ensure`, called by :class:`~tuiperf.processes.runner.ProcessRunner`), so that every run's
intervals include the process part without a separate command; ``tuiperf calibrate`` measures it again
on request, with more processes or a longer budget. Each case runs in ``processes`` fresh measuring
processes, one after the other, and only the spread between their figures is kept.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the CLI's parser reads this module's defaults: nothing heavy at its start
    from tuiperf.contract.events import Event
    from tuiperf.contract.request import RunRequest
    from tuiperf.results.calibration import ProcessSpread
    from tuiperf.results.model import RunResult

# (label, scenario, parameters, variant a, variant b): a call at the dispatch floor (~30 µs for the slower
# of the pair, ~6 µs for jax.jit) and a ~0.5 ms call (idle 2-core VM), each the ratio of a framework's
# wrapper to jax.jit, the most common reading (a Python-side path against a C++ one moves more between
# processes than two C++ paths do: dispatch-floor's aot-compiled / jax.jit read ±0.7 % where these read
# several %). The first was an MLP of width 32 (~40 µs) until 2026-12-07: its ratio read ±0.55 % where
# re-runs of the identity's moved 0.9-1.5 %, and the identity's question is the commonest.
CASES: tuple[tuple[str, str, dict[str, Any], str, str], ...] = (
    ("filter-jit-overhead (identity) eqx.filter_jit / jax.jit", "filter-jit-overhead", {}, "eqx.filter_jit", "jax.jit"),
    (
        "filter-jit-overhead (mlp width=512 depth=3 batch=32) eqx.filter_jit / jax.jit",
        "filter-jit-overhead",
        {"model": "mlp", "width": 512, "depth": 3, "batch": 32},
        "eqx.filter_jit",
        "jax.jit",
    ),
)
# Per case. Each spread's bound (× 1.58 at 7 degrees of freedom, × 1.76 at 5) is as wide as the estimate is
# uncertain: simulated ten-run re-run checks (benchmarks/rerun_coverage.py's criteria, the calibration's own
# case, normal spreads) met both of its targets 77 % of the time with 6 processes, 83 % with 8, 86 % with 10.
PROCESSES = 8
BUDGET_S = 2.0  # each process's, for `tuiperf calibrate`
AUTO_BUDGET_S = 0.8  # each process's, for the calibration a first run makes by itself (52-57 s in all, idle)

Measure = Callable[["RunRequest", Callable[["Event"], None] | None, threading.Event | None], "RunResult"]


class NotCalibrated(Exception):
    """A case could not be measured in enough processes, or the machine was busy: nothing was kept."""


class MachineBusy(NotCalibrated):
    """Other processes used more than :data:`~tuiperf.results.calibration.QUIET_CORES` during a case."""


def measure(
    run: Measure,
    *,
    processes: int = PROCESSES,
    budget_s: float = BUDGET_S,
    on_event: Callable[[Event], None] | None = None,
    cancel: threading.Event | None = None,
    refuse_busy: bool = True,
) -> ProcessSpread | None:
    """Every case in ``processes`` fresh processes through ``run``; the spread made of them (not kept
    yet), or None when ``cancel`` stopped it. Raises :class:`NotCalibrated` when a case failed, or, with
    ``refuse_busy``, when other processes used more than
    :data:`~tuiperf.results.calibration.QUIET_CORES` during a case: the spread would then be theirs (a
    calibration taken beside a test suite here read a median's spread ±40 % where a quiet one read
    ±1.4 %), and every later run would carry it."""
    from tuiperf.catalog.folders import builtin_dir
    from tuiperf.common.text import one_line
    from tuiperf.contract import options
    from tuiperf.contract.request import RunRequest
    from tuiperf.results import calibration

    points = []
    busiest = 0.0  # the most cores other processes used during a case
    for label, scenario, params, a, b in CASES:
        settings = options.TABLE(dispatch="sync", budget_s=budget_s, processes=processes, profile=False)
        # The built-in file itself: a user's folder may hold a copy that shadows it (or broken files)
        builtin = str(builtin_dir() / f"{scenario.replace('-', '_')}.py")
        request = RunRequest(
            scenario=scenario, params=dict(params), variants=[b, a], settings=settings, scenario_path=builtin
        )
        result = run(request, on_event, cancel)
        if cancel is not None and cancel.is_set():
            return None
        point = calibration.point_from(result, label, a, b)
        if point is None:
            why = f": {one_line(result.error)}" if result.error else ""
            raise NotCalibrated(f"{label}: fewer than 3 processes measured both variants{why}")
        seen = result.env.machine if result.env is not None else None
        if seen is not None and seen.others_cores is not None:
            busiest = max(busiest, seen.others_cores)
        if refuse_busy and seen is not None and (seen.busy or (seen.others_cores or 0.0) > calibration.QUIET_CORES):
            used = f"{seen.others_cores:.1f}" if seen.others_cores is not None else "more"
            raise MachineBusy(
                f"other processes used {used} of {seen.cpu_count or '?'} cores while measuring {label} (a "
                f"calibration needs them under {calibration.QUIET_CORES:g})"
            )
        points.append(point)
    machine, environment = calibration.here()
    date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return calibration.ProcessSpread(
        date=date, machine=machine, environment=environment, points=points, others_cores=round(busiest, 2)
    )


CALIBRATING = "calibrating this machine once"  # the phase of a run while it measures a calibration first
CALIBRATED = "calibrated"  # its last message: what was kept, or why nothing was


def ensure(
    run: Measure, on_event: Callable[[Event], None] | None = None, cancel: threading.Event | None = None
) -> str | None:
    """Before a run: measure and keep a calibration when this machine and environment have none (and
    calibrations are on). Says what happens as phase changes and progress (not the calibration's own
    runs' events: they are not the user's), and returns its last message (None: nothing was needed)."""
    from tuiperf.common.text import one_line
    from tuiperf.contract.events import PhaseChanged, Progress, RunStarted
    from tuiperf.results import calibration

    if not calibration.needed():
        return None
    machine, environment = calibration.here()
    began = time.monotonic()
    total = len(CASES) * PROCESSES
    started = 0

    def tell(event: Event) -> None:
        if on_event is not None:
            on_event(event)

    def forward(event: Event) -> None:
        nonlocal started
        if isinstance(event, RunStarted):
            started += 1
            elapsed = time.monotonic() - began
            eta = elapsed / (started - 1) * (total - started + 1) if started > 1 else None
            tell(Progress(fraction=(started - 1) / total, elapsed_s=elapsed, eta_s=eta))

    tell(
        PhaseChanged(
            phase=CALIBRATING,
            message=f"its process-to-process spread, in {total} fresh processes; later runs in this environment reuse "
            f"it (`tuiperf calibrate` measures it again, {calibration.ENV_VAR}=off skips it)",
        )
    )
    try:
        spread = measure(run, budget_s=AUTO_BUDGET_S, on_event=forward, cancel=cancel)
        said = "calibration stopped: nothing kept" if spread is None else ""
        if spread is not None:
            where = calibration.save(spread)
            said = (
                f"calibrated {machine}, {environment} in {time.monotonic() - began:.0f} s "
                f"(kept in {where}; later runs reuse it)"
            )
    except (NotCalibrated, OSError) as exc:
        later = "; a later run tries again" if isinstance(exc, MachineBusy) else ""
        said = f"no calibration kept ({one_line(str(exc))}{later}): intervals leave process-to-process spread out"
    tell(PhaseChanged(phase=CALIBRATED, message=said))
    return said
