"""This machine's process-to-process spread, measured once per machine and environment, and reused.

One measuring process cannot see how far the next one will land (memory placement, code layout: a few
% on this project's VM). A calibration (:mod:`tuiperf.processes.calibrating`; made by itself before the
first run in a new machine or environment, or again by ``tuiperf calibrate``) runs a built-in at two
sizes (at the dispatch floor and a ~0.5 ms call) in several fresh processes and keeps, for each, how
much a ratio of two variants and a variant's median move from process to process (standard deviations
of their logs; intervals use their upper confidence bounds).
Every later single-process run adds that spread to its intervals, interpolated (in log call time) for
its call's duration, and says so with the calibration's date. One file in the user's data folder holds
one calibration per machine and environment (``$TUIPERF_CALIBRATION`` chooses another path; "off"
turns calibrations off).
"""

from __future__ import annotations

import math
import os
from functools import lru_cache
from pathlib import Path

import msgspec
import numpy as np

from tuiperf.results.model import RunResult

ENV_VAR = "TUIPERF_CALIBRATION"
OFF_VALUES = ("off", "none", "0", "false", "no")
FILE_NAME = "process-spread.json"
MAX_BYTES = 1 << 20
MIN_PROCESSES = 3  # a spread needs at least two degrees of freedom
# A calibration is kept for good and widens every later interval: it is refused when other processes used
# more than this many cores meanwhile. The run-level busy rule (more than the cores a run leaves spare)
# let through one taken beside other sessions' tests at load ~1.9 on 2 cores that read a 21 % spread.
QUIET_CORES = 0.5


class SpreadPoint(msgspec.Struct, kw_only=True):
    """How far fresh processes land apart for one call (standard deviations of log figures)."""

    case: str  # the scenario, parameters and pair measured
    call_ns: float  # the pair's slower median: where on the call-time axis this point sits
    processes: int
    ratio_sd: float  # of log(median(a) / median(b)) between processes
    median_sd: float  # of log(median) between processes (the larger of the pair's)


class ProcessSpread(msgspec.Struct, kw_only=True):
    date: str  # when it was measured (UTC, ISO 8601)
    machine: str = ""  # the CPU and its cores (:func:`here`); "" in files written before: any machine
    environment: str = ""  # Python and JAX's versions (:func:`here`); "" in files written before: any
    points: list[SpreadPoint] = []
    others_cores: float = 0.0  # the most cores other processes used while a case was measured (--busy-ok)


class SpreadFile(msgspec.Struct, kw_only=True):
    """The file: one calibration per machine and environment."""

    spreads: list[ProcessSpread] = []


@lru_cache(maxsize=1)  # fixed for the process; asked for every ratio and median a result holds
def here() -> tuple[str, str]:
    """(machine, environment) of this process, the key a calibration is kept under: the CPU model and the
    cores this process may use; Python's version and the installed jax's and jaxlib's (read from their
    metadata, so that the UI process, which never imports JAX, names the same key as its measuring one)."""
    import importlib.metadata
    import platform

    from tuiperf.results.machine import cpu_model, usable_cores

    def version(name: str) -> str:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return "none"

    machine = f"{usable_cores() or '?'} × {cpu_model()}"
    environment = f"Python {platform.python_version()}, jax {version('jax')}, jaxlib {version('jaxlib')}"
    return machine, environment


def path() -> Path | None:
    """Where the calibration is kept; None when turned off."""
    chosen = os.environ.get(ENV_VAR, "").strip()
    if chosen.lower() in OFF_VALUES:
        return None
    if chosen:
        return Path(chosen).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("tuiperf", appauthor=False)) / FILE_NAME


def load() -> ProcessSpread | None:
    """The calibration for this machine and environment, else one of this machine's in another
    environment (its source then names that environment), else None (none yet, turned off, or
    unreadable: then intervals say so)."""
    spreads = stored()
    if not spreads:
        return None
    machine, environment = here()
    on_machine = [s for s in spreads if _on(s, machine)]
    exact = [s for s in on_machine if s.environment in ("", environment)]
    chosen = exact or on_machine
    return chosen[-1] if chosen else None


def needed() -> bool:
    """Whether a run should measure a calibration first: calibrations are on and none is kept for this
    machine and environment."""
    if path() is None:
        return False
    machine, environment = here()
    return not any(_on(s, machine) and s.environment in ("", environment) for s in stored())


def _on(spread: ProcessSpread, machine: str) -> bool:
    """Whether ``spread`` was measured on ``machine``: files written before named the CPU model alone
    (as results do), or nothing."""
    return spread.machine in ("", machine) or (not spread.environment and machine.endswith(f" × {spread.machine}"))


def stored() -> list[ProcessSpread]:
    """Every usable calibration in the file ([] when none, turned off or unreadable)."""
    where = path()
    if where is None:
        return []
    try:
        stat = where.stat()
    except OSError:
        return []
    return _read(str(where), stat.st_mtime_ns)


@lru_cache(maxsize=4)
def _read(where: str, _mtime: int) -> list[ProcessSpread]:
    try:
        data = Path(where).read_bytes()[:MAX_BYTES]
        spreads = msgspec.json.decode(data, type=SpreadFile).spreads
        if not spreads:  # a file written before held one calibration: {"date": …, "points": […]}
            spreads = [msgspec.json.decode(data, type=ProcessSpread)]
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return []
    return [s for s in spreads if _usable(s)]


def _usable(spread: ProcessSpread) -> bool:
    points = [p for p in spread.points if all(map(math.isfinite, (p.call_ns, p.ratio_sd, p.median_sd)))]
    return bool(points) and all(p.call_ns > 0 and p.processes >= MIN_PROCESSES for p in points)


def save(spread: ProcessSpread) -> Path:
    """Keep ``spread``, replacing the calibration of its machine and environment (the others stay)."""
    where = path()
    if where is None:
        raise OSError(f"${ENV_VAR} is off: the calibration is not kept")
    others = [s for s in stored() if (s.machine, s.environment) != (spread.machine, spread.environment)]
    where.parent.mkdir(parents=True, exist_ok=True)
    tmp = where.with_suffix(".tmp")
    tmp.write_bytes(msgspec.json.format(msgspec.json.encode(SpreadFile(spreads=[*others, spread]))))
    tmp.replace(where)
    return where


def _at(spread: ProcessSpread, call_ns: float, field: str) -> float:
    """The calibrated sd for a call of ``call_ns``: interpolated in log call time, constant beyond, and
    raised to an upper confidence bound (:func:`upper_bound_factor`) for being estimated from a few
    processes."""
    points = sorted(spread.points, key=lambda p: p.call_ns)
    xs = [math.log(p.call_ns) for p in points]
    ys = [getattr(p, field) for p in points]
    fewest = min(p.processes for p in points)
    return float(np.interp(math.log(max(call_ns, 1.0)), xs, ys)) * upper_bound_factor(fewest - 1)


UPPER_CONFIDENCE = 0.90


def upper_bound_factor(df: int, confidence: float = UPPER_CONFIDENCE) -> float:
    """What turns a standard deviation estimated with ``df`` degrees of freedom into its one-sided
    upper confidence bound: sqrt(df / χ²(1 − confidence, df)), the χ² quantile by Wilson and Hilferty's
    cube (within 1 % of the table from 3 degrees of freedom on; wider than the table below 3). 1.76 for 6
    processes at 90 %.

    Why a bound, not the estimate: one calibration widens every later run's interval, so a low draw is
    not averaged out by the next run; it makes every interval too narrow. With Student's t instead
    (× 1.31 for 6 processes, right on average over calibrations) a calibration whose fast case read
    ±0.55 % left re-runs that moved 1.5 % inside their intervals 6 of 9 times; Student's t was itself
    added after the estimate alone held 7 of 9. A normal's sd estimate falls below 0.57 of the true one
    one time in ten with 6 processes."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf(1 - confidence)
    cube = 1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))
    return math.sqrt(1 / max(cube, 1e-3) ** 3)


def ratio_sd(call_ns: float) -> tuple[float, str] | None:
    """(sd of a log ratio between fresh processes, its source in words) for a call this long."""
    spread = load()
    return None if spread is None else (_at(spread, call_ns, "ratio_sd"), source(spread))


def median_sd(call_ns: float) -> tuple[float, str] | None:
    """(sd of a log median between fresh processes, its source in words) for a call this long."""
    spread = load()
    return None if spread is None else (_at(spread, call_ns, "median_sd"), source(spread))


def source(spread: ProcessSpread) -> str:
    said = f"this machine's fresh-process spread, calibrated {spread.date[:10]}"
    if spread.others_cores > QUIET_CORES:  # kept with --busy-ok
        said += f" beside other work ({spread.others_cores:.2f} cores)"
    other = spread.environment and spread.environment != here()[1]
    return f"{said} with {spread.environment}" if other else said


def point_from(result: RunResult, case: str, a: str, b: str) -> SpreadPoint | None:
    """A calibration point from a run in several processes (``--processes N``) of variants a and b."""
    from tuiperf.results.intervals import processes_of

    va, vb = result.variant(a), result.variant(b)
    if va is None or vb is None:
        return None
    pa, pb = processes_of(va.sampling), processes_of(vb.sampling)
    if len(pa) < MIN_PROCESSES or len(pa) != len(pb):
        return None
    ma = np.array([np.median(p.samples_ns) for p in pa])
    mb = np.array([np.median(p.samples_ns) for p in pb])
    if not ((ma > 0).all() and (mb > 0).all()):
        return None
    return SpreadPoint(
        case=case,
        call_ns=float(max(np.median(ma), np.median(mb))),
        processes=len(pa),
        ratio_sd=robust_sd(np.log(ma / mb)),
        median_sd=max(robust_sd(np.log(ma)), robust_sd(np.log(mb))),
    )


SHAMOS = 1.0483  # makes the median pairwise difference a standard deviation for normal data


def robust_sd(logs: np.ndarray) -> float:
    """The processes' spread, robust to one landing far off: Shamos's estimator, 1.048 × the median of
    the pairwise differences. A plain standard deviation is the outlier's: one fresh process in six here
    landed 65 % slow in both variants (66.5 against ~40 µs) and a calibration read a ratio's spread
    ±11 % where the re-runs it was for moved 1.7 %; a process that far off is what ``--processes N``
    and the busy warning are for, not the width of every interval."""
    x = np.asarray(logs, dtype=float)
    pairs = np.abs(x[:, None] - x[None, :])[np.triu_indices(x.size, k=1)]
    return float(SHAMOS * np.median(pairs)) if pairs.size else 0.0
