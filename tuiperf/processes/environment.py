"""The environment each process tuiperf starts is given: what the loader, the device lister and the
measuring processes may do with an accelerator.

On a GPU, JAX's default is to take 75 % of the device's memory in the first process that computes.
The app keeps several JAX processes (the loader, the measuring process, a pre-warmed spare; a trace
or another tuiperf beside them), so that default would leave the next one almost nothing. The policy:

- the **loader**, which only imports scenario files to describe them, sees the CPU alone
  (``JAX_PLATFORMS=cpu``): discovery never initialises an accelerator;
- **measuring** processes (and the one that lists devices) allocate on demand
  (``XLA_PYTHON_CLIENT_PREALLOCATE=false``) unless the user chose any allocator setting themselves,
  which is then kept as it is. Each result records the settings its process ran with
  (``env.allocator``), so a figure measured under another policy says so.

Only one measuring process computes at a time (the spare initialises no backend before its first
run, and the process it replaces is closed first), so preallocation would cost nothing there but
would starve a ``trace`` or a second tuiperf started beside it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from tuiperf.contract.protocol import ALLOCATOR_VARIABLES, ROLE_VARIABLE

Role = Literal["loader", "devices", "measuring"]
PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent.parent)


def process_environment(
    role: Role, base: Mapping[str, str] | None = None, cpu_devices: int = 1, import_path: str | None = None
) -> dict[str, str]:
    """The environment a process of ``role`` starts with, from ``base`` (this process's by default);
    a measuring process for ``--devices N`` gets N host devices (JAX_NUM_CPU_DEVICES). ``import_path``:
    a process of another Python environment finds this tuiperf there, and only there (its own
    libraries must not be shadowed by a PYTHONPATH meant for this one)."""
    env = dict(os.environ if base is None else base)
    if import_path is not None:
        from tuiperf.processes.python_envs import child_environment

        env = child_environment(import_path, env)
        env["PYTHONSAFEPATH"] = "1"  # `python -m` would put the working folder on its path first
    else:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (PACKAGE_ROOT, env.get("PYTHONPATH", "")) if p)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env[ROLE_VARIABLE] = role
    if role == "loader":
        env["JAX_PLATFORMS"] = "cpu"
        return env
    if not any(name in env for name in ALLOCATOR_VARIABLES):
        env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    if cpu_devices > 1:
        env["JAX_NUM_CPU_DEVICES"] = str(cpu_devices)
    return env
