"""Python environments a run can measure in: the interpreter tuiperf runs on (``current``) and the
ones the user registered (``tuiperf env add NAME PYTHON``) or had built (``tuiperf env create``).

A measuring process started from another interpreter imports *this* tuiperf's measuring side (so
both ends speak the same protocol) and everything else from its own site-packages: its JAX, its
Flax. Only ``tuiperf`` is put on its path, through a folder that holds nothing but a link to this
package, so the current environment's libraries never shadow the other's.

The work is split as asv splits it: :mod:`~tuiperf.processes.env_registry` (which environments),
:mod:`~tuiperf.processes.env_probe` (what an interpreter has), :mod:`~tuiperf.processes.env_build`
(``env create``) and :mod:`~tuiperf.processes.env_launch` (starting tuiperf there); the types the
front ends need are in :mod:`tuiperf.contract.environments`. This module names them all in one place.
"""

from tuiperf.contract.environments import CURRENT, PythonEnv, current
from tuiperf.processes.env_build import create
from tuiperf.processes.env_launch import child_environment, import_path
from tuiperf.processes.env_probe import (
    LIBRARIES,
    MEASURING_PACKAGES,
    MEASURING_REQUIREMENTS,
    MIN_PYTHON,
    PROBED,
    Probe,
    interpreter_path,
    probe,
    probe_status,
    requirement_name,
    survey,
)
from tuiperf.processes.env_registry import (
    add,
    check_name,
    envs_root,
    lookup,
    registered,
    registered_as,
    registry_path,
    remove,
    save,
)

__all__ = [
    "CURRENT",
    "LIBRARIES",
    "MEASURING_PACKAGES",
    "MEASURING_REQUIREMENTS",
    "MIN_PYTHON",
    "PROBED",
    "Probe",
    "PythonEnv",
    "add",
    "check_name",
    "child_environment",
    "create",
    "current",
    "envs_root",
    "import_path",
    "interpreter_path",
    "lookup",
    "probe",
    "probe_status",
    "registered",
    "registered_as",
    "registry_path",
    "remove",
    "requirement_name",
    "save",
    "survey",
]
