"""Describing scenario files in a loader process, one at a time, so that none can harm the caller.

A scenario file may do anything at import: raise, call ``sys.exit`` or ``os._exit``, crash the
interpreter, loop forever, print megabytes. Each file is described by a separate process (kept for
the next file while it behaves), with a time limit; a file that kills or hangs it is reported with
a one-line reason ("exited with status 3 at import", "was killed by SIGSEGV at import", "did not
finish importing within 10 s"), the process is replaced, and the remaining files still load. What a
file prints goes to the loader's log, never to the caller's output.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from tuiperf.catalog.folders import assemble, discover, scenario_dirs
from tuiperf.common.errors import TuiperfError
from tuiperf.contract.catalog import Catalog, LoadError, ScenarioEntry
from tuiperf.contract.protocol import DescribeFile
from tuiperf.processes.process import ProcessStopped, TimedOut

IMPORT_TIMEOUT_S = float(os.environ.get("TUIPERF_IMPORT_TIMEOUT", "10"))  # seconds one file may take to import


def import_failure(stop: ProcessStopped) -> str:
    """Why a file could not be imported, when its import stopped the loader process."""
    match stop.reason:
        case TimedOut(seconds):
            return f"did not finish importing within {seconds:g} s"
        case _:
            return f"{stop.how} at import"


def load_isolated(
    extra_dirs: list[str], child: Callable[[], Any], drop: Callable[[], None], timeout_s: float = IMPORT_TIMEOUT_S
) -> Catalog:
    """The catalog of ``extra_dirs`` (plus the built-ins), described by ``child()`` processes;
    ``drop()`` discards the current one after a file harmed it."""
    dirs = scenario_dirs(extra_dirs)
    files, broken = discover(dirs)
    described: list[ScenarioEntry] = []
    for path in files:
        try:
            answer = child().request(DescribeFile(str(path)), timeout_s=timeout_s).entry
        except ProcessStopped as stop:
            broken.append(LoadError(path=str(path), error=import_failure(stop)))
            drop()
            continue
        except TuiperfError as exc:
            broken.append(LoadError(path=str(path), error=exc.message))
            continue
        if isinstance(answer, ScenarioEntry):
            described.append(answer)
        else:
            broken.append(answer)
    return assemble([str(d) for d in dirs], described, broken)
