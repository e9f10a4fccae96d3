"""Result documents built from given samples, through the one writer (no JAX needed)."""

from __future__ import annotations

from collections.abc import Sequence

from tuiperf.results import document
from tuiperf.results.document import RunHeader
from tuiperf.results.model import Breakdown, DeviceInfo, Environment, RunOptions, RunResult, ScenarioRef, Stage
from tuiperf.results.reconcile import stage_values


def header(
    scenario: str = "s", params: dict | None = None, dispatch: str = "sync", packages: dict | None = None
) -> RunHeader:
    return RunHeader(
        scenario=ScenarioRef(id=scenario, title=scenario.title()),
        params=dict(params or {}),
        device=DeviceInfo(id="cpu:0", platform="cpu", kind="cpu", index=0),
        options=RunOptions(dispatch=dispatch),
        env=Environment(python="3.11.7", packages=dict(packages or {"jax": "0.10.2"}), dispatch=dispatch),
    )


def result(samples: dict[str, Sequence[float]], **header_fields) -> RunResult:
    """A complete result with one variant per entry of ``samples``."""
    variants = [document.variant_result(name, samples_ns=values) for name, values in samples.items()]
    return document.run_result(header(**header_fields), variants, duration_s=1.0)


def steady(median: float, n: int = 300, spread: int = 13) -> list[float]:
    """Deterministic, tight samples around ``median``."""
    return [median * (1 + (i % spread - spread // 2) / 1000) for i in range(n)]


def breakdown(paths: dict[str, float], groups: dict[str, list[float]] | None = None, reliable=True) -> Breakdown:
    """A breakdown whose stages follow from the given path medians (as the sampler's would)."""
    stages = {k: Stage(v) for k, v in stage_values(paths).items()}
    return Breakdown(
        stages=stages,
        call_ns=paths["call"],
        total_ns=paths["call"],
        residual_ns=0.0,
        reliable=reliable,
        paths_ns=paths,
        groups_ns=groups or {},
    )
