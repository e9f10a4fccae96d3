"""This machine's process-to-process spread, measured once and reused (``tuiperf calibrate``).

One measuring process cannot see how far the next one will land (memory placement, code layout: a few
% on this project's VM). ``tuiperf calibrate`` runs two built-ins (a ~5 µs call and a ~1 ms call) in
several fresh processes and keeps, for each, how much a ratio of two variants and a variant's median
move from process to process (standard deviations of their logs). Every later single-process run adds
that spread to its intervals, interpolated (in log call time) for its call's duration, and says so with
the calibration's date. The file lives in the user's data folder (``$TUIPERF_CALIBRATION`` chooses
another path; "off" turns it off).
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


class SpreadPoint(msgspec.Struct, kw_only=True):
    """How far fresh processes land apart for one call (standard deviations of log figures)."""

    case: str  # the scenario, parameters and pair measured
    call_ns: float  # the pair's slower median: where on the call-time axis this point sits
    processes: int
    ratio_sd: float  # of log(median(a) / median(b)) between processes
    median_sd: float  # of log(median) between processes (the larger of the pair's)


class ProcessSpread(msgspec.Struct, kw_only=True):
    date: str  # when it was measured (UTC, ISO 8601)
    machine: str = ""  # the CPU, as the runs reported it
    points: list[SpreadPoint] = []


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
    """The stored calibration, or None (none yet, turned off, or unreadable: then intervals say so)."""
    where = path()
    if where is None:
        return None
    try:
        stat = where.stat()
    except OSError:
        return None
    return _read(str(where), stat.st_mtime_ns)


@lru_cache(maxsize=4)
def _read(where: str, _mtime: int) -> ProcessSpread | None:
    try:
        data = Path(where).read_bytes()[:MAX_BYTES]
        spread = msgspec.json.decode(data, type=ProcessSpread)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    points = [p for p in spread.points if all(map(math.isfinite, (p.call_ns, p.ratio_sd, p.median_sd)))]
    return spread if points and all(p.call_ns > 0 for p in points) else None


def save(spread: ProcessSpread) -> Path:
    where = path()
    if where is None:
        raise OSError(f"${ENV_VAR} is off: the calibration is not kept")
    where.parent.mkdir(parents=True, exist_ok=True)
    tmp = where.with_suffix(".tmp")
    tmp.write_bytes(msgspec.json.format(msgspec.json.encode(spread)))
    tmp.replace(where)
    return where


def _at(spread: ProcessSpread, call_ns: float, field: str) -> float:
    """The calibrated sd for a call of ``call_ns``: interpolated in log call time, constant beyond."""
    points = sorted(spread.points, key=lambda p: p.call_ns)
    xs = [math.log(p.call_ns) for p in points]
    ys = [getattr(p, field) for p in points]
    return float(np.interp(math.log(max(call_ns, 1.0)), xs, ys))


def ratio_sd(call_ns: float) -> tuple[float, str] | None:
    """(sd of a log ratio between fresh processes, its source in words) for a call this long."""
    spread = load()
    return None if spread is None else (_at(spread, call_ns, "ratio_sd"), source(spread))


def median_sd(call_ns: float) -> tuple[float, str] | None:
    """(sd of a log median between fresh processes, its source in words) for a call this long."""
    spread = load()
    return None if spread is None else (_at(spread, call_ns, "median_sd"), source(spread))


def source(spread: ProcessSpread) -> str:
    return f"this machine's fresh-process spread, calibrated {spread.date[:10]}"


def point_from(result: RunResult, case: str, a: str, b: str) -> SpreadPoint | None:
    """A calibration point from a run in several processes (``--processes N``) of variants a and b."""
    from tuiperf.results.intervals import processes_of

    va, vb = result.variant(a), result.variant(b)
    if va is None or vb is None:
        return None
    pa, pb = processes_of(va.sampling), processes_of(vb.sampling)
    if len(pa) < 3 or len(pa) != len(pb):
        return None
    ma = np.array([np.median(p.samples_ns) for p in pa])
    mb = np.array([np.median(p.samples_ns) for p in pb])
    if not ((ma > 0).all() and (mb > 0).all()):
        return None
    return SpreadPoint(
        case=case,
        call_ns=float(max(np.median(ma), np.median(mb))),
        processes=len(pa),
        ratio_sd=float(np.std(np.log(ma / mb), ddof=1)),
        median_sd=float(max(np.std(np.log(ma), ddof=1), np.std(np.log(mb), ddof=1))),
    )
