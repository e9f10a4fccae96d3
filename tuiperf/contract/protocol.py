"""The contract between a parent and its measuring process, besides the messages themselves.

A small shared file, mapped by both: the parent raises the cancel flag; the child records the index of
the variant it is sampling, so that a crash can be attributed to it.
"""

from __future__ import annotations

import mmap

# The device allocator settings a measuring process is started with (see processes.environment) and
# that every result records.
ALLOCATOR_VARIABLES = ("XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_ALLOCATOR")

# Shared file layout: byte 0 the cancel flag, bytes 4..8 the index of the variant sampled (-1: none).
SHARED_SIZE = 8
CANCEL, TURN = 0, 4


class Shared:
    """The parent's and child's view of the shared file (cheap to read and write between samples)."""

    def __init__(self, fd: int) -> None:
        self.map = mmap.mmap(fd, SHARED_SIZE)

    def is_set(self) -> bool:  # what the measuring code expects of a cancel flag
        return self.map[CANCEL] != 0

    def set_cancel(self, value: bool) -> None:
        self.map[CANCEL] = 1 if value else 0

    def set_turn(self, index: int) -> None:
        self.map[TURN : TURN + 4] = index.to_bytes(4, "little", signed=True)

    def turn(self) -> int:
        return int.from_bytes(self.map[TURN : TURN + 4], "little", signed=True)
