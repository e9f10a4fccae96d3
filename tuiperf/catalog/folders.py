"""Finding and loading scenario files.

Built-in scenarios live in the repository's ``scenarios/`` folder; a wheel ships them inside the
package as ``tuiperf/builtin_scenarios``. Users add folders with ``--scenarios DIR`` or the
``TUIPERF_SCENARIOS`` variable (``os.pathsep``-separated; empty entries are ignored, never "the
current folder"). Discovery (:func:`discover`) lists regular ``.py`` files only and reports anything
else it meets (a FIFO, a symlink loop, an unreadable file) with a reason.

Scenario files are code the user chose to run. :func:`load_catalog` imports them in this process
(tests, the REPL); the CLI and the app describe them in a separate loader process instead
(:mod:`tuiperf.processes.loader`), so that a file that exits, crashes or hangs at import cannot take them
down, and a run imports only its own scenario file (:func:`load_file`).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path

import msgspec

from tuiperf.common.files import user_path
from tuiperf.contract.catalog import Catalog, LoadError, ScenarioEntry

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
        return user_path(chosen).resolve()
    import platformdirs

    return Path(platformdirs.user_data_dir("tuiperf", appauthor=False)).resolve() / "scenarios"


def is_builtin(path: str | Path) -> bool:
    return Path(path).resolve().parent == builtin_dir().resolve()


def env_scenario_dirs() -> list[str]:
    """The folders named in $TUIPERF_SCENARIOS, in order; empty entries are not "the current folder"."""
    return [entry for entry in os.environ.get(ENV_VAR, "").split(os.pathsep) if entry.strip()]


def scenario_dirs(extra: Iterable[str] = ()) -> list[Path]:
    """Built-in folder first, the user's folder (when it exists), then ``extra`` folders, then those
    named in $TUIPERF_SCENARIOS. A later folder's scenario with a built-in's id shadows the built-in."""
    from_env = env_scenario_dirs()
    user = user_scenarios_dir()
    dirs: list[Path] = []
    for candidate in [str(builtin_dir()), *([str(user)] if user.is_dir() else []), *extra, *from_env]:
        if not str(candidate).strip():
            continue  # "" would mean the current folder: never import what happens to be there
        resolved = user_path(candidate).resolve()
        if resolved not in dirs:
            dirs.append(resolved)
    return dirs


def assemble(dirs: list[str], described: list[ScenarioEntry], broken: list[LoadError]) -> Catalog:
    """The catalog of ``dirs``; a second scenario with an id already seen is reported broken."""
    seen: dict[str, str] = {}
    scenarios: list[ScenarioEntry] = []
    broken = list(broken)
    for entry in described:
        entry = msgspec.structs.replace(entry, origin="built-in" if is_builtin(entry.path) else "user")
        if entry.id in seen and is_builtin(seen[entry.id]) and entry.origin == "user":
            # The user's copy of a built-in replaces it (and says so); the built-in stays on disk.
            shadowed = seen[entry.id]
            scenarios = [s for s in scenarios if s.id != entry.id]
            entry = msgspec.structs.replace(entry, origin="shadows built-in", shadows=shadowed)
        elif entry.id in seen:
            broken.append(
                LoadError(
                    id=f"{entry.id}@{entry.path}",
                    path=entry.path,
                    error=f"id {entry.id!r} already used by {seen[entry.id]}",
                )
            )
            continue
        seen[entry.id] = entry.path
        scenarios.append(entry)
    unique: dict[str, LoadError] = {}
    for bad in broken:  # two broken entries may share an id (a_b.py and a-b.py): keep both, apart
        key = bad.id
        while key in unique or key in seen:
            key += "'"
        unique[key] = msgspec.structs.replace(bad, id=key)
    return Catalog(dirs=dirs, scenarios=scenarios, broken=list(unique.values()))


def discover(dirs: list[Path]) -> tuple[list[Path], list[LoadError]]:
    """Every regular ``.py`` file in ``dirs`` (``_``-prefixed ones skipped), and what could not be used."""
    files: list[Path] = []
    broken: list[LoadError] = []
    for directory in dirs:
        try:
            entries = sorted(directory.iterdir()) if directory.is_dir() else None
        except OSError as exc:
            broken.append(LoadError(path=str(directory), error=f"cannot list the folder: {exc.strerror or exc}"))
            continue
        if entries is None:
            why = (
                "is a file, not a folder of scenario files" if directory.exists() else "scenario folder does not exist"
            )
            broken.append(LoadError(path=str(directory), error=why))
            continue
        for path in entries:
            if path.suffix != ".py" or path.name.startswith("_"):
                continue
            reason = _not_loadable(path)
            if reason:
                broken.append(LoadError(path=str(path), error=reason))
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


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def scenario_files(extra: Iterable[str] = ()) -> list[Path]:
    """Every scenario file in the usual folders and ``extra`` (where an exported script's source is
    looked for, by hash)."""
    return discover(scenario_dirs(extra))[0]
