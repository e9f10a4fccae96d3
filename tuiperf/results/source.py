"""The git state of a scenario's folder: the commit, branch and whether files were changed, so that
runs can be laid out by commit (``tuiperf history --by-commit``).

Asked of ``git`` (a subprocess with a time limit; nothing where git is missing, slow or the folder is
not in a repository). Untracked files count as changes: a new file next to the scenario can change
what it imports.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tuiperf.results.model import Source

GIT_TIMEOUT_S = 5.0


def _git(folder: Path, *args: str) -> str | None:
    git = shutil.which("git")
    if git is None:
        return None
    try:
        done = subprocess.run(
            [git, "-C", str(folder), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def source_of(path: str | Path) -> Source | None:
    """The git state of the folder holding ``path`` (a file or a folder), or None where it is not in
    a repository with a commit."""
    folder = Path(path)
    if not folder.is_dir():
        folder = folder.parent
    if not folder.is_dir():
        return None
    commit = _git(folder, "rev-parse", "--verify", "-q", "HEAD")
    if not commit:
        return None
    status = _git(folder, "status", "--porcelain", "--untracked-files=normal")
    return Source(
        commit=commit,
        branch=_git(folder, "symbolic-ref", "--short", "-q", "HEAD") or "",
        dirty=bool(status),
        root=_git(folder, "rev-parse", "--show-toplevel") or "",
    )
