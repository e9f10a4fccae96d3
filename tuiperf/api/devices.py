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
_CLUSTER: list[int] = [1]  # processes of the JAX cluster this process belongs to (measuring.cluster)


def in_cluster(processes: int) -> None:
    """Called by a process of a cluster run: the run's devices are every process's."""
    _CLUSTER[0] = processes


def use_devices(devices: Sequence[Any]) -> None:
    """Called by the measuring process: the devices this run may use, the chosen one first."""
    _RUN_DEVICES[:] = list(devices)


def devices(n: int | None = None) -> list[Any]:
    """The run's first ``n`` devices (all of them by default), the chosen device first; in a cluster
    run (``--cluster``), ``n`` spread evenly over its processes."""
    available = list(_RUN_DEVICES)
    if not available:
        import jax

        available = jax.devices()
    if n is None:
        return available
    processes = _CLUSTER[0]
    if processes > 1 and 1 <= n <= len(available):
        return spread_over_processes(available, n, processes)
    if not 1 <= n <= len(available):
        if processes > 1 and n > len(available):
            raise ScenarioError(
                f"asked for {n} devices, this run has {len(available)}: a cluster run has --cluster × --devices "
                f"of them ({processes} × {len(available) // processes} here)"
            )
        raise ScenarioError(
            f"asked for {n} devices, this run has {len(available)}: run with --devices {max(n, 1)}"
            + (" (on the CPU tuiperf starts the measuring process with that many)" if n > len(available) else "")
        )
    return available[:n]


def spread_over_processes(available: list[Any], n: int, processes: int) -> list[Any]:
    """``n`` of a cluster's devices, as many from each process, in JAX's global order: every process
    makes every call of a mesh's program, so a mesh must span them all."""
    if n % processes:
        raise ScenarioError(
            f"asked for {n} devices in a cluster of {processes} processes: a mesh spans every process (each "
            f"makes every call), so ask for a multiple of {processes}"
        )
    mine: dict[int, list[Any]] = {}
    for device in available:
        mine.setdefault(device.process_index, []).append(device)
    return [device for group in mine.values() for device in group[: n // processes]]


def mesh(shape: Sequence[int], axes: Sequence[str]) -> Any:
    """A ``jax.sharding.Mesh`` of ``shape`` over the run's first prod(shape) devices, named ``axes``."""
    import numpy as np
    from jax.sharding import Mesh

    if len(shape) != len(axes):
        raise ScenarioError(f"mesh shape {tuple(shape)} and axes {tuple(axes)} differ in length")
    chosen = devices(math.prod(shape))
    return Mesh(np.array(chosen, dtype=object).reshape(tuple(shape)), tuple(axes))


def host_copy(tree: Any) -> Any:
    """Host copies of a pytree's arrays, whole: an array spread over several processes of a cluster
    (not fully addressable here) is gathered from all of them, which every process must do in the same
    order (a collective); any other leaf is fetched as ``jax.device_get`` does."""
    import jax

    def one(leaf: Any) -> Any:
        if isinstance(leaf, jax.Array) and not leaf.is_fully_addressable:
            from jax.experimental import multihost_utils

            return multihost_utils.process_allgather(leaf, tiled=True)
        return jax.device_get(leaf)

    return jax.tree.map(one, tree)
