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


TOAST_WIDTH, TOAST_SHARE = 60, 60  # app.tcss: a toast is 60 columns wide, at most 60 % of the screen's


def toast_text_width(columns: int) -> int:
    """The columns of a toast's text on a screen ``columns`` wide (its padding and edge taken off)."""
    return min(TOAST_WIDTH, columns * TOAST_SHARE // 100) - 4


def path_lines(path: Path | str, width: int) -> str:
    """``path`` in lines of at most ``width`` broken after a ``/``, never inside a name (a toast wrapped a
    file name mid-word); a single name longer than the line is left whole on its own line."""
    text = str(path)
    parts = [p + "/" for p in text.split("/")[:-1]] + [text.rsplit("/", 1)[-1]]
    lines = [""]
    for part in parts:
        if lines[-1] and len(lines[-1]) + len(part) > width:
            lines.append("")
        lines[-1] += part
    return "\n".join(line for line in lines if line)
