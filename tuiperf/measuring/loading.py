"""Importing scenario files into this process: the measuring process imports its run's one file, the
loader process describes each file in turn, and tests and the REPL load a whole catalog here
(:func:`load_catalog`). Finding the files is :mod:`tuiperf.catalog.folders`'s job; this module runs
their code.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tuiperf.api.scenario import Scenario, check_scenario
from tuiperf.catalog.folders import BrokenScenario, assemble, discover, is_builtin, scenario_dirs, scenario_id_from_path
from tuiperf.common.errors import ScenarioError, UnknownScenario
from tuiperf.common.text import one_line


@dataclass
class Catalog:
    scenarios: dict[str, Scenario] = field(default_factory=dict)
    broken: list[BrokenScenario] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)
    shadowed: list[Scenario] = field(default_factory=list)  # built-ins replaced by a user's copy

    def get(self, scenario_id: str) -> Scenario:
        if scenario_id in self.scenarios:
            return self.scenarios[scenario_id]
        for bad in self.broken:
            if bad.id == scenario_id:
                raise ScenarioError(bad.message, where=f"{bad.path}:{bad.line}" if bad.line else bad.path)
        known = ", ".join(sorted(self.scenarios)) or "none"
        raise UnknownScenario(f"no scenario {scenario_id!r} (known: {known})")

    def describe(self) -> dict:
        described = [s.describe() for s in [*self.shadowed, *self.scenarios.values()]]
        return assemble(self.dirs, described, [b.describe() for b in self.broken])


def load_catalog(extra_dirs: Iterable[str] = ()) -> Catalog:
    """Import every scenario file in this process (tests, the REPL): see the module docstring."""
    dirs = scenario_dirs(extra_dirs)
    files, broken = discover(dirs)
    catalog = Catalog(dirs=[str(d) for d in dirs], broken=broken)
    for path in files:
        try:
            scenario = load_file(path)
        except BrokenScenarioError as exc:
            catalog.broken.append(exc.broken)
            continue
        first = catalog.scenarios.get(scenario.id)
        if first is not None and is_builtin(first.path) and not is_builtin(path):
            catalog.shadowed.append(first)  # a user's copy shadows the built-in, as in assemble()
            catalog.scenarios[scenario.id] = scenario
            continue
        if first is not None:
            catalog.broken.append(BrokenScenario(str(path), None, f"id {scenario.id!r} already used by {first.path}"))
            continue
        catalog.scenarios[scenario.id] = scenario
    return catalog


class BrokenScenarioError(Exception):
    def __init__(self, broken: BrokenScenario) -> None:
        super().__init__(str(broken))
        self.broken = broken


def load_file(path: Path) -> Scenario:
    """Import one scenario file under a private module name and return its ``scenario``."""
    path = Path(path).resolve()
    module_name = f"tuiperf_scenario_{hashlib.sha1(str(path).encode()).hexdigest()[:12]}"
    try:
        source = path.read_bytes()
        spec = importlib.util.spec_from_file_location(module_name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module  # dataclasses and pickling look modules up by name
        spec.loader.exec_module(module)
        scenario = getattr(module, "scenario", None)
        if not isinstance(scenario, Scenario):
            raise ScenarioError("the file must define `scenario = Scenario(...)` at module level")
        scenario.id = scenario.id or scenario_id_from_path(path)
        scenario.path = str(path)
        scenario.source_sha256 = hashlib.sha256(source).hexdigest()
        check_scenario(scenario)
        return scenario
    except SyntaxError as exc:
        sys.modules.pop(module_name, None)
        raise BrokenScenarioError(BrokenScenario(str(path), exc.lineno, f"SyntaxError: {exc.msg}")) from None
    except SystemExit as exc:
        sys.modules.pop(module_name, None)
        line = _line_in_file(exc, path)
        raise BrokenScenarioError(BrokenScenario(str(path), line, f"called sys.exit({exc.code!r}) at import")) from None
    except Exception as exc:  # noqa: BLE001 - any failure of a user's file is reported, never raised
        sys.modules.pop(module_name, None)
        line = _line_in_file(exc, path)
        raise BrokenScenarioError(BrokenScenario(str(path), line, describe_error(exc))) from None


def describe_error(exc: BaseException) -> str:
    """``Type: message`` on one line, even if the exception's ``str()`` raises."""
    if isinstance(exc, ScenarioError):
        return one_line(exc, 300)
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001 - an exception whose str() fails is still reported
        message = "(its message could not be shown)"
    return one_line(f"{type(exc).__name__}: {message}", 300)


def describe_file(path: Path) -> dict[str, Any]:
    """Load one file and describe it as plain data: ``{"scenario": {...}}`` or ``{"broken": {...}}``."""
    try:
        scenario = load_file(path)
    except BrokenScenarioError as exc:
        return {"broken": exc.broken.describe()}
    return {"scenario": {**scenario.describe(), "source_sha256": scenario.source_sha256}}


def _line_in_file(exc: BaseException, path: Path) -> int | None:
    """The deepest line of ``path`` in the traceback: where the user's file went wrong."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path:
            line = frame.lineno
    return line
