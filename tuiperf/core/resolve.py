"""Check everything a user chose before anything runs: scenario, parameters, variants, sweep, device.

Each problem is one :class:`TuiperfError` line that names the culprit and what is allowed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tuiperf.core.catalog import BrokenScenarioError, load_catalog, load_file
from tuiperf.core.env import pick_device
from tuiperf.core.errors import ParamError, ScenarioError, TuiperfError
from tuiperf.core.params import validate
from tuiperf.core.runner import DISPATCH_MODES, INTERLEAVE_MODES, MAX_SAMPLES_PER_VARIANT, RunRequest
from tuiperf.core.scenario import Scenario


@dataclass
class Resolved:
    scenario: Scenario
    params: dict[str, Any]
    names: list[str]  # variants to run, in declaration order
    device: Any  # a jax Device
    sweep_values: list[Any] | None = None  # typed values of the swept parameter


def check_options(request: RunRequest) -> None:
    """The run options alone (no scenario needed): the CLI checks these before starting anything."""
    if request.dispatch not in DISPATCH_MODES:
        raise TuiperfError(f"dispatch must be one of {', '.join(DISPATCH_MODES)}, got {request.dispatch!r}")
    if request.interleave not in INTERLEAVE_MODES:
        raise TuiperfError(f"interleave must be one of {', '.join(INTERLEAVE_MODES)}, got {request.interleave!r}")
    if request.samples is not None and not 1 <= request.samples <= MAX_SAMPLES_PER_VARIANT:
        raise ParamError(f"samples must be between 1 and {MAX_SAMPLES_PER_VARIANT:,}, got {request.samples}")
    if not (math.isfinite(request.budget_s) and 0 < request.budget_s <= 24 * 3600):
        raise ParamError(f"budget must be a positive number of seconds up to a day, got {request.budget_s}")
    if request.timeout_s is not None and not (math.isfinite(request.timeout_s) and request.timeout_s > 0):
        raise ParamError(f"timeout must be a positive number of seconds, got {request.timeout_s}")
    if not 1 <= request.processes <= 100:
        raise ParamError(f"processes must be between 1 and 100, got {request.processes}")


def resolve(request: RunRequest) -> Resolved:
    check_options(request)
    scenario = load_scenario(request)
    params = validate(scenario.params, request.params)
    check_together(scenario, params)
    names = list(scenario.variants)
    if request.variants:
        unknown = [n for n in request.variants if n not in scenario.variants]
        if unknown:
            raise ParamError(f"unknown variant {unknown[0]!r} (variants: {', '.join(names)})")
        names = [n for n in names if n in request.variants]
    if request.baseline is not None and request.baseline not in names:
        raise ParamError(f"unknown baseline {request.baseline!r} (variants of this run: {', '.join(names)})")
    sweep_values = None
    if request.sweep is not None:
        parameter, raw_values = request.sweep
        if parameter not in scenario.params:
            known = ", ".join(scenario.params) or "none"
            raise ParamError(f"cannot sweep unknown parameter {parameter!r} (parameters: {known})")
        if not raw_values:
            raise ParamError(f"sweep over {parameter!r} needs at least one value")
        sweep_values = [scenario.params[parameter].parse(v) for v in raw_values]
        for value in sweep_values:
            check_together(scenario, {**params, parameter: value})
    return Resolved(scenario, params, names, pick_device(request.device), sweep_values)


def load_scenario(request: RunRequest) -> Scenario:
    """The requested scenario: only its own file when the runner named it, else from the catalog."""
    if request.scenario_path is None:
        return load_catalog(request.scenario_dirs).get(request.scenario)
    try:
        scenario = load_file(Path(request.scenario_path))
    except BrokenScenarioError as exc:
        broken = exc.broken
        raise ScenarioError(
            broken.message, where=f"{broken.path}:{broken.line}" if broken.line else broken.path
        ) from None
    if scenario.id != request.scenario:
        raise ScenarioError(f"{request.scenario_path} now defines {scenario.id!r}, not {request.scenario!r}")
    return scenario


def check_together(scenario: Scenario, params: dict[str, Any]) -> None:
    """Run the scenario's own check of values that depend on each other."""
    if scenario.check_fn is None:
        return
    try:
        scenario.check_fn(SimpleNamespace(**params))
    except ValueError as exc:
        raise ParamError(str(exc)) from None
