"""Files tuiperf writes and the folders they live in.

Every file is written through a temporary file in the target folder and ``os.replace``: a reader sees
the old file or the new one, never half of one, and a process killed mid-write leaves the old file.
Existing files are not replaced unless asked (``force``), like pyperf.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from tuiperf.common.errors import TuiperfError

APP_NAME = "tuiperf"


def check_writable(target: str | Path, *, force: bool = False) -> Path:
    """Raise a one-line error now, before a run, if ``target`` cannot be written later."""
    if isinstance(target, str) and target.strip() == "":
        raise TuiperfError("the output path is empty")
    path = Path(target)
    if path.is_dir():
        raise TuiperfError("is a folder; give a file name", where=str(path))
    if path.exists() and not force:
        raise TuiperfError("exists already; choose another name or pass --force to replace it", where=str(path))
    _refuse_unless_regular(path)
    folder = path.parent if str(path.parent) else Path(".")
    if folder.exists() and not folder.is_dir():
        raise TuiperfError(f"{folder} is not a folder", where=str(path))
    existing = folder
    while not existing.exists():
        existing = existing.parent
    if not os.access(existing, os.W_OK | os.X_OK):
        raise TuiperfError(f"cannot write into {existing}", where=str(path))
    return path


def _refuse_unless_regular(path: Path) -> None:
    """Only a regular file is ever replaced: a device (``/dev/full``), a FIFO, a socket or a symlink
    stays what it is (``os.replace`` would put a regular file in its place)."""
    try:
        info = path.lstat()
    except OSError:
        return  # nothing there (yet)
    if not stat.S_ISREG(info.st_mode):
        kind = "a symlink" if stat.S_ISLNK(info.st_mode) else "a device, FIFO or socket"
        raise TuiperfError(f"is {kind}, not a regular file; tuiperf only replaces regular files", where=str(path))


def _umask() -> int:
    """This process's umask, read without changing it (Linux); 0o022 where the system does not say."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def write_atomic(target: str | Path, data: bytes, *, force: bool = False) -> Path:
    """Write ``data`` to ``target`` atomically; refuse to replace an existing file unless ``force``,
    and anything but a regular file always. A replaced file keeps its mode; a new one gets the
    umask's (the temporary file is created private)."""
    path = check_writable(target, force=force)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if not force and path.exists():  # created by someone else while we wrote
            raise TuiperfError("exists already; pass --force to replace it", where=str(path))
        _refuse_unless_regular(path)
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException as exc:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise TuiperfError(f"cannot write: {exc.strerror or exc}", where=str(path)) from None
        raise
    return path


def user_log_dir() -> Path:
    """Per-user log folder (``platformdirs``), created private to the user."""
    import platformdirs

    folder = Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def user_data_dir() -> Path:
    import platformdirs

    folder = Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def user_cache_dir() -> Path:
    import platformdirs

    folder = Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def user_path(text: str | Path) -> Path:
    """``text`` as a path, a leading ``~`` or ``~user`` expanded; a ``~user`` that names no user (or a
    home that cannot be found) is one error line, where ``Path.expanduser`` raised RuntimeError."""
    try:
        return Path(text).expanduser()
    except RuntimeError:
        head = str(text).split("/", 1)[0]
        raise TuiperfError(f"cannot expand {head!r} in {str(text)!r}: no such user's home folder") from None
