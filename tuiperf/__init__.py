"""tuiperf: an interactive terminal explorer for the per-call cost of JAX neural-network code.

Scenario files import what they need from here::

    from tuiperf import Scenario, Int, Float, Choice, Bool, Bench, Step, Skip
    from tuiperf import eqx_filter_jit_level, nnx_jit_level, preflatten  # jit levels for Bench
    from tuiperf import devices, mesh  # the run's devices, for variants that shard (--devices N)

The names are imported on first use (PEP 562): every ``tuiperf.*`` import runs this module first,
and the explorer's UI process, which defines no scenario, would otherwise wait for all of them
before its first frame (benchmarks/ui_startup.py).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and editors see: the same names, explicitly re-exported
    from tuiperf.api.devices import devices as devices
    from tuiperf.api.devices import mesh as mesh
    from tuiperf.api.jit_level import eqx_filter_jit_level as eqx_filter_jit_level
    from tuiperf.api.jit_level import nnx_jit_level as nnx_jit_level
    from tuiperf.api.jit_level import preflatten as preflatten
    from tuiperf.api.params import Bool as Bool
    from tuiperf.api.params import Choice as Choice
    from tuiperf.api.params import Float as Float
    from tuiperf.api.params import Int as Int
    from tuiperf.api.scenario import Bench as Bench
    from tuiperf.api.scenario import Scenario as Scenario
    from tuiperf.api.step import Step as Step
    from tuiperf.common.errors import Skip as Skip

from tuiperf.common.version import __version__

_HOMES = {
    "devices": "tuiperf.api.devices",
    "mesh": "tuiperf.api.devices",
    "Skip": "tuiperf.common.errors",
    "eqx_filter_jit_level": "tuiperf.api.jit_level",
    "nnx_jit_level": "tuiperf.api.jit_level",
    "preflatten": "tuiperf.api.jit_level",
    "Bool": "tuiperf.api.params",
    "Choice": "tuiperf.api.params",
    "Float": "tuiperf.api.params",
    "Int": "tuiperf.api.params",
    "Bench": "tuiperf.api.scenario",
    "Scenario": "tuiperf.api.scenario",
    "Step": "tuiperf.api.step",
}
__all__ = [*sorted(_HOMES), "__version__"]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'tuiperf' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
