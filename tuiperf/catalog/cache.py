"""The last catalog, kept on disk, so a list can be shown before any scenario file is imported.

The key is tuiperf's version, the folders, and every scenario file's path, size and modification
time: any change to a file (or a new or removed one) makes the cached catalog stale, and a stale,
corrupt or foreign cache file is ignored, never trusted: it is decoded strictly into the catalog's
types (:mod:`tuiperf.contract.catalog`), and anything that does not decode is a miss.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from tuiperf.catalog.folders import discover, scenario_dirs
from tuiperf.common.files import user_cache_dir, write_atomic
from tuiperf.contract.catalog import Catalog

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


class CachedCatalog(msgspec.Struct):
    key: list[Any]
    catalog: Catalog


class CacheFile(msgspec.Struct):
    entries: list[CachedCatalog] = []


def _read() -> CacheFile:
    """The cache file, decoded strictly; a missing, corrupt or foreign one reads as empty."""
    try:
        return msgspec.json.decode(_path().read_bytes(), type=CacheFile)
    except (OSError, msgspec.DecodeError):  # ValidationError is a DecodeError
        return CacheFile()


def load(extra_dirs: list[str]) -> Catalog | None:
    """The cached catalog of these folders if nothing changed since it was stored, else None."""
    try:
        key = key_of(extra_dirs)
    except OSError:
        return None
    return next((e.catalog for e in _read().entries if e.key == key), None)


def store(extra_dirs: list[str], catalog: Catalog, keep: int = 8) -> None:
    """Remember ``catalog`` for these folders (the newest ``keep`` folder sets are kept)."""
    try:
        key = key_of(extra_dirs)
        entries = [e for e in _read().entries if e.key[1:2] != key[1:2]]
        entries.append(CachedCatalog(key=key, catalog=catalog))
        write_atomic(_path(), msgspec.json.encode(CacheFile(entries=entries[-keep:])), force=True)
    except OSError:
        pass  # a cache is a convenience: never an error
    except Exception:  # noqa: BLE001 - the same, for anything a broken cache folder can raise
        pass
