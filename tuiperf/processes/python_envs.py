"""Python environments a run can measure in: the interpreter tuiperf runs on (``current``) and the
ones the user registered (``tuiperf env add NAME PYTHON``) or had built (``tuiperf env create``).

A measuring process started from another interpreter imports *this* tuiperf's measuring side (so
both ends speak the same protocol) and everything else from its own site-packages: its JAX, its
Flax. Only ``tuiperf`` is put on its path, through a folder that holds nothing but a link to this
package, so the current environment's libraries never shadow the other's.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import msgspec

from tuiperf.common.errors import PythonEnvError
from tuiperf.common.files import user_cache_dir, user_data_dir, write_atomic

CURRENT = "current"
PACKAGE_DIR = Path(__file__).resolve().parent.parent  # .../tuiperf
REGISTRY_FILE = "environments.json"


class PythonEnv(msgspec.Struct, frozen=True, kw_only=True):
    """One registered environment."""

    name: str
    python: str  # the interpreter's path, as given (a venv's bin/python is a link: not resolved)
    managed: bool = False  # built by `tuiperf env create` in the user's data folder (removed with it)
    requirements: list[str] = []  # what `env create` installed
    created_at: str = ""


def current() -> PythonEnv:
    return PythonEnv(name=CURRENT, python=sys.executable)


def registry_path() -> Path:
    return user_data_dir() / REGISTRY_FILE


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
    write_atomic(registry_path(), msgspec.json.format(msgspec.json.encode(kept)), force=True)


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
    folder = user_cache_dir() / "measuring-path" / key
    link = folder / "tuiperf"
    if not link.is_symlink() or Path(os.readlink(link)) != PACKAGE_DIR:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / f".tuiperf.{os.getpid()}"
        temporary.unlink(missing_ok=True)
        temporary.symlink_to(PACKAGE_DIR, target_is_directory=True)
        os.replace(temporary, link)
    return str(folder)
