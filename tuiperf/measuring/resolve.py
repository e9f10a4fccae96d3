"""Check everything a user chose before anything runs: scenario, parameters, variants, sweep, device.

Each problem is one :class:`TuiperfError` line that names the culprit and what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tuiperf.api.params import validate
from tuiperf.api.scenario import Scenario
from tuiperf.common.errors import DeviceError, ParamError, ScenarioError
from tuiperf.contract import options
from tuiperf.contract.request import RunRequest
from tuiperf.measuring.env import pick_device, run_devices
from tuiperf.measuring.loading import BrokenScenarioError, load_catalog, load_file


@dataclass
class Resolved:
    scenario: Scenario
    params: dict[str, Any]
    names: list[str]  # variants to run, in declaration order
    device: Any  # a jax Device
    sweep_values: list[Any] | None = None  # typed values of the swept parameter


def resolve(request: RunRequest) -> Resolved:
    options.check(request.settings)
    scenario = load_scenario(request)
    params = validate(scenario.params, request.params)
    check_together(scenario, params)
    names = list(scenario.variants)
    if request.variants:
        unknown = [n for n in request.variants if n not in scenario.variants]
        if unknown:
            raise ParamError(f"unknown variant {unknown[0]!r} (variants: {', '.join(names)})")
        names = [n for n in names if n in request.variants]
    baseline = request.settings.baseline
    if baseline is not None and baseline not in names:
        raise ParamError(f"unknown baseline {baseline!r} (variants of this run: {', '.join(names)})")
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
    device = pick_device(request.device)
    wanted, available = request.settings.devices, len(run_devices(device))
    if wanted > available:
        more = " (on the CPU tuiperf starts a measuring process with that many)" if device.platform == "cpu" else ""
        raise DeviceError(f"asked for {wanted} devices, {device.platform} has {available} here{more}")
    return Resolved(scenario, params, names, device, sweep_values)


def load_scenario(request: RunRequest) -> Scenario:
    """The requested scenario: only its own file when the runner named it, else from the catalog."""
    if request.scenario_path is None:
        return load_catalog(request.scenario_dirs).get(request.scenario)
    try:
        scenario = load_file(Path(request.scenario_path))
    except BrokenScenarioError as exc:
        raise ScenarioError(exc.broken.error, where=exc.broken.where) from None
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
