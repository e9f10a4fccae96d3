"""Messages a run streams to its caller, as plain picklable dataclasses.

The measuring side emits them (throttled to about ten progress updates a second); the worker
process pickles them through a pipe; the CLI prints them and the TUI folds them into its live view.
Results themselves are :mod:`tuiperf.results.model` structs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tuiperf.results.document import RunHeader
    from tuiperf.results.model import RunResult, VariantResult


@dataclass
class RunStarted:
    scenario: str
    variants: list[str]
    device: str
    dispatch: str
    sweep_value: Any = None  # the swept parameter's value for this pass of a sweep, else None
    header: RunHeader | None = None  # what a result needs besides measurements (see document.RunHeader)


@dataclass
class PhaseChanged:
    """A new stage of the run: setup, compile, calibrate, sample, breakdown, profile, guard."""

    phase: str
    variant: str | None = None
    message: str = ""


@dataclass
class SamplesAdded:
    """Per-call times (ns per call) measured since the last SamplesAdded of this variant."""

    variant: str
    samples_ns: list[float]


@dataclass
class Progress:
    fraction: float  # 0..1 of the whole run (of the whole sweep for sweeps)
    elapsed_s: float
    eta_s: float | None
    estimates_ns: dict[str, float] = field(default_factory=dict)  # current median per variant
    counts: dict[str, int] = field(default_factory=dict)  # samples so far per variant


@dataclass
class VariantFinished:
    """One variant is fully measured (or failed, or was skipped)."""

    variant: VariantResult


@dataclass
class RunFailed:
    """The run could not go on (bad input, worker crash). ``partial`` holds what was measured."""

    message: str
    title: str = "Run failed"
    partial: RunResult | None = None


Event = RunStarted | PhaseChanged | SamplesAdded | Progress | VariantFinished | RunFailed
