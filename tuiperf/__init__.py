"""tuiperf: an interactive terminal explorer for the per-call cost of JAX neural-network code.

Scenario files import what they need from here::

    from tuiperf import Scenario, Int, Float, Choice, Bool, Bench, Step, Skip
    from tuiperf import eqx_filter_jit_level, nnx_jit_level, preflatten  # jit levels for Bench
"""

from tuiperf.core.errors import Skip
from tuiperf.core.jit_level import eqx_filter_jit_level, nnx_jit_level, preflatten
from tuiperf.core.params import Bool, Choice, Float, Int
from tuiperf.core.scenario import Bench, Scenario
from tuiperf.core.step import Step

__version__ = "0.1.0"
__all__ = [
    "Bench",
    "Bool",
    "Choice",
    "Float",
    "Int",
    "Scenario",
    "Skip",
    "Step",
    "__version__",
    "eqx_filter_jit_level",
    "nnx_jit_level",
    "preflatten",
]
