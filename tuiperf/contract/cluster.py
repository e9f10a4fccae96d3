"""What a measuring process of a cluster run is told: where the coordinator listens, how many
processes the cluster has, and which one it is (``jax.distributed.initialize``'s three arguments).

The parent (:mod:`tuiperf.processes.cluster`) starts the processes and sends each its member record
with the run; the measuring side (:mod:`tuiperf.measuring.cluster`) joins the cluster before JAX opens
its backend. The same record is what processes on several hosts would receive: only the coordinator's
address changes (see docs/guide/sharded-and-cluster.md).
"""

from __future__ import annotations

import msgspec


class ClusterMember(msgspec.Struct, frozen=True):
    """One process of a cluster: ``process_id`` of ``processes``, coordinated at ``coordinator`` (HOST:PORT)."""

    coordinator: str
    processes: int
    process_id: int
