"""The last catalog, kept on disk, so a list can be shown before any scenario file is imported.

The key is tuiperf's version, the folders, and every scenario file's path, size and modification
time: any change to a file (or a new or removed one) makes the cached catalog stale, and a stale,
corrupt or foreign cache file is ignored, never trusted. Standard library only (the UI uses it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tuiperf.catalog.folders import discover, scenario_dirs
from tuiperf.common.files import user_cache_dir, write_atomic

CACHE_NAME = "catalog.json"


def key_of(extra_dirs: list[str]) -> list[Any]:
    from tuiperf.common.version import __version__

    dirs = scenario_dirs(extra_dirs)
    files, broken = discover(dirs)
    stamps = []
    for path in files:
        try:
            info = path.stat()
        except OSError:
            continue
        stamps.append([str(path), info.st_size, info.st_mtime_ns])
    return [__version__, [str(d) for d in dirs], stamps, sorted(str(b) for b in broken)]


def _path() -> Path:
    return user_cache_dir() / CACHE_NAME


def load(extra_dirs: list[str]) -> dict[str, Any] | None:
    """The cached catalog of these folders if nothing changed since it was stored, else None."""
    try:
        stored = json.loads(_path().read_text(encoding="utf-8"))
        key = key_of(extra_dirs)
        entry = next(e for e in stored.get("entries", []) if e.get("key") == key)
        catalog = entry["catalog"]
        if not (isinstance(catalog, dict) and isinstance(catalog.get("scenarios"), list)):
            return None
        return catalog
    except (OSError, ValueError, StopIteration, KeyError, TypeError, AttributeError):
        return None


def store(extra_dirs: list[str], catalog: dict[str, Any], keep: int = 8) -> None:
    """Remember ``catalog`` for these folders (the newest ``keep`` folder sets are kept)."""
    try:
        key = key_of(extra_dirs)
        try:
            entries = json.loads(_path().read_text(encoding="utf-8")).get("entries", [])
        except (OSError, ValueError, AttributeError):
            entries = []
        entries = [e for e in entries if isinstance(e, dict) and e.get("key", [None, None])[1:2] != key[1:2]]
        entries.append({"key": key, "catalog": catalog})
        write_atomic(_path(), json.dumps({"entries": entries[-keep:]}).encode(), force=True)
    except OSError:
        pass  # a cache is a convenience: never an error
    except Exception:  # noqa: BLE001 - the same, for anything a broken cache folder can raise
        pass
