"""Building a Python environment (``tuiperf env create``): a venv of this Python with the
requirements asked for and what the measuring side needs, registered once it measures."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from tuiperf.common.errors import PythonEnvError, TuiperfError
from tuiperf.common.text import one_line
from tuiperf.contract.environments import PythonEnv
from tuiperf.processes.env_launch import child_environment, venv_python
from tuiperf.processes.env_probe import MEASURING_REQUIREMENTS, Probe, probe
from tuiperf.processes.env_registry import check_name, envs_root, refuse_taken, register, registered


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
    refuse_taken(name, registered())
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
        python = venv_python(folder)
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
        register(env)
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
