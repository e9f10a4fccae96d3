"""Where the explorer writes what a user asks for (``s`` screenshots, ``t`` traces, ``x`` exports) when
no folder was given: ``tuiperf`` under the user's documents folder, never the current directory, which may be a
source checkout with a tracked ``screenshots/`` folder (run from tuiperf's own, ``s`` wrote there)."""

from __future__ import annotations

from pathlib import Path


def default_screenshots_dir() -> Path:
    """``<documents>/tuiperf/screenshots``; ``t``'s traces go beside it, in ``<documents>/tuiperf/traces``."""
    from platformdirs import user_documents_dir

    return Path(user_documents_dir()) / "tuiperf" / "screenshots"


def beside_screenshots(screenshots_dir: Path, what: str) -> Path:
    """The folder for ``what`` ("traces", "exports") next to the screenshots' (``--screenshots DIR``
    moves all three)."""
    return (screenshots_dir.parent / what).resolve()


def shown_path(path: Path) -> str:
    """``path`` as the user reads and types it: the home folder as ``~`` (``user_path`` expands it back)."""
    home = Path.home()
    try:
        return f"~/{path.relative_to(home)}"
    except ValueError:
        return str(path)
