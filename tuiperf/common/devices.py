"""Which listed device a ``--device`` choice names. The measuring process reads it against JAX's
devices and the app's device picker against the list it was sent, so both take a choice alike."""

from __future__ import annotations

from collections.abc import Sequence

_PLATFORM_ALIASES = {"cuda": "gpu", "rocm": "gpu"}


def chosen_index(choice: str, listed: Sequence[tuple[str, str]]) -> int | None:
    """The index in ``listed`` (each device's id and platform, in order) of the device ``choice``
    names: an id (``cpu:1``), an index (``1``) or a platform (``gpu``: its first device). None: none."""
    text = choice.strip().lower()
    for index, (device_id, _) in enumerate(listed):
        if device_id == text:
            return index
    if text.isascii() and text.isdigit() and int(text) < len(listed):
        return int(text)
    platform = _PLATFORM_ALIASES.get(text, text)
    for index, (_, listed_platform) in enumerate(listed):
        if _PLATFORM_ALIASES.get(listed_platform, listed_platform) == platform:
            return index
    return None
