"""Probing an interpreter: its version, the versions of the measured libraries and of what the
measuring side needs, and whether this tuiperf's measuring side imports there (no JAX import, so it
answers fast). A path that is not a working Python is a :class:`PythonEnvError`, never a traceback."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import msgspec

from tuiperf.common.errors import PythonEnvError
from tuiperf.common.files import user_path
from tuiperf.common.text import one_line
from tuiperf.contract.environments import PythonEnv
from tuiperf.processes.env_launch import child_environment, import_path, venv_python

MIN_PYTHON = (3, 11)  # pyproject's requires-python
# What the measuring side needs beyond JAX and the measured libraries (the ranges of pyproject's
# dependencies); nothing of the UI (Textual, Rich, plotext): tests/test_python_envs.py checks both.
MEASURING_REQUIREMENTS = ("msgspec>=0.18", "numpy>=2.0", "platformdirs>=4")
LIBRARIES = ("jax", "jaxlib", "equinox", "flax", "optax")  # the measured ones, shown by `env list`
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


def requirement_name(requirement: str) -> str:
    """The distribution a requirement names: ``numpy`` of ``numpy>=2.0``."""
    return re.split(r"[\s<>=!~;@\[]", requirement.strip(), maxsplit=1)[0]


MEASURING_PACKAGES = tuple(requirement_name(r) for r in MEASURING_REQUIREMENTS)
PROBED = (*LIBRARIES, *(n for n in MEASURING_PACKAGES if n not in LIBRARIES))


class Probe(msgspec.Struct, frozen=True, kw_only=True):
    """What an interpreter says about itself, asked without importing JAX (so it answers fast)."""

    python: str  # the path asked
    executable: str  # its sys.executable
    version: str  # "3.11.7"
    versions: dict[str, str | None]  # each of PROBED: its installed version, None when missing
    measuring_import: str | None = None  # the error importing tuiperf's measuring side there; None: it imports
    status: str  # "ok", or why it cannot measure, in words
    ok: bool


_MARK = "tuiperf-probe:"
# The first line is a string to Python and `exit 97` to a shell, so a shell given as "a Python" runs
# nothing of the rest. Written for any Python: an old one must still say its version.
# What it asks comes as one JSON argument (``sys.argv[1]``): no value is pasted into its text.
_PROBE_SCRIPT = """''':'; exit 97 #'''
import json, sys
asked = json.loads(sys.argv[1])
report = {"executable": sys.executable, "version": list(sys.version_info[:3])}
try:
    from importlib import metadata
except ImportError:
    metadata = None
versions = {}
for name in asked["names"]:
    try:
        versions[name] = metadata.version(name)
    except Exception:
        versions[name] = None
report["versions"] = versions
try:
    import tuiperf.measuring.serve
    report["measuring_import"] = None
except BaseException as exc:
    report["measuring_import"] = "%s: %s" % (type(exc).__name__, exc)
sys.stdout.write(asked["mark"] + json.dumps(report) + "\\n")
"""
_SHELL_EXIT = 97


class _Report(msgspec.Struct):
    executable: str
    version: list[int]
    versions: dict[str, str | None]
    measuring_import: str | None


def interpreter_path(python: str) -> Path:
    """``python`` as an absolute path (a bare name is looked up on PATH, as a shell does), checked to
    be an executable file. Not resolved: a venv's bin/python is a link out of the venv."""
    if not python.strip():
        raise PythonEnvError("no Python given")
    if os.sep not in python and not python.startswith("~"):
        found = shutil.which(python)
        if found is None:
            raise PythonEnvError(f"no {one_line(python, 60)!r} on PATH (give the interpreter's path)")
        python = found
    path = Path(os.path.abspath(user_path(python)))
    where = str(path)
    if not os.path.lexists(path):
        raise PythonEnvError("does not exist", where=where)
    if path.is_symlink() and not path.exists():
        target = os.readlink(path)
        raise PythonEnvError(
            f"is a link to {target}, which does not exist (a virtual environment whose Python was removed?)",
            where=where,
        )
    if path.is_dir():
        inside = venv_python(path)
        hint = f"; did you mean {inside}?" if inside.exists() else ""
        raise PythonEnvError(f"is a folder, not a Python{hint}", where=where)
    if not path.is_file():
        raise PythonEnvError("is not a regular file, not a Python", where=where)
    if not os.access(path, os.X_OK):
        raise PythonEnvError("is not executable (not a Python?)", where=where)
    return path


def probe(python: str, timeout_s: float = 60) -> Probe:
    """Run ``python`` on a short script (no JAX import) that reports its version, the versions of the
    measured libraries and of what the measuring side needs, and whether this tuiperf's measuring side
    imports there. A path that is not a working Python is a :class:`PythonEnvError`, never a traceback."""
    where = str(interpreter_path(python))
    folder = import_path(PythonEnv(name="probe", python=where))
    try:
        process = subprocess.Popen(
            [where, "-c", _PROBE_SCRIPT, json.dumps({"names": list(PROBED), "mark": _MARK})],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=folder,  # `-c` puts the working folder on sys.path: this one holds only tuiperf
            env=child_environment(folder),
            start_new_session=True,  # so a hang is ended with everything it started
        )
    except OSError as exc:
        raise PythonEnvError(f"cannot be run, not a Python: {exc.strerror or exc}", where=where) from None
    try:
        out, err = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        hang = f"did not answer within {timeout_s:g} s (a Python that hangs at start?)"
        raise PythonEnvError(hang, where=where) from None
    finally:
        _end(process)
    report = _read_report(out, err, process.returncode, where)
    versions = {name: report.versions.get(name) for name in PROBED}
    status = probe_status(tuple(report.version), versions, report.measuring_import)
    return Probe(
        python=where,
        executable=report.executable,
        version=".".join(str(n) for n in report.version),
        versions=versions,
        measuring_import=report.measuring_import,
        status=status,
        ok=status == "ok",
    )


def _end(process: subprocess.Popen[bytes]) -> None:
    """Kill what is left of a probe (its whole session) and reap it, without waiting on its pipes."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
        process.wait()
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def _read_report(out: bytes, err: bytes, code: int, where: str) -> _Report:
    answers = [line for line in out.decode(errors="replace").splitlines() if line.startswith(_MARK)]
    if not answers:
        if code == _SHELL_EXIT:
            raise PythonEnvError("is not a Python: it ran the probe as a shell script", where=where)
        said = [line.strip() for line in err.decode(errors="replace").splitlines() if line.strip()]
        silent = ", no output" if not out.strip() else ""
        # A Python's traceback ends with its error; anything else says what it is at the start.
        line = (said[-1] if "Traceback" in said[0] else said[0]) if said else f"exit status {code}{silent}"
        detail = one_line(line, 160)
        raise PythonEnvError(f"is not a Python: it did not run the probe ({detail})", where=where)
    try:
        return msgspec.json.decode(answers[-1][len(_MARK) :], type=_Report)
    except msgspec.DecodeError:
        raise PythonEnvError("is not a Python tuiperf can use: its answer is malformed", where=where) from None


def probe_status(version: tuple[int, ...], versions: Mapping[str, str | None], measuring_import: str | None) -> str:
    """ "ok", or the first reason an interpreter cannot measure, in words that say what to do."""
    if version[:2] < MIN_PYTHON:
        needed = ".".join(str(n) for n in MIN_PYTHON)
        return f"Python {'.'.join(str(n) for n in version[:2])} is older than tuiperf needs ({needed})"
    if versions.get("jax") is None:
        return "no jax: install jax to measure here"
    if versions.get("jaxlib") is None:
        return "no jaxlib: install jaxlib (jax needs it) to measure here"
    missing = [name for name in MEASURING_PACKAGES if versions.get(name) is None]
    if missing:
        return f"missing {', '.join(missing)}: tuiperf's measuring side needs them (pip install {' '.join(missing)})"
    if measuring_import is not None:
        return f"tuiperf's measuring side does not import here: {one_line(measuring_import, 200)}"
    return "ok"


def survey(environments: Sequence[PythonEnv], timeout_s: float = 60) -> list[Probe | PythonEnvError]:
    """Each environment's probe, or why it cannot be probed; asked side by side (each waits on its Python)."""
    from concurrent.futures import ThreadPoolExecutor

    def ask(env: PythonEnv) -> Probe | PythonEnvError:
        try:
            return probe(env.python, timeout_s)
        except PythonEnvError as exc:
            return exc

    with ThreadPoolExecutor(max_workers=min(4, max(len(environments), 1))) as pool:
        return list(pool.map(ask, environments))


# --- registering and removing ------------------------------------------------------------------------
