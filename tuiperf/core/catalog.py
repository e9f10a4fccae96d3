"""Finding and loading scenario files.

Built-in scenarios live in the repository's ``scenarios/`` folder; a wheel ships them inside the
package as ``tuiperf/builtin_scenarios``. Users add folders with ``--scenarios DIR`` or the
``TUIPERF_SCENARIOS`` variable (``os.pathsep``-separated; empty entries are ignored, never "the
current folder"). Discovery (:func:`discover`) lists regular ``.py`` files only and reports anything
else it meets (a FIFO, a symlink loop, an unreadable file) with a reason.

Scenario files are code the user chose to run. :func:`load_catalog` imports them in this process
(tests, the REPL); the CLI and the app describe them in a separate loader process instead
(:mod:`tuiperf.core.loader`), so that a file that exits, crashes or hangs at import cannot take them
down, and a run imports only its own scenario file (:func:`load_file`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
import sys
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tuiperf.core.errors import ScenarioError, UnknownScenario
from tuiperf.core.scenario import Scenario, check_scenario
from tuiperf.core.text import one_line

ENV_VAR = "TUIPERF_SCENARIOS"
USER_DIR_VAR = "TUIPERF_USER_SCENARIOS"  # where new and copied scenarios go (tests point it elsewhere)
_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def builtin_dir() -> Path:
    shipped = _PACKAGE_DIR / "builtin_scenarios"  # inside an installed wheel
    return shipped if shipped.is_dir() else _PACKAGE_DIR.parent / "scenarios"  # a checkout


def user_scenarios_dir() -> Path:
    """The user's own scenario folder: $TUIPERF_USER_SCENARIOS, else ``scenarios`` in the platform's
    per-user data folder (``platformdirs``; ``~/.local/share/tuiperf/scenarios`` on Linux)."""
    chosen = os.environ.get(USER_DIR_VAR, "").strip()
    if chosen:
        return Path(chosen).expanduser().resolve()
    import platformdirs

    return Path(platformdirs.user_data_dir("tuiperf", appauthor=False)).resolve() / "scenarios"


def is_builtin(path: str | Path) -> bool:
    return Path(path).resolve().parent == builtin_dir().resolve()


def scenario_dirs(extra: Iterable[str] = ()) -> list[Path]:
    """Built-in folder first, the user's folder (when it exists), then ``extra`` folders, then those
    named in $TUIPERF_SCENARIOS. A later folder's scenario with a built-in's id shadows the built-in."""
    from_env = os.environ.get(ENV_VAR, "").split(os.pathsep)
    user = user_scenarios_dir()
    dirs: list[Path] = []
    for candidate in [str(builtin_dir()), *([str(user)] if user.is_dir() else []), *extra, *from_env]:
        if not str(candidate).strip():
            continue  # "" would mean the current folder: never import what happens to be there
        resolved = Path(candidate).expanduser().resolve()
        if resolved not in dirs:
            dirs.append(resolved)
    return dirs


def scenario_id_from_path(path: Path) -> str:
    return path.stem.replace("_", "-").lower()


@dataclass
class BrokenScenario:
    path: str
    line: int | None
    message: str
    id: str = ""

    def __post_init__(self) -> None:
        self.id = self.id or scenario_id_from_path(Path(self.path))

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


def assemble(dirs: list[str], described: list[dict], broken: list[dict]) -> dict:
    """The catalog's plain-data form; a second scenario with an id already seen is reported broken."""
    seen: dict[str, str] = {}
    scenarios: list[dict] = []
    broken = list(broken)
    for entry in described:
        entry = {**entry, "origin": "built-in" if is_builtin(entry["path"]) else "user"}
        if entry["id"] in seen and is_builtin(seen[entry["id"]]) and entry["origin"] == "user":
            # The user's copy of a built-in replaces it (and says so); the built-in stays on disk.
            shadowed = seen[entry["id"]]
            scenarios = [s for s in scenarios if s["id"] != entry["id"]]
            entry = {**entry, "origin": "shadows built-in", "shadows": shadowed}
        elif entry["id"] in seen:
            broken.append(
                {
                    "id": entry["id"] + "@" + entry["path"],
                    "path": entry["path"],
                    "line": None,
                    "error": f"id {entry['id']!r} already used by {seen[entry['id']]}",
                }
            )
            continue
        seen[entry["id"]] = entry["path"]
        scenarios.append(entry)
    unique: dict[str, dict] = {}
    for entry in broken:  # two broken entries may share an id (a_b.py and a-b.py): keep both, apart
        key = entry["id"]
        while key in unique or key in seen:
            key += "'"
        unique[key] = {**entry, "id": key}
    return {"dirs": dirs, "scenarios": scenarios, "broken": list(unique.values())}


def discover(dirs: list[Path]) -> tuple[list[Path], list[BrokenScenario]]:
    """Every regular ``.py`` file in ``dirs`` (``_``-prefixed ones skipped), and what could not be used."""
    files: list[Path] = []
    broken: list[BrokenScenario] = []
    for directory in dirs:
        try:
            entries = sorted(directory.iterdir()) if directory.is_dir() else None
        except OSError as exc:
            broken.append(BrokenScenario(str(directory), None, f"cannot list the folder: {exc.strerror or exc}"))
            continue
        if entries is None:
            why = (
                "is a file, not a folder of scenario files" if directory.exists() else "scenario folder does not exist"
            )
            broken.append(BrokenScenario(str(directory), None, why))
            continue
        for path in entries:
            if path.suffix != ".py" or path.name.startswith("_"):
                continue
            reason = _not_loadable(path)
            if reason:
                broken.append(BrokenScenario(str(path), None, reason))
            elif path.resolve() not in files:
                files.append(path.resolve())
    return files, broken


def _not_loadable(path: Path) -> str | None:
    """Why ``path`` is not a scenario file tuiperf can import, or None."""
    try:
        info = path.stat()  # follows symlinks: a loop raises ELOOP
    except OSError as exc:
        return "a symlink loop" if exc.errno == 40 else f"cannot read it: {exc.strerror or exc}"
    if not stat.S_ISREG(info.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else "a folder" if stat.S_ISDIR(info.st_mode) else "not a file"
        return f"skipped: {kind}, not a regular .py file"
    if not os.access(path, os.R_OK):
        return "cannot read it: permission denied"
    return None


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


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


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
