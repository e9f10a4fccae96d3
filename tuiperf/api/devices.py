"""The devices a run may use, for variants that shard: ``tuiperf.devices(n)`` and ``tuiperf.mesh(...)``.

A run measures on one chosen device (``--device``); with ``--devices N`` its measuring process has N
devices of that platform (on the CPU tuiperf starts it with N host devices), and a variant builds its
mesh from them::

    from tuiperf import mesh
    m = mesh((p.devices,), ("data",))          # the first p.devices devices, as a 1-D mesh
    x = jax.device_put(ctx.x, NamedSharding(m, P("data")))

The chosen device comes first, then the platform's other devices in order. Asking for more devices
than the run has is an error that says how to get them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tuiperf.common.errors import ScenarioError

_RUN_DEVICES: list[Any] = []  # set by the measuring run before setup (measuring.run)


def use_devices(devices: Sequence[Any]) -> None:
    """Called by the measuring process: the devices this run may use, the chosen one first."""
    _RUN_DEVICES[:] = list(devices)


def devices(n: int | None = None) -> list[Any]:
    """The run's first ``n`` devices (all of them by default), the chosen device first."""
    available = list(_RUN_DEVICES)
    if not available:
        import jax

        available = jax.devices()
    if n is None:
        return available
    if not 1 <= n <= len(available):
        raise ScenarioError(
            f"asked for {n} devices, this run has {len(available)}: run with --devices {max(n, 1)}"
            + (" (on the CPU tuiperf starts the measuring process with that many)" if n > len(available) else "")
        )
    return available[:n]


def mesh(shape: Sequence[int], axes: Sequence[str]) -> Any:
    """A ``jax.sharding.Mesh`` of ``shape`` over the run's first prod(shape) devices, named ``axes``."""
    import numpy as np
    from jax.sharding import Mesh

    if len(shape) != len(axes):
        raise ScenarioError(f"mesh shape {tuple(shape)} and axes {tuple(axes)} differ in length")
    chosen = devices(math.prod(shape))
    return Mesh(np.array(chosen, dtype=object).reshape(tuple(shape)), tuple(axes))
