"""Keep a scenario runnable while its file is broken: the last version that loaded stays listed.

Whoever lists scenarios (the app) remembers the source of every file that described cleanly. When a
later listing reports that file broken (a save with a syntax error, an outside edit), the remembered
source is written to a copy under ``folder`` and the last good description stays in the list,
pointing at the copy and carrying the file's error, until the file loads again.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from tuiperf.common.files import write_atomic
from tuiperf.contract.catalog import Catalog, LastGood, ScenarioEntry

Remembered = dict[str, tuple[ScenarioEntry, str]]  # path -> (its last good description, its source)


def remember(catalog: Catalog, remembered: Remembered) -> None:
    """Note the source of every scenario that loaded in ``catalog`` (not of last-good copies)."""
    for entry in catalog.scenarios:
        if entry.last_good is not None:
            continue
        try:
            remembered[entry.path] = (entry, Path(entry.path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            remembered.pop(entry.path, None)


def keep_last_good(catalog: Catalog, remembered: Remembered, folder: Path) -> Catalog:
    """``catalog`` with each broken file that loaded before listed as its last good version."""
    scenarios = list(catalog.scenarios)
    broken = []
    listed = {entry.id for entry in scenarios}
    for bad in catalog.broken:
        previous = remembered.get(bad.path)
        if previous is None or previous[0].id in listed:
            broken.append(bad)
            continue
        entry, source = previous
        copy = write_atomic(folder / Path(bad.path).name, source.encode("utf-8"), force=True)
        error = LastGood(file=bad.path, line=bad.line, error=bad.error)
        scenarios.append(msgspec.structs.replace(entry, path=str(copy), last_good=error))
        listed.add(entry.id)
    return msgspec.structs.replace(catalog, scenarios=scenarios, broken=broken)
