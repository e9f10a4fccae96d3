"""Where the explorer writes what a user asks for (``s`` screenshots, ``t`` traces) when no folder was
given: ``tuiperf`` under the user's documents folder, never the current directory, which may be a
source checkout with a tracked ``screenshots/`` folder (run from tuiperf's own, ``s`` wrote there)."""

from __future__ import annotations

from pathlib import Path


def default_screenshots_dir() -> Path:
    """``<documents>/tuiperf/screenshots``; ``t``'s traces go beside it, in ``<documents>/tuiperf/traces``."""
    from platformdirs import user_documents_dir

    return Path(user_documents_dir()) / "tuiperf" / "screenshots"
