"""One process of a cluster run (``--cluster N``): join the JAX cluster, then measure in lockstep.

N measuring processes form one JAX cluster (``jax.distributed.initialize``; on the CPU, collectives
over gloo), so a variant's mesh may span every process's devices. A sharded call is then a collective:
every process must make the same calls in the same order, or the ones ahead wait for ever. So nothing
a process decides from its own clock may change what it calls:

- preparing makes the same number of calls whatever they cost, and builds no breakdown paths (the
  breakdown times each path for as long as it needs: :data:`~tuiperf.measuring.prepare.FIXED_CALLS_NO_BREAKDOWN`);
- after preparing, the processes agree (one collective) on the variants they prepared, each call's
  cost (the slowest process's estimate) and the timer's resolution; from these every process derives
  the same sampling plan: a fixed number of samples per variant (``--samples``, or as many as fit
  the budget), the same calls per sample and per turn;
- no profile (it calls a variant alone, for as long as it needs);
- the guard compares outputs gathered from every process (a collective in the same order everywhere).

After sampling the processes exchange their samples (aligned call by call: the same calls in the same
order), so every process's result holds every process's median and how much of each call the slowest
process holds the others back. The parent keeps the result of the first process it started (process 0
unless some processes run on other hosts); its samples are that process's own.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tuiperf.api.devices import in_cluster
from tuiperf.common.errors import ClusterError
from tuiperf.common.text import one_line
from tuiperf.contract.cluster import ClusterMember
from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.measuring.context import Hooks
from tuiperf.measuring.env import all_devices
from tuiperf.measuring.execute import execute
from tuiperf.measuring.policy import Across, SamplingPlan
from tuiperf.measuring.sampler import MAX_SAMPLES, Timed
from tuiperf.measuring.timing import choose_loops
from tuiperf.results.model import Cluster, RunResult

if TYPE_CHECKING:
    from tuiperf.measuring.prepare import Prepared

JOIN_TIMEOUT_S = 120  # every process must have started and reached the coordinator by then
MIN_SAMPLES = 3  # a budget too short for one call per variant still gives a few
NOT_PROFILED = (
    "not profiled in a cluster run: a profile calls one variant alone for as long as it needs, which would "
    "break the lockstep with the other processes"
)

_joined: list[ClusterMember] = []  # the cluster this process belongs to (at most one, for its life)


def join(member: ClusterMember) -> None:
    """Join the cluster ``member`` names (once per process: JAX's distributed runtime starts once)."""
    if _joined:
        if _joined[0] != member:
            raise ClusterError(f"this process already belongs to the cluster at {_joined[0].coordinator}")
        return
    import jax

    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    try:
        jax.distributed.initialize(
            coordinator_address=member.coordinator,
            num_processes=member.processes,
            process_id=member.process_id,
            initialization_timeout=JOIN_TIMEOUT_S,
        )
    except Exception as exc:  # noqa: BLE001 - JAX raises its runtime error; say what it means here
        raise join_error(str(exc), member) from None
    _joined[:] = [member]
    in_cluster(member.processes)


def join_error(text: str, member: ClusterMember) -> ClusterError:
    """JAX's reason for not joining, as the user can act on it. (A failed start of the coordinator
    sometimes crashes the process instead: the parent then checks the port itself.)"""
    text = one_line(text, 200)
    if "Failed to start RPC server" in text:
        return ClusterError(
            f"the coordinator could not listen on {member.coordinator} (the port is in use?): choose another "
            "with --coordinator HOST:PORT, or leave --coordinator out to pick a free one"
        )
    return ClusterError(
        f"process {member.process_id} of {member.processes} could not join the cluster at {member.coordinator}: {text}"
    )


def measure_in_cluster(request: RunRequest, member: ClusterMember, hooks: Hooks) -> RunResult:
    """Join the cluster, then measure ``request`` in lockstep with the other processes."""
    from tuiperf.measuring.inprocess import set_dispatch

    join(member)
    set_dispatch(request.settings.dispatch)  # after joining: both must come before JAX's first computation
    result = execute(request, hooks, InCluster(request.settings))
    if result.cluster is None:  # a sweep: its points say it, and so does the whole
        result.cluster = cluster_record(request.settings, None)
    return result


def cluster_record(settings: RunSettings, samples: int | None) -> Cluster:
    member = _joined[0]
    return Cluster(
        processes=member.processes,
        devices_per_process=settings.devices,
        coordinator=member.coordinator,
        samples_per_variant=samples,
        samples_of=member.process_id,
    )


def gather(values: np.ndarray) -> np.ndarray:
    """Every process's ``values`` (the same shape in each), stacked in process order: a collective."""
    from jax.experimental import multihost_utils

    return np.asarray(multihost_utils.process_allgather(values))


@dataclass(frozen=True)
class Agreed:
    """What every process samples with: the slowest process's estimate of each call, the coarsest timer."""

    estimates_ns: list[float]
    resolution_ns: float


def agree(names: list[str], estimates_ns: list[float], resolution_ns: float) -> Agreed:
    """The processes' common plan; a clear error (in every process alike) when they prepared different
    variants, since their calls would no longer match."""
    key = float(zlib.crc32("\0".join(names).encode()))
    heads = gather(np.array([len(names), key, resolution_ns], dtype=np.float64))
    if not (np.all(heads[:, 0] == len(names)) and np.all(heads[:, 1] == key)):
        raise ClusterError(
            "the processes of the cluster prepared different variants (one failed where another did not): "
            "their calls would no longer match, so the run stops here"
        )
    if not names:
        return Agreed([], float(heads[:, 2].max()))
    everyone = gather(np.array(estimates_ns, dtype=np.float64))
    return Agreed([float(v) for v in everyone.max(axis=0)], float(heads[:, 2].max()))


def samples_for_budget(estimates_ns: list[float], resolution_ns: float, budget_s: float) -> int:
    """Samples per variant so that one sample of each, in turn, fills the budget."""
    round_ns = sum(e * choose_loops(e, resolution_ns) for e in estimates_ns)
    return int(min(MAX_SAMPLES, max(MIN_SAMPLES, budget_s * 1e9 // max(round_ns, 1.0))))


def across_processes(samples: np.ndarray, counts: np.ndarray) -> Across:
    """From every process's samples of one variant (``samples[p, k]``: process p's k-th call, the same
    call in every process; ``counts[p]`` of them taken)."""
    medians = [float(np.median(samples[p, :n])) if n else math.nan for p, n in enumerate(counts)]
    common = int(counts.min())
    if common == 0:
        return Across(medians, None, [0] * len(counts))
    aligned = samples[:, :common]
    slowest, fastest = aligned.max(axis=0), aligned.min(axis=0)
    share = float(np.median((slowest - fastest) / np.where(slowest > 0, slowest, 1.0)))
    who = np.bincount(aligned.argmax(axis=0), minlength=len(counts))
    return Across(medians, share, [int(c) for c in who])


class InCluster:
    """The :class:`~tuiperf.measuring.policy.PassPolicy` of one process of a cluster: every call decided
    ahead, the same in every process."""

    interleaves_sweeps = False  # an interleaved sweep's calls follow the clock: its points go one by one
    fixed_calls = True
    profile_refusal: str | None = NOT_PROFILED

    def __init__(self, settings: RunSettings) -> None:
        self.settings = settings

    def device(self, resolved: Any) -> Any:
        """This process's own first device of the platform chosen (JAX's device list is global: another
        process's devices come first in all but process 0)."""
        import jax

        local = [d for d in jax.local_devices() if d.platform == resolved.platform]
        return local[0] if local else resolved

    def devices(self, device: Any, settings: RunSettings) -> list[Any]:
        """Every process's devices of the platform, in JAX's global order: the same mesh in every process."""
        return [d for d in all_devices() if d.platform == device.platform]

    def plan_sampling(self, prepared: list[Prepared], resolution_ns: float, settings: RunSettings) -> SamplingPlan:
        """The processes agree on each call's cost and the timer; from these, the same sample count."""
        names = [p.name for p in prepared]
        agreed = agree(names, [p.first.estimate_ns for p in prepared], resolution_ns)
        fixed = settings.samples or samples_for_budget(agreed.estimates_ns, agreed.resolution_ns, settings.budget_s)
        # Calls per sample and per turn follow from the estimates: the same everywhere.
        return SamplingPlan(agreed.resolution_ns, fixed, dict(zip(names, agreed.estimates_ns, strict=True)))

    def after_sampling(self, targets: Sequence[Timed]) -> dict[str, Across]:
        """Every process's samples, to every process (aligned call by call), and the figures across them."""
        if not targets:
            return {}
        counts = gather(np.array([len(t.samples) for t in targets], dtype=np.int64))  # [process, target]
        longest = int(counts.max())
        mine = np.full((len(targets), max(longest, 1)), np.nan)
        for row, target in enumerate(targets):
            mine[row, : len(target.samples)] = target.samples
        everyone = gather(mine)  # [process, target, call]
        return {t.name: across_processes(everyone[:, i, :], counts[:, i]) for i, t in enumerate(targets)}

    def guard_outputs(self, checked: list[Prepared]) -> list[Any]:
        from tuiperf.api.devices import host_copy

        return [host_copy(item.first.output) for item in checked]  # the same variants, in the same order, everywhere

    def cluster(self, plan: SamplingPlan | None) -> Cluster:
        return cluster_record(self.settings, plan.samples if plan is not None else None)
