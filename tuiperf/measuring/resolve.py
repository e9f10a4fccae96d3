"""Check everything a user chose before anything runs: scenario, parameters, variants, sweep, device.

Each problem is one :class:`TuiperfError` line that names the culprit and what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tuiperf.api.params import check_grid, validate
from tuiperf.api.scenario import Scenario
from tuiperf.common.errors import DeviceError, ParamError, ScenarioError
from tuiperf.contract.request import RunRequest
from tuiperf.measuring.env import pick_device, run_devices
from tuiperf.measuring.loading import BrokenScenarioError, load_catalog, load_file
from tuiperf.results.model import Scalar


@dataclass
class Resolved:
    scenario: Scenario
    params: dict[str, Scalar]
    names: list[str]  # variants to run, in declaration order
    device: Any  # a jax Device
    # Each swept parameter with its typed values: one for a sweep, two for a grid, none for one pass.
    axes: list[tuple[str, list[Any]]] = field(default_factory=list)

    def points(self) -> list[dict[str, Scalar]]:
        """The swept parameters' values of every point, a grid row by row (its last parameter fastest)."""
        cells: list[dict[str, Scalar]] = [{}]
        for parameter, values in self.axes:
            cells = [{**cell, parameter: value} for cell in cells for value in values]
        return cells if self.axes else []


def point_label(swept: dict[str, Scalar]) -> str:
    """``n_args=4`` or ``n_args=4, size=64``: a point of a sweep or grid, as messages name it."""
    return ", ".join(f"{name}={value}" for name, value in swept.items())


def resolve(request: RunRequest) -> Resolved:
    """The request's scenario, parameters, variants, sweep and device (its settings were checked on receipt)."""
    scenario = load_scenario(request)
    params = validate(scenario.params, dict(request.params))
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
    swept = [sweep for sweep in (request.sweep, request.grid) if sweep is not None]
    axes = [axis(scenario, params, (name, list(values))) for name, values in swept]
    check_grid(axes)
    for cell in Resolved(scenario, params, names, None, axes).points() if len(axes) > 1 else []:
        check_together(scenario, {**params, **cell})
    device = pick_device(request.device)
    wanted, available = request.settings.devices, len(run_devices(device))
    if wanted > available:
        more = " (on the CPU tuiperf starts a measuring process with that many)" if device.platform == "cpu" else ""
        raise DeviceError(f"asked for {wanted} devices, {device.platform} has {available} here{more}")
    return Resolved(scenario, params, names, device, axes)


def axis(scenario: Scenario, params: dict[str, Scalar], sweep: tuple[str, list[Any]]) -> tuple[str, list[Any]]:
    """One swept parameter's typed values, each checked with the other parameters."""
    parameter, raw_values = sweep
    if parameter not in scenario.params:
        known = ", ".join(scenario.params) or "none"
        raise ParamError(f"cannot sweep unknown parameter {parameter!r} (parameters: {known})")
    if not raw_values:
        raise ParamError(f"sweep over {parameter!r} needs at least one value")
    values = [scenario.params[parameter].parse(v) for v in raw_values]
    for value in values:
        check_together(scenario, {**params, parameter: value})
    return parameter, values


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


def check_together(scenario: Scenario, params: dict[str, Scalar]) -> None:
    """Run the scenario's own check of values that depend on each other."""
    if scenario.check_fn is None:
        return
    try:
        scenario.check_fn(SimpleNamespace(**params))
    except ValueError as exc:
        raise ParamError(str(exc)) from None
