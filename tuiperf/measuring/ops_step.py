"""The operations step of a pass, after sampling and the breakdown: a profiler trace of a few batches of
calls of each variant, read into its operations table (:mod:`tuiperf.results.ops`).

The sampled figures are final before it starts (the pass's ``Sampled`` is built, and the breakdown's
paths are timed): the traced calls are never samples. Each call is marked on the host
(``tuiperf_call``) and waited for, so every operation event falls inside its call's window.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from tuiperf.measuring.xla_costs import hlo_of
from tuiperf.results import hlo
from tuiperf.results.device_activity import CALL_MARKER, load_trace
from tuiperf.results.model import Operations
from tuiperf.results.op_trace import CallOps, calls_of
from tuiperf.results.ops import table, traced_slower

TRACED_S = 0.1  # traced calls' time per variant (the cost of the step, besides the profiler's start and stop)
MIN_CALLS, MAX_CALLS = 5, 50
MAX_EVENTS = 60_000  # operation events per variant's trace: a long loop's body runs once per step
BATCHES = 5


@dataclass(frozen=True)
class Programs:
    """The HLO texts known of a variant's programs, and its jit level (compiled again for its HLO only
    where the program that ran is none of those: a wrapper with no ahead-of-time API)."""

    texts: tuple[str, ...] = ()
    jit_fn: Any = None
    jit_args: tuple[Any, ...] | None = None

    def level(self) -> hlo.Program | None:
        if self.jit_fn is None or self.jit_args is None or not hasattr(self.jit_fn, "lower"):
            return None
        try:
            text = hlo_of(self.jit_fn.lower(*self.jit_args).compile())
        except Exception:  # noqa: BLE001 - the table goes on without shapes or lines
            return None
        return hlo.parse(text) if text else None


@dataclass(frozen=True)
class OpsTarget:
    """What the step traces for one variant: its name, one call of it (waited for), its programs' HLO,
    the compute stage its rows must add up to, and its sampled median (how many calls to trace)."""

    name: str
    call: Callable[[], Any]
    programs: Programs
    compute_ns: float | None
    median_ns: float


def _options() -> dict[str, Any]:
    """No Python tracer (its events are not wanted, and it slows the host between the calls)."""
    import inspect

    import jax

    if "profiler_options" not in inspect.signature(jax.profiler.trace).parameters:
        return {}  # an older jax: its default options
    try:
        options = jax.profiler.ProfileOptions()
        options.python_tracer_level = 0
    except Exception:  # noqa: BLE001 - an older jax without profiler options traces with its defaults
        return {}
    return {"profiler_options": options}


def calls_for(median_ns: float, events_per_call: int) -> int:
    """Traced calls: about :data:`TRACED_S` of them, at least one per batch, within the event cap."""
    by_time = int(TRACED_S * 1e9 / max(median_ns, 1.0))
    by_events = MAX_EVENTS // max(1, events_per_call)
    return max(min(MIN_CALLS, max(1, by_events)), min(MAX_CALLS, by_time, by_events))


def operations(
    targets: Sequence[OpsTarget], user_file: str, on_turn: Callable[[str], None] = lambda name: None
) -> dict[str, Operations]:
    """Each target's operations table, from one trace: :data:`BATCHES` rounds, each with a batch of
    every variant's calls in turn (so that a busy spell of the machine falls on every variant alike);
    ``on_turn(name)`` before each batch (a crash names its variant)."""
    import jax

    parsed = {t.name: [hlo.parse(text) for text in t.programs.texts if text] for t in targets}
    calls = {
        t.name: max(BATCHES, calls_for(t.median_ns, max((hlo.events_per_call(p) for p in parsed[t.name]), default=1)))
        for t in targets
    }
    failed: dict[str, Operations] = {}
    folder = Path(tempfile.mkdtemp(prefix="tuiperf-ops-"))
    try:
        with jax.profiler.trace(str(folder), create_perfetto_trace=True, **_options()):
            for round_index in range(BATCHES):
                for index, target in enumerate(targets):
                    if target.name in failed:
                        continue
                    share = calls[target.name] // BATCHES + (round_index < calls[target.name] % BATCHES)
                    on_turn(target.name)
                    try:
                        for _ in range(share):
                            with jax.profiler.TraceAnnotation(f"{CALL_MARKER}_{index}"):
                                target.call()
                    except Exception as exc:  # noqa: BLE001 - one variant's failure leaves the others' tables
                        failed[target.name] = Operations(note=f"no operations table: {type(exc).__name__}: {exc}")
        found = sorted(folder.rglob("perfetto_trace.json*"))
        trace = load_trace(found[0]) if found else None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    tables = {}
    for index, target in enumerate(targets):
        if target.name in failed:
            tables[target.name] = failed[target.name]
        elif trace is None:
            tables[target.name] = Operations(note="the profiler wrote no Perfetto trace: no operations table")
        else:
            traced = calls_of(trace, f"{CALL_MARKER}_{index}")
            tables[target.name] = _table_of(target, parsed[target.name], traced, user_file)
    return tables


def _table_of(target: OpsTarget, programs: list[hlo.Program], traced: list[CallOps], user_file: str) -> Operations:
    modules: dict[str, float] = {}
    for call in traced:
        for (module, _), us in call.self_us.items():
            modules[module] = modules.get(module, 0.0) + us
    main = max(modules, key=lambda m: modules[m]) if modules else ""
    program = next((p for p in programs if p.module == main), None)
    if program is None and (level := target.programs.level()) is not None and level.module == main:
        program = level
    made = table(traced, program, target.compute_ns, user_file=user_file, batches=BATCHES)
    made = traced_slower(made, target.median_ns)
    if program is None and modules:
        why = f"the program that ran ({main}) is not the one compiled ahead of time: no shapes or source lines"
        return msgspec.structs.replace(made, note="; ".join(x for x in (made.note, why) if x))
    return made
