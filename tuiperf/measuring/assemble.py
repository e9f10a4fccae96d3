"""A pass's header (what is known before anything is measured) and its result document."""

from __future__ import annotations

import datetime as _dt
import time

from tuiperf.contract.options import stored
from tuiperf.measuring.context import Outcomes, RunContext
from tuiperf.measuring.env import all_devices, describe_device, environment
from tuiperf.measuring.sampling import Sampled
from tuiperf.measuring.timing import harness_overhead_ns
from tuiperf.measuring.xla_costs import process_memory
from tuiperf.results import document
from tuiperf.results.document import RunHeader
from tuiperf.results.model import Calibration, RunResult, Scalar, ScenarioRef

# JAX's dispatch-mode switch is a CPU setting: an accelerator's calls are always asynchronous.
ASYNC_ON_ACCELERATORS = (
    "calls to an accelerator are always dispatched asynchronously: --dispatch sync applies to the CPU only, "
    "so this run is recorded as async"
)


def header(ctx: RunContext, params: dict[str, Scalar], resolution: float | None, *, with_env: bool = True) -> RunHeader:
    scenario, device = ctx.resolved.scenario, ctx.device
    measured_env = with_env and resolution is not None
    return RunHeader(
        scenario=ScenarioRef(
            id=scenario.id, title=scenario.title, path=scenario.path, source_sha256=scenario.source_sha256 or None
        ),
        params=params,
        device=describe_device(device, all_devices().index(device), count=len(ctx.devices())),
        options=stored(ctx.settings, ctx.resolved.names, dispatch=ctx.dispatch, baseline=baseline(ctx)),
        env=environment(device, resolution) if measured_env else None,
        calibration=(
            Calibration(timer_resolution_ns=resolution, harness_overhead_ns=harness_overhead_ns())
            if measured_env and resolution is not None
            else None
        ),
        started_at=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    )


def baseline(ctx: RunContext) -> str | None:
    """The variant ratios are against: the one asked for, else one the scenario marks reference=True."""
    if ctx.settings.baseline is not None:
        return ctx.settings.baseline
    marked = next((v.name for v in ctx.resolved.scenario.variants.values() if v.reference), None)
    return marked if marked in ctx.resolved.names else None


def result_of(
    ctx: RunContext, header: RunHeader, found: Outcomes, sampled: Sampled | None, started: float
) -> RunResult:
    """The pass's result document (``started``: when the pass began)."""
    partial = ctx.cancel.is_set()
    variants = [
        found.results.get(n) or document.failed(n, "not measured: the run was cancelled") for n in ctx.resolved.names
    ]
    warnings = []
    if partial:
        measured = ", ".join(v.name for v in variants if v.sampling.samples_ns) or "none"
        warnings.append(f"partial result: the run was cancelled (variants with samples: {measured})")
    warnings.extend(found.warnings)  # unfair comparisons
    platform = ctx.device.platform
    if ctx.settings.dispatch == "sync" and platform != "cpu":
        warnings.append(ASYNC_ON_ACCELERATORS)
    multimodal = [v.name for v in variants if len(v.sampling.modes) > 1]
    if multimodal and ctx.dispatch == "async" and platform == "cpu":
        warnings.append(
            f"{len(multimodal)} of {len(variants)} variants have clustered per-call times: expected with JAX's "
            "asynchronous CPU dispatch; compare medians with care, or run with sync dispatch for stable figures"
        )
    result = document.run_result(
        header,
        variants,
        duration_s=time.monotonic() - started,
        partial=partial,
        equivalence=found.equivalence,
        warnings=warnings,
    )
    result.tried = list(found.tried)  # remedies tuiperf tried itself: apart from the user's variants
    result.memory = process_memory(ctx.device)
    result.cluster = ctx.policy.cluster(sampled.plan if sampled is not None else None)
    return result
