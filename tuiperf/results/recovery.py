"""A measurement is never lost to storage: when neither the ``--json`` file nor the history could
keep a run, a recovery copy goes into the data folder, named so that ``tuiperf show`` finds it."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from tuiperf.common.errors import TuiperfError
from tuiperf.common.text import one_line
from tuiperf.results.model import RunResult


def recovery_folder() -> Path:
    from tuiperf.common.files import user_data_dir

    return user_data_dir() / "unsaved"


def keep(result: RunResult) -> str:
    """Write a recovery copy of ``result``; one line saying where it is, or why it could not be kept."""
    from tuiperf.results import resultfile

    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", result.scenario.id)[:60] or "run"
    name = f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.json"
    try:
        path = resultfile.save(result, recovery_folder() / name)
    except (TuiperfError, OSError) as exc:
        return f"and no recovery copy could be written either: {one_line(exc)}"
    return f"a copy is kept in {one_line(path)} (tuiperf show PATH)"
