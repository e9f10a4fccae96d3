"""The registry of Python environments: the ones the user registered (``tuiperf env add NAME
PYTHON``) or had built (``tuiperf env create``), in one JSON file in the user's data folder."""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import msgspec

from tuiperf.common.errors import PythonEnvError, TuiperfError
from tuiperf.common.files import user_data_dir, write_atomic
from tuiperf.common.text import one_line
from tuiperf.contract.environments import CURRENT, PythonEnv, current
from tuiperf.processes.env_probe import Probe, interpreter_path, probe

REGISTRY_FILE = "environments.json"
ENVS_FOLDER = "envs"  # managed environments: user_data_dir()/envs/NAME
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


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


def check_name(name: str) -> None:
    if name == CURRENT:
        raise PythonEnvError(f"{CURRENT!r} is the Python tuiperf runs on; choose another name")
    if not _NAME.fullmatch(name):
        raise PythonEnvError(
            f"{one_line(name, 60)!r} is not a usable name: letters, digits and - _ . "
            "(at most 40, the first a letter or digit)"
        )


def refuse_taken(name: str, environments: Sequence[PythonEnv]) -> None:
    if any(e.name == name for e in environments):
        raise PythonEnvError(f"an environment {name!r} exists already (`tuiperf env remove {name}` first)")


def register(env: PythonEnv) -> None:
    with _registry_locked():
        known = registered()
        refuse_taken(env.name, known)
        save([*known, env])


def add(name: str, python: str, timeout_s: float = 60) -> tuple[PythonEnv, Probe]:
    """Register the interpreter ``python`` as ``name``, once it is shown to be able to measure (JAX)."""
    check_name(name)
    refuse_taken(name, registered())
    path = str(interpreter_path(python))
    found = probe(path, timeout_s)
    if not found.ok:
        raise PythonEnvError(f"cannot measure there: {found.status}", where=path)
    env = PythonEnv(name=name, python=path)
    register(env)
    return env, found


def same_interpreter(a: str, b: str) -> bool:
    """Two paths that start the same environment: the same file in the same folder (a venv's bin/python
    and bin/python3, /usr/bin/python3 and python3.11); not a venv's link and the interpreter it links to,
    whose packages differ."""
    try:
        return Path(a).parent.resolve() == Path(b).parent.resolve() and os.path.samefile(a, b)
    except OSError:
        return a == b


def registered_as(python: str) -> list[str]:
    """The names under which the interpreter ``python`` is known already (``current`` included): `env add`
    says so rather than take it under another name silently. Empty for a path that is no interpreter
    (`add` says why)."""
    try:
        path = str(interpreter_path(python))
    except TuiperfError:
        return []
    return [e.name for e in [current(), *registered()] if same_interpreter(e.python, path)]


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
