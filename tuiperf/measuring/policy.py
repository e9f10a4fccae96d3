"""What differs between a pass measured by one process and by one process of a cluster: a small
policy object the pass asks at each point where they differ (see :mod:`tuiperf.measuring.cluster`
for the cluster's), instead of a subclass overriding the pass's steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from tuiperf.contract.options import RunSettings
from tuiperf.measuring.env import run_devices

if TYPE_CHECKING:
    from tuiperf.measuring.prepare import Prepared
    from tuiperf.measuring.sampler import Timed
    from tuiperf.results.model import Cluster


@dataclass(frozen=True)
class SamplingPlan:
    """What the sampler runs with: the timer's resolution, a fixed sample count (None: the budget and
    convergence decide), and each variant's time per call where the plan sets it (a cluster's agreed
    estimates; else each variant's own, from preparing it)."""

    resolution_ns: float
    samples: int | None
    estimates_ns: dict[str, float] = field(default_factory=dict)

    def estimate_ns(self, prepared: Prepared) -> float:
        return self.estimates_ns.get(prepared.name, prepared.first.estimate_ns)


@dataclass(frozen=True)
class Across:
    """One variant's figures across a cluster's processes: each one's median, how much of each call
    the slowest process holds the others back, and how often each was the slowest."""

    medians_ns: list[float]
    slowest_share: float | None
    slowest_calls: list[int]


class PassPolicy(Protocol):
    # Sweeps sampled in the same rounds (--sweep-order interleaved) decide each call's count from the
    # clock: a policy whose calls must be decided ahead measures a sweep's points one after another.
    interleaves_sweeps: bool
    fixed_calls: bool  # prepare makes the same calls whatever they cost, and builds no breakdown paths
    profile_refusal: str | None  # why no variant is profiled, or None

    def device(self, resolved: Any) -> Any:
        """The device this process measures on, given the one the request resolved to."""
        ...

    def devices(self, device: Any, settings: RunSettings) -> list[Any]:
        """The devices a variant may use (tuiperf.devices)."""
        ...

    def plan_sampling(self, prepared: list[Prepared], resolution_ns: float, settings: RunSettings) -> SamplingPlan:
        """How the prepared variants are sampled (may set their estimates)."""
        ...

    def after_sampling(self, targets: Sequence[Timed]) -> dict[str, Across]:
        """Figures across processes, per variant (none for one process)."""
        ...

    def guard_outputs(self, checked: list[Prepared]) -> list[Any]:
        """The outputs the guard compares, ready (in the same order in every process)."""
        ...

    def cluster(self, plan: SamplingPlan | None) -> Cluster | None:
        """What the pass's result says of the cluster that measured it (None: one process)."""
        ...


class OneProcess:
    """A pass measured by this process alone: the defaults."""

    interleaves_sweeps = True
    fixed_calls = False
    profile_refusal: str | None = None

    def device(self, resolved: Any) -> Any:
        return resolved

    def devices(self, device: Any, settings: RunSettings) -> list[Any]:
        """The chosen device first, then its platform's others."""
        return run_devices(device)[: settings.devices]

    def plan_sampling(self, prepared: list[Prepared], resolution_ns: float, settings: RunSettings) -> SamplingPlan:
        return SamplingPlan(resolution_ns, settings.samples)

    def after_sampling(self, targets: Sequence[Timed]) -> dict[str, Across]:
        return {}

    def guard_outputs(self, checked: list[Prepared]) -> list[Any]:
        return [item.first.output for item in checked]

    def cluster(self, plan: SamplingPlan | None) -> Cluster | None:
        return None


ONE_PROCESS = OneProcess()
