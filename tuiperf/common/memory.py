"""A process's resident memory, read from /proc: the measuring process reports its own, benchmarks any."""

from __future__ import annotations


def resident_mb(pid: int | str = "self") -> float | None:
    """A process's resident memory in MB (this one's by default), or None where the system does not
    say (no /proc)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return None
