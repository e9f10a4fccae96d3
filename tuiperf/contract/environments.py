"""The Python environments a run can measure in, as the front ends see them: a name and an interpreter.
The registry, probing, building and launching live in :mod:`tuiperf.processes.python_envs`."""

from __future__ import annotations

import sys

import msgspec

CURRENT = "current"  # the interpreter tuiperf runs on


class PythonEnv(msgspec.Struct, frozen=True, kw_only=True):
    """One registered environment."""

    name: str
    python: str  # the interpreter's path, as given (a venv's bin/python is a link: not resolved)
    managed: bool = False  # built by `tuiperf env create` in the user's data folder (removed with it)
    requirements: list[str] = []  # what `env create` installed
    created_at: str = ""


def current() -> PythonEnv:
    return PythonEnv(name=CURRENT, python=sys.executable)
