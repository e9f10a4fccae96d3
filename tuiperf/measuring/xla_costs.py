"""What XLA and the parameters say a program costs: FLOPs, transcendentals and parameter counts."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tuiperf.results.model import ProcessMemory, ProgramMemory


@dataclass(frozen=True)
class ProgramCosts:
    """What XLA says of one compiled program: its FLOPs, transcendental operations and memory."""

    flops: float | None = None
    transcendentals: float | None = None  # sin, exp, tanh, ... counted apart from the FLOPs
    memory: ProgramMemory | None = None
    loops: tuple[int | None, ...] | None = None  # see :func:`loops_of`
    hlo: str | None = None  # the compiled HLO text (its operations, for the operations table)

    @classmethod
    def of(cls, program: Any, of: str) -> ProgramCosts:
        """``program``'s figures; ``of`` names it in the memory figures ("call", "jit level")."""
        memory = memory_of(program, of=of)
        return cls(flops_of(program), transcendentals_of(program), memory, loops_of(program), hlo_of(program))


def devices_of(compiled: Any) -> int:
    """How many devices a compiled program runs on (one per shard of an SPMD program)."""
    compiled = getattr(compiled, "compiled", compiled)
    try:
        return max(1, len(compiled.runtime_executable().local_devices()))
    except Exception:  # noqa: BLE001 - wrappers without a runtime executable run on one device
        return 1


def flops_of(compiled: Any) -> float | None:
    """XLA's FLOP count from ``cost_analysis()`` of a jax or equinox compiled object, over every device
    the program runs on (XLA counts one device's share of a sharded program)."""
    return _cost(compiled, "flops")


def transcendentals_of(compiled: Any) -> float | None:
    """XLA's count of transcendental operations (sin, exp, tanh, ...), which it keeps apart from the
    FLOPs: a forward pass of sin and its gradient both read 1 FLOP per element."""
    return _cost(compiled, "transcendentals")


# an instruction line: "[ROOT ]%while.0 = (s32[], f32[8]) while(%tuple.4), ..., backend_config={...}"
_WHILE = re.compile(r"^[^\n]*? = [^\n]*? while\((?P<rest>[^\n]*)$", re.MULTILINE)
_TRIP_COUNT = re.compile(r'"known_trip_count":\{"n":"(\d+)"\}')


def loops_of(compiled: Any) -> tuple[int | None, ...] | None:
    """The trip count of every ``while`` loop in the compiled HLO (None where XLA does not know it; a
    scan's and a fori_loop's it does), in program order; None where there is no HLO text to read.

    XLA's ``cost_analysis()`` counts a loop's body once, whatever its trip count: a scan of 16 steps
    reads 66 FLOPs where its unrolled twin reads 1,024. A program that holds a loop has FLOP and
    transcendental counts that say nothing of its work, and they are not compared."""
    text = hlo_of(compiled)
    if text is None:
        return None
    trips = []
    for found in _WHILE.finditer(text):
        count = _TRIP_COUNT.search(found["rest"])
        trips.append(int(count[1]) if count else None)
    return tuple(trips)


def hlo_of(compiled: Any) -> str | None:
    """The compiled program's HLO text (``Compiled.as_text()``), or None where there is none."""
    compiled = getattr(compiled, "compiled", compiled)  # equinox wraps jax's Compiled
    try:
        text = compiled.as_text()
    except Exception:  # noqa: BLE001 - wrappers and backends without HLO text
        return None
    return text if isinstance(text, str) else None


def _cost(compiled: Any, key: str) -> float | None:
    compiled = getattr(compiled, "compiled", compiled)  # equinox wraps jax's Compiled
    try:
        analysis = compiled.cost_analysis()
    except Exception:  # noqa: BLE001 - some backends do not implement it
        return None
    if isinstance(analysis, list | tuple):
        analysis = analysis[0] if analysis else None
    value = analysis.get(key) if isinstance(analysis, dict) else None
    if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        return None
    return float(value) * devices_of(compiled)


def count_params(tree: Any) -> int | None:
    """Elements in every array leaf of ``tree`` (None for no tree)."""
    import jax

    if tree is None:
        return None
    return int(sum(getattr(leaf, "size", 0) for leaf in jax.tree.leaves(tree) if hasattr(leaf, "shape")))


def memory_of(compiled: Any, of: str = "call") -> ProgramMemory | None:
    """XLA's memory figures for a compiled program (``memory_analysis()``: per device for a sharded
    program), or None where the backend or the wrapper gives none."""
    from tuiperf.results.model import ProgramMemory

    compiled = getattr(compiled, "compiled", compiled)  # equinox wraps jax's Compiled
    try:
        stats = compiled.memory_analysis()
    except Exception:  # noqa: BLE001 - some backends and wrappers do not implement it
        return None
    if stats is None:
        return None

    def size(name: str) -> int | None:
        value = getattr(stats, name, None)
        return int(value) if isinstance(value, int | float) and math.isfinite(value) and value >= 0 else None

    figures = [size(f"{name}_size_in_bytes") for name in ("argument", "output", "temp", "alias", "generated_code")]
    if any(value is None for value in figures):
        return None
    arguments, outputs, temporaries, aliased, code = (int(v or 0) for v in figures)
    peak = size("peak_memory_in_bytes")
    return ProgramMemory(
        arguments=arguments,
        outputs=outputs,
        temporaries=temporaries,
        aliased=aliased,
        generated_code=code,
        peak=peak or None,
        of=of,
        devices=devices_of(compiled),
    )


def process_memory(device: Any) -> ProcessMemory:
    """This process's resident memory and, where the backend keeps them, the device allocator's figures."""
    from tuiperf.common.memory import resident_mb
    from tuiperf.results.model import ProcessMemory

    rss = resident_mb()
    try:
        stats = device.memory_stats() or {}
    except Exception:  # noqa: BLE001 - not every backend implements it (the CPU returns None)
        stats = {}

    def stat(key: str) -> int | None:
        value = stats.get(key)
        return int(value) if isinstance(value, int | float) and math.isfinite(value) else None

    return ProcessMemory(
        host_rss_bytes=None if rss is None else int(rss * 1024 * 1024),
        device_bytes_in_use=stat("bytes_in_use"),
        device_peak_bytes_in_use=stat("peak_bytes_in_use"),
        device_bytes_limit=stat("bytes_limit"),
    )
