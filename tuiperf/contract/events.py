"""Messages a run streams to its caller, as typed msgspec structs (tagged: one of them decodes by its
class name, :mod:`tuiperf.contract.wire`).

The measuring side emits them (throttled to about ten progress updates a second); the measuring
process sends them through a socket; the CLI prints them and the TUI folds them into its live view.
Results themselves are :mod:`tuiperf.results.model` structs.
"""

from __future__ import annotations

import msgspec

from tuiperf.results.document import RunHeader
from tuiperf.results.model import RunResult, Scalar, VariantResult


class RunStarted(msgspec.Struct, tag=True):
    scenario: str
    variants: list[str]
    device: str
    dispatch: str
    sweep_value: Scalar | None = None  # the swept parameter's value for this pass of a sweep, else None
    header: RunHeader | None = None  # what a result needs besides measurements (see document.RunHeader)


class PhaseChanged(msgspec.Struct, tag=True):
    """A new stage of the run: setup, compile, calibrate, sample, breakdown, profile, guard."""

    phase: str
    variant: str | None = None
    message: str = ""


class SamplesAdded(msgspec.Struct, tag=True):
    """Per-call times (ns per call) measured since the last SamplesAdded of this variant."""

    variant: str
    samples_ns: list[float]


class Progress(msgspec.Struct, tag=True):
    fraction: float  # 0..1 of the whole run (of the whole sweep for sweeps)
    elapsed_s: float
    eta_s: float | None
    estimates_ns: dict[str, float] = {}  # current median per variant
    counts: dict[str, int] = {}  # samples so far per variant


class VariantFinished(msgspec.Struct, tag=True):
    """One variant is fully measured (or failed, or was skipped)."""

    variant: VariantResult


class RunFailed(msgspec.Struct, tag=True):
    """The run could not go on (bad input, worker crash). ``partial`` holds what was measured."""

    message: str
    title: str = "Run failed"
    partial: RunResult | None = None


Event = RunStarted | PhaseChanged | SamplesAdded | Progress | VariantFinished | RunFailed
