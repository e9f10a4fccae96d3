"""Finding and loading scenario files, each in isolation.

Built-in scenarios live in the repository's ``scenarios/`` folder; a wheel ships them inside the
package as ``tuiperf/builtin_scenarios``. Users add folders with ``--scenarios DIR`` or the
``TUIPERF_SCENARIOS`` variable (``os.pathsep``-separated). A file that fails to import or declares
something invalid becomes a :class:`BrokenScenario` (file, line, message); the others still load.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from tuiperf.core.errors import ScenarioError, UnknownScenario
from tuiperf.core.scenario import Scenario, check_scenario

ENV_VAR = "TUIPERF_SCENARIOS"
_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def builtin_dir() -> Path:
    shipped = _PACKAGE_DIR / "builtin_scenarios"  # inside an installed wheel
    return shipped if shipped.is_dir() else _PACKAGE_DIR.parent / "scenarios"  # a checkout


def scenario_dirs(extra: list[str] | tuple[str, ...] = ()) -> list[Path]:
    """Built-in folder first, then ``extra`` folders, then those named in $TUIPERF_SCENARIOS."""
    from_env = [p for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p.strip()]
    dirs: list[Path] = []
    for candidate in [builtin_dir(), *map(Path, extra), *map(Path, from_env)]:
        resolved = candidate.expanduser().resolve()
        if resolved not in dirs:
            dirs.append(resolved)
    return dirs


@dataclass
class BrokenScenario:
    path: str
    line: int | None
    message: str

    @property
    def id(self) -> str:
        return scenario_id_from_path(Path(self.path))

    def describe(self) -> dict:
        return {"id": self.id, "path": self.path, "line": self.line, "error": self.message}

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


@dataclass
class Catalog:
    scenarios: dict[str, Scenario] = field(default_factory=dict)
    broken: list[BrokenScenario] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)

    def get(self, scenario_id: str) -> Scenario:
        if scenario_id in self.scenarios:
            return self.scenarios[scenario_id]
        for bad in self.broken:
            if bad.id == scenario_id:
                raise ScenarioError(bad.message, where=f"{bad.path}:{bad.line}" if bad.line else bad.path)
        known = ", ".join(sorted(self.scenarios)) or "none"
        raise UnknownScenario(f"no scenario {scenario_id!r} (known: {known})")

    def describe(self) -> dict:
        return {
            "dirs": self.dirs,
            "scenarios": [s.describe() for s in self.scenarios.values()],
            "broken": [b.describe() for b in self.broken],
        }


def scenario_id_from_path(path: Path) -> str:
    return path.stem.replace("_", "-").lower()


def load_catalog(extra_dirs: list[str] | tuple[str, ...] = ()) -> Catalog:
    catalog = Catalog(dirs=[str(d) for d in scenario_dirs(extra_dirs)])
    for directory in map(Path, catalog.dirs):
        if not directory.is_dir():
            catalog.broken.append(BrokenScenario(str(directory), None, "scenario folder does not exist"))
            continue
        for path in sorted(directory.glob("*.py")):
            if path.name.startswith("_"):
                continue
            try:
                scenario = load_file(path)
            except BrokenScenarioError as exc:
                catalog.broken.append(exc.broken)
                continue
            if scenario.id in catalog.scenarios:
                first = catalog.scenarios[scenario.id].path
                catalog.broken.append(BrokenScenario(str(path), None, f"id {scenario.id!r} already used by {first}"))
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
    module_name = f"tuiperf_scenario_{abs(hash(str(path)))}"
    try:
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
        scenario.source_sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
        check_scenario(scenario)
        return scenario
    except SyntaxError as exc:
        sys.modules.pop(module_name, None)
        raise BrokenScenarioError(BrokenScenario(str(path), exc.lineno, f"SyntaxError: {exc.msg}")) from None
    except Exception as exc:  # noqa: BLE001 - any failure of a user's file is reported, never raised
        sys.modules.pop(module_name, None)
        line = _line_in_file(exc, path)
        message = str(exc) if isinstance(exc, ScenarioError) else f"{type(exc).__name__}: {exc}"
        raise BrokenScenarioError(BrokenScenario(str(path), line, message)) from None


def _line_in_file(exc: BaseException, path: Path) -> int | None:
    """The deepest line of ``path`` in the traceback: where the user's file went wrong."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path:
            line = frame.lineno
    return line
