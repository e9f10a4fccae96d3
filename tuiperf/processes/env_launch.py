"""Launching a measuring process in another Python environment: the folder that puts only *this*
tuiperf on that interpreter's path (so both ends speak the same protocol, and the current
environment's libraries never shadow the other's), and the process environment it starts with."""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from tuiperf.common.errors import PythonEnvError
from tuiperf.common.files import user_cache_dir
from tuiperf.contract.environments import PythonEnv

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # .../tuiperf


def import_path(env: PythonEnv) -> str:
    """The PYTHONPATH entry that makes this tuiperf importable from ``env``'s interpreter, and nothing
    else: a folder in the cache holding only a link to this package (made once per package location)."""
    key = hashlib.sha256(str(PACKAGE_DIR).encode()).hexdigest()[:16]
    try:
        folder = user_cache_dir() / "measuring-path" / key
        link = folder / "tuiperf"
        if not link.is_symlink() or Path(os.readlink(link)) != PACKAGE_DIR:
            folder.mkdir(parents=True, exist_ok=True)
            temporary = folder / f".tuiperf.{os.getpid()}"
            temporary.unlink(missing_ok=True)
            temporary.symlink_to(PACKAGE_DIR, target_is_directory=True)
            os.replace(temporary, link)
    except OSError as exc:
        raise PythonEnvError(f"the cache folder cannot be written: {exc.strerror or exc}", where=exc.filename) from None
    return str(folder)


# Variables that would mix the two environments' libraries (or run the user's start-up file).
_MIXING = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONEXECUTABLE", "__PYVENV_LAUNCHER__")


def child_environment(python_path: str | None, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment variables of a process started from another interpreter: the user's, less the
    ones that would put this environment's libraries on its path; ``python_path`` (from
    :func:`import_path`) as its only PYTHONPATH."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if k not in _MIXING}
    if python_path is not None:
        env["PYTHONPATH"] = python_path
    return env


# --- asking an interpreter what it has ---------------------------------------------------------------


def venv_python(folder: Path) -> Path:
    return folder / "Scripts" / "python.exe" if sys.platform == "win32" else folder / "bin" / "python"
