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

from tuiperf.api.scenario import Scenario, check_scenario
from tuiperf.catalog.folders import assemble, discover, is_builtin, scenario_dirs
from tuiperf.common.errors import ScenarioError, UnknownScenario
from tuiperf.common.text import one_line
from tuiperf.contract.catalog import Catalog, LoadError, ParamSpec, ScenarioEntry, VariantEntry, scenario_id_from_path


@dataclass
class LoadedCatalog:
    """Every scenario file imported in this process: the scenarios themselves, not their description."""

    scenarios: dict[str, Scenario] = field(default_factory=dict)
    broken: list[LoadError] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)
    shadowed: list[Scenario] = field(default_factory=list)  # built-ins replaced by a user's copy

    def get(self, scenario_id: str) -> Scenario:
        if scenario_id in self.scenarios:
            return self.scenarios[scenario_id]
        for bad in self.broken:
            if bad.id == scenario_id:
                raise ScenarioError(bad.error, where=bad.where)
        known = ", ".join(sorted(self.scenarios)) or "none"
        raise UnknownScenario(f"no scenario {scenario_id!r} (known: {known})")

    def describe(self) -> Catalog:
        described = [entry_of(s) for s in [*self.shadowed, *self.scenarios.values()]]
        return assemble(self.dirs, described, list(self.broken))


def entry_of(scenario: Scenario) -> ScenarioEntry:
    """What the catalog says of a loaded scenario (no callables)."""
    return ScenarioEntry(
        id=scenario.id,
        title=scenario.title,
        question=scenario.question,
        path=scenario.path,
        params=[ParamSpec.of(spec) for spec in scenario.params.values()],
        variants=[
            VariantEntry(name=v.name, equivalent=v.same_as_default, doc=v.doc, reference=v.reference)
            for v in scenario.variants.values()
        ],
        source_sha256=scenario.source_sha256 or None,
    )


def load_catalog(extra_dirs: Iterable[str] = ()) -> LoadedCatalog:
    """Import every scenario file in this process (tests, the REPL): see the module docstring."""
    dirs = scenario_dirs(extra_dirs)
    files, broken = discover(dirs)
    catalog = LoadedCatalog(dirs=[str(d) for d in dirs], broken=broken)
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
            catalog.broken.append(LoadError(path=str(path), error=f"id {scenario.id!r} already used by {first.path}"))
            continue
        catalog.scenarios[scenario.id] = scenario
    return catalog


class BrokenScenarioError(Exception):
    def __init__(self, broken: LoadError) -> None:
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
        raise BrokenScenarioError(LoadError(path=str(path), line=exc.lineno, error=f"SyntaxError: {exc.msg}")) from None
    except SystemExit as exc:
        sys.modules.pop(module_name, None)
        line = _line_in_file(exc, path)
        raise BrokenScenarioError(
            LoadError(path=str(path), line=line, error=f"called sys.exit({exc.code!r}) at import")
        ) from None
    except Exception as exc:  # noqa: BLE001 - any failure of a user's file is reported, never raised
        sys.modules.pop(module_name, None)
        line = _line_in_file(exc, path)
        raise BrokenScenarioError(LoadError(path=str(path), line=line, error=describe_error(exc))) from None


def describe_error(exc: BaseException) -> str:
    """``Type: message`` on one line, even if the exception's ``str()`` raises."""
    if isinstance(exc, ScenarioError):
        return one_line(exc, 300)
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001 - an exception whose str() fails is still reported
        message = "(its message could not be shown)"
    return one_line(f"{type(exc).__name__}: {message}", 300)


def describe_file(path: Path) -> ScenarioEntry | LoadError:
    """Load one file and say what it declares, or why it cannot be used."""
    try:
        return entry_of(load_file(path))
    except BrokenScenarioError as exc:
        return exc.broken


def _line_in_file(exc: BaseException, path: Path) -> int | None:
    """The deepest line of ``path`` in the traceback: where the user's file went wrong."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path:
            line = frame.lineno
    return line
