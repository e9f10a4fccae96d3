"""tuiperf: an interactive terminal explorer for the per-call cost of JAX neural-network code.

Scenario files import what they need from here::

    from tuiperf import Scenario, Int, Float, Choice, Bool, Bench, Skip
"""

from tuiperf.core.errors import Skip
from tuiperf.core.params import Bool, Choice, Float, Int
from tuiperf.core.scenario import Bench, Scenario

__version__ = "0.1.0"
__all__ = ["Bench", "Bool", "Choice", "Float", "Int", "Scenario", "Skip", "__version__"]
