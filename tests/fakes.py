"""A fake clock and calls of known cost, so sampling and breakdown arithmetic can be tested exactly."""

from __future__ import annotations

from collections.abc import Callable


class FakeClock:
    """A clock that advances by ``step`` ns per reading; calls made with it add their cost."""

    def __init__(self, step: int = 0) -> None:
        self.now, self.step = 0, step

    def __call__(self) -> int:
        self.now += self.step
        return self.now

    def call(self, cost: int) -> Callable[..., None]:
        """A call that takes ``cost`` ns."""

        def fn(*args: object) -> None:
            self.now += cost

        return fn

    def cold_call(self, warm: int, cold: int, last: list[str], name: str) -> Callable[..., None]:
        """A call that costs ``cold`` ns when another call ran since its last call (its caches were
        evicted by the neighbour), else ``warm`` ns."""

        def fn(*args: object) -> None:
            self.now += warm if last and last[0] == name else cold
            last[:] = [name]

        return fn
