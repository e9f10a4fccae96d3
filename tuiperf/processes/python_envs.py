"""Python environments a run can measure in: the interpreter tuiperf runs on (``current``) and the
ones the user registered (``tuiperf env add NAME PYTHON``) or had built (``tuiperf env create``).

A measuring process started from another interpreter imports *this* tuiperf's measuring side (so
both ends speak the same protocol) and everything else from its own site-packages: its JAX, its
Flax. Only ``tuiperf`` is put on its path, through a folder that holds nothing but a link to this
package, so the current environment's libraries never shadow the other's.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from tuiperf.common.errors import PythonEnvError, TuiperfError
from tuiperf.common.files import user_cache_dir, user_data_dir, user_path, write_atomic
from tuiperf.common.text import one_line
from tuiperf.contract.environments import CURRENT as CURRENT
from tuiperf.contract.environments import PythonEnv as PythonEnv
from tuiperf.contract.environments import current as current

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # .../tuiperf
REGISTRY_FILE = "environments.json"
ENVS_FOLDER = "envs"  # managed environments: user_data_dir()/envs/NAME
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


def _data_dir() -> Path:
    try:
        return user_data_dir()
    except OSError as exc:
        raise PythonEnvError(f"the data folder cannot be made: {exc.strerror or exc}", where=exc.filename) from None


def registry_path() -> Path:
    return _data_dir() / REGISTRY_FILE


def envs_root() -> Path:
    """Where `tuiperf env create` builds environments, one folder per name."""
    return _data_dir() / ENVS_FOLDER


def registered() -> list[PythonEnv]:
    """``current`` first, then the registered environments by name."""
    path = registry_path()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [current()]
    except OSError as exc:
        raise PythonEnvError(f"the environment list cannot be read: {exc.strerror}", where=str(path)) from None
    try:
        others = msgspec.json.decode(data, type=list[PythonEnv])
    except msgspec.ValidationError as exc:
        raise PythonEnvError(f"the environment list is not valid: {exc}", where=str(path)) from None
    except msgspec.DecodeError:
        raise PythonEnvError("the environment list is not valid JSON", where=str(path)) from None
    return [current(), *sorted((e for e in others if e.name != CURRENT), key=lambda e: e.name)]


def save(environments: list[PythonEnv]) -> None:
    """Write the registered environments (``current`` is never stored)."""
    kept = [e for e in environments if e.name != CURRENT]
    try:
        write_atomic(registry_path(), msgspec.json.format(msgspec.json.encode(kept)), force=True)
    except PythonEnvError:
        raise
    except TuiperfError as exc:
        raise PythonEnvError(f"the environment list cannot be written: {exc.message}", where=exc.where) from None


@contextmanager
def _registry_locked() -> Iterator[None]:
    """One change to the list at a time: two `env add` at once both keep theirs."""
    if sys.platform == "win32":
        yield
        return
    import fcntl

    path = _data_dir() / f".{REGISTRY_FILE}.lock"
    try:
        handle = open(path, "a")  # noqa: SIM115 - held for the with-block below
    except OSError as exc:
        raise PythonEnvError(f"the environment list cannot be locked: {exc.strerror or exc}", where=str(path)) from None
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def lookup(name: str) -> PythonEnv:
    """The environment called ``name``; a clear error naming the known ones if there is none."""
    known = registered()
    for env in known:
        if env.name == name:
            return env
    names = ", ".join(e.name for e in known)
    raise PythonEnvError(f"no environment {name!r} (known: {names}; add one with `tuiperf env add NAME PYTHON`)")


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
        inside = _venv_python(path)
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


def check_name(name: str) -> None:
    if name == CURRENT:
        raise PythonEnvError(f"{CURRENT!r} is the Python tuiperf runs on; choose another name")
    if not _NAME.fullmatch(name):
        raise PythonEnvError(
            f"{one_line(name, 60)!r} is not a usable name: letters, digits and - _ . "
            "(at most 40, the first a letter or digit)"
        )


def _refuse_taken(name: str, environments: Sequence[PythonEnv]) -> None:
    if any(e.name == name for e in environments):
        raise PythonEnvError(f"an environment {name!r} exists already (`tuiperf env remove {name}` first)")


def _register(env: PythonEnv) -> None:
    with _registry_locked():
        known = registered()
        _refuse_taken(env.name, known)
        save([*known, env])


def add(name: str, python: str, timeout_s: float = 60) -> tuple[PythonEnv, Probe]:
    """Register the interpreter ``python`` as ``name``, once it is shown to be able to measure (JAX)."""
    check_name(name)
    _refuse_taken(name, registered())
    path = str(interpreter_path(python))
    found = probe(path, timeout_s)
    if not found.ok:
        raise PythonEnvError(f"cannot measure there: {found.status}", where=path)
    env = PythonEnv(name=name, python=path)
    _register(env)
    return env, found


def _managed_folder(env: PythonEnv) -> Path | None:
    """The folder `env create` built for ``env`` when it is exactly ``envs_root()/NAME`` (a real folder
    holding the registered interpreter); None for anything else, which is then never deleted."""
    root = envs_root()
    if not _NAME.fullmatch(env.name):
        return None
    folder = root / env.name
    if folder.is_symlink() or not folder.is_dir() or folder.resolve().parent != root.resolve():
        return None
    if Path(os.path.abspath(env.python)).parent.parent != folder:
        return None
    return folder


def remove(name: str) -> tuple[PythonEnv, str]:
    """Unregister ``name``; one that `env create` built is deleted with its folder. Returns it and what
    became of its files, in words ("" for one that was only registered)."""
    if name == CURRENT:
        raise PythonEnvError(f"{CURRENT!r} is the Python tuiperf runs on; it cannot be removed")
    with _registry_locked():
        env = lookup(name)
        folder = _managed_folder(env) if env.managed else None
        save([e for e in registered() if e.name != name])
    if not env.managed:
        return env, ""
    if folder is None:
        return env, f"its files are not in {envs_root() / env.name}: nothing deleted"
    try:
        shutil.rmtree(folder)
    except OSError as exc:
        raise PythonEnvError(
            f"unregistered, but its folder could not be deleted: {exc.strerror or exc}", where=str(folder)
        ) from None
    return env, f"deleted {folder}"


# --- building one ------------------------------------------------------------------------------------


def _venv_python(folder: Path) -> Path:
    return folder / "Scripts" / "python.exe" if sys.platform == "win32" else folder / "bin" / "python"


def _check_requirements(requirements: Sequence[str]) -> None:
    if not requirements:
        raise PythonEnvError("no requirements given (e.g. 'jax==0.7.2' 'flax==0.12.0')")
    for requirement in requirements:
        if not requirement.strip() or requirement.startswith("-"):
            raise PythonEnvError(
                f"{one_line(requirement, 60)!r} is not a requirement (pip options are not passed on; "
                "set PIP_* variables, e.g. PIP_INDEX_URL, instead)"
            )


def create(
    name: str, requirements: Sequence[str], on_output: Callable[[str], None] | None = None
) -> tuple[PythonEnv, Probe]:
    """Build a virtual environment in ``envs_root()/NAME`` from this Python (same version), pip-install
    ``requirements`` and :data:`MEASURING_REQUIREMENTS` (with pip's cache; its output lines go to
    ``on_output``), probe it and register it. Any failure, Ctrl-C included, deletes the folder and
    registers nothing."""
    say = on_output or (lambda line: None)
    check_name(name)
    _refuse_taken(name, registered())
    _check_requirements(requirements)
    root = envs_root()
    folder = root / name
    try:
        root.mkdir(exist_ok=True)
        folder.mkdir()  # claims the name: a second `env create NAME` at the same time stops here
    except FileExistsError:
        raise PythonEnvError(
            "exists already (an `env create` under way, or one that was killed): delete it or choose another name",
            where=str(folder),
        ) from None
    except OSError as exc:
        raise PythonEnvError(f"cannot be made: {exc.strerror or exc}", where=str(folder)) from None
    try:
        say(f"building a virtual environment in {folder}")
        _stream([sys.executable, "-m", "venv", str(folder)], say, "could not build a virtual environment")
        python = _venv_python(folder)
        wanted = [*requirements, *MEASURING_REQUIREMENTS]
        say("installing " + " ".join(wanted))
        pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off"]
        _stream([*pip, *wanted], say, "pip could not install the requirements")
        say("checking the new environment")
        found = probe(str(python))
        if not found.ok:
            raise PythonEnvError(f"the new environment cannot measure: {found.status}")
        env = PythonEnv(
            name=name,
            python=str(python),
            managed=True,
            requirements=list(requirements),
            created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        _register(env)
    except BaseException as exc:
        shutil.rmtree(folder, ignore_errors=True)
        if isinstance(exc, TuiperfError):
            raise PythonEnvError(f"{exc.message}; nothing was kept", where=exc.where) from None
        if isinstance(exc, OSError):
            raise PythonEnvError(f"env create failed: {exc.strerror or exc}; nothing was kept") from None
        raise
    return env, found


def _stream(command: list[str], say: Callable[[str], None], failure: str) -> None:
    """Run ``command``, each line of its output to ``say``; a failure raises ``failure`` with pip's
    first error line (it names the requirement). Stopped (Ctrl-C), the command has ended when this
    returns, so its folder can be deleted."""
    errors: list[str] = []
    last = ""
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=child_environment(None),  # the user's PYTHONPATH would make pip think things are installed
            text=True,
            errors="replace",
        )
    except OSError as exc:
        raise PythonEnvError(f"{failure}: {exc.strerror or exc}") from None
    try:
        assert process.stdout is not None
        for raw in process.stdout:
            line = raw.rstrip("\n")
            last = line.strip() or last
            if line.startswith("ERROR:") and len(errors) < 20:
                errors.append(line.removeprefix("ERROR:").strip())
            say(line)
        code = process.wait()
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stdout is not None:
            process.stdout.close()
    if code != 0:
        reason = errors[0] if errors else last or f"exit status {code}"
        raise PythonEnvError(f"{failure}: {one_line(reason, 300)}")
