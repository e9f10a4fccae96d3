"""Everything done to a variant before steady-state sampling: place inputs, compile stages, first
call, warm-up and estimate, and the lower-level paths the breakdown will time (compiled here, so no
compilation happens while anything is being timed)."""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tuiperf.api.scenario import Bench
from tuiperf.api.step import STATE_CARRIED, Carrier, Step
from tuiperf.common.errors import ScenarioError
from tuiperf.measuring.breakdown import Paths, build_paths
from tuiperf.measuring.sentinel import sentinel
from tuiperf.measuring.timing import blocker_for, take_sample, time_once
from tuiperf.measuring.xla_costs import (
    ProgramCosts,
    count_params,
    flops_of,
    hlo_of,
    loops_of,
    memory_of,
    transcendentals_of,
)
from tuiperf.results import document
from tuiperf.results.model import CompileStagesMs, Program

WARMUP_CALLS = 3
ESTIMATE_CALLS = 5
SLOW_SHARE = 0.1  # a call longer than this share of the sampling budget gets a minimal warm-up
FIXED_CALLS_NO_BREAKDOWN = (
    "no overhead breakdown in a cluster run: the breakdown times each path for as long as it needs, which "
    "differs between processes, and every process must make the same calls; measure it with --devices alone"
)


@dataclass(frozen=True)
class FirstCall:
    """What calling a variant the first times tells: how to wait for its output, the output the guard
    compares (a step's first calls), and one call's time from a few calls after warming up."""

    block: Callable[[Any], Any]
    output: Any
    estimate_ns: float


@dataclass(frozen=True)
class Built:
    """What compiling a variant tells: its one-time stages, XLA's figures of its program (or its jit
    level's), the call's own FLOPs through its AOT API, and the breakdown's lower-level paths."""

    stages: CompileStagesMs
    program: Program
    call_flops: float | None = None
    paths: Paths | None = None
    hlo: tuple[str, ...] = ()  # the HLO texts of the call's program and of its jit level's


@dataclass(frozen=True)
class Remarks:
    """What preparing a variant has to say: notes, and warnings about how it is measured."""

    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Prepared:
    """One variant, prepared: what preparing it found, whole (nothing is added to it later)."""

    name: str
    bench: Bench
    first: FirstCall
    built: Built
    remarks: Remarks = Remarks()


def is_jax_jit(fn: Any) -> bool:
    """A function made by ``jax.jit`` (its C++ ``PjitFunction``), not a framework wrapper."""
    return type(fn).__name__ == "PjitFunction" and hasattr(fn, "trace")


def is_compiled_executable(fn: Any) -> bool:
    """An ahead-of-time compiled ``jax.stages.Compiled``: it has no jit level above it."""
    return type(fn).__name__ == "Compiled" and hasattr(fn, "runtime_executable")


AOT_EXECUTABLE = (
    "an ahead-of-time compiled executable: it was traced, lowered and compiled before tuiperf called it, "
    "so none of that is timed here or in the first call"
)


def aot_stages(fn: Any, args: tuple[Any, ...]) -> tuple[dict[str, float | None], Any, str]:
    """Time trace, lower and compile through JAX's ahead-of-time API where ``fn`` offers it."""
    stages: dict[str, float | None] = {"trace": None, "lower": None, "compile": None}
    try:
        if hasattr(fn, "trace"):
            stages["trace"], traced = time_once(lambda: fn.trace(*args))
            stages["lower"], lowered = time_once(traced.lower)
        elif hasattr(fn, "lower"):
            stages["lower"], lowered = time_once(lambda: fn.lower(*args))
        elif is_compiled_executable(fn):  # the one call that is an AOT executable, compiled by the scenario
            return (
                stages,
                None,
                AOT_EXECUTABLE,
            )
        else:
            return stages, None, "no ahead-of-time API: compile time is part of the first call"
        stages["compile"], compiled = time_once(lowered.compile)
    except BaseException as exc:  # noqa: BLE001 - a wrapper's AOT path may not support these arguments
        return stages, None, f"ahead-of-time stages unavailable ({type(exc).__name__}: {exc})"
    note = "" if stages["trace"] is not None else "tracing is included in 'lower' for this wrapper"
    return stages, compiled, note


def place_inputs(bench: Bench, device: Any) -> list[str]:
    """Move top-level single-device array arguments that live elsewhere to ``device``; report any leaf
    still living elsewhere.

    Setup and variant builders run under ``jax.default_device(device)``, so their arrays are there
    already and are left exactly as built: committing them (``device_put``) would time a different
    call from the user's script, whose uncommitted arguments take a cheaper path through ``jax.jit``'s
    dispatch (benchmarks/fidelity.py). A leaf found elsewhere (say, built with an explicit
    ``device=``) is moved, or named in a warning instead of silently timing a cross-device copy. An
    array sharded over several devices keeps its sharding: it was placed that way on purpose.
    """
    import jax

    def sharded(leaf: Any) -> bool:
        return isinstance(leaf, jax.Array) and len(leaf.sharding.device_set) > 1

    def misplaced(leaf: Any) -> bool:
        return isinstance(leaf, jax.Array) and not sharded(leaf) and leaf.devices() != {device}

    bench.args = tuple(jax.device_put(a, device) if misplaced(a) else a for a in bench.args)
    leaves = [leaf for leaf in jax.tree.leaves(bench.args) if isinstance(leaf, jax.Array)]
    elsewhere = {str(d) for leaf in leaves if not sharded(leaf) for d in leaf.devices() if d != device}
    warnings = []
    if elsewhere:
        warnings.append(f"some inputs live on {', '.join(sorted(elsewhere))}, not on {device}: calls may copy them")
    return warnings


def output_warnings(output: Any) -> list[str]:
    """A call whose output holds no JAX array gives tuiperf nothing to wait for."""
    import jax

    leaves = jax.tree.leaves(output)
    if any(isinstance(leaf, jax.Array) for leaf in leaves):
        return []
    what = "None" if output is None else f"no JAX array (a {type(output).__name__})"
    return [
        f"the call returns {what}: there is nothing to wait for, so device work it starts but does not return "
        "may end after the timer stops; return the arrays it computes"
    ]


def as_bench(built: Any) -> Bench:
    """What a variant builder returned, as a Bench: a :class:`Step` becomes a :class:`Carrier` call."""
    if isinstance(built, Bench):
        return built
    if isinstance(built, Step):
        carrier = Carrier(built)
        return Bench(carrier, jit_fn=built.jit_fn, jit_args=built.jit_args, tolerance=built.tolerance, note=built.note)
    got = type(built).__name__
    raise ScenarioError(f"a variant must return Bench(fn, *args) or Step(fn, state, *inputs), not {got}")


class PlainCall:
    """A Bench's ``fn(*args)`` seen through the interface prepare() uses (a :class:`Carrier` is the other)."""

    def __init__(self, bench: Bench) -> None:
        self.bench = bench

    def place(self, device: Any) -> list[str]:
        return place_inputs(self.bench, device)

    def aot_target(self) -> tuple[Any, tuple[Any, ...]]:
        return self.bench.fn, self.bench.args

    def first_call(self) -> Any:
        return self.bench.fn(*self.bench.args)

    def guard_output(self, first_output: Any) -> Any:
        return first_output

    def param_tree(self) -> Any:
        return self.bench.params


def prepare(
    name: str, bench: Bench, cancel: Any = None, device: Any = None, budget_s: float = 3.0, *, fixed_calls: bool = False
) -> Prepared:
    """Compile, call once, warm up and estimate one variant; build its breakdown paths.

    Exceptions propagate to the caller. ``cancel`` (anything with ``is_set``) skips the breakdown's
    extra compiles once set. A call that takes more than a tenth of ``budget_s`` is warmed up once.
    A stateful step's first calls (:data:`~tuiperf.api.step.GUARD_STEPS`) are what the guard compares.
    ``fixed_calls`` (a process of a cluster): the same number of calls whatever they cost, and no
    breakdown paths, whose timing decides how often each is called.
    """
    watch = sentinel()
    watch.current = name
    call = bench.fn if isinstance(bench.fn, Carrier) else PlainCall(bench)
    warnings = call.place(device) if device is not None else []
    stages, compiled, note = aot_stages(*call.aot_target())
    _, compiles_before = watch.snapshot(name)
    stages["first_call"], output = time_once(lambda: _call_and_block(call.first_call, ()))
    param_count = count_params(call.param_tree())
    warnings.extend(output_warnings(output))
    notes = [note] if note and not bench.eager else []
    if bench.note:
        notes.append(bench.note)
    if compiled is not None and watch.snapshot(name)[1] > compiles_before:
        notes.append("the first call compiled again: this wrapper does not reuse the AOT executable")
    block = blocker_for(output)
    first = FirstCall(block, call.guard_output(output), estimate_ns(bench, block, budget_s, fixed_calls=fixed_calls))

    own = ProgramCosts(
        flops_of(compiled) if compiled is not None else None,
        transcendentals_of(compiled) if compiled is not None else None,
        memory_of(program) if (program := _program(compiled, bench.fn)) is not None else None,
        loops_of(compiled) if compiled is not None else None,
    )
    paths = None
    if fixed_calls:
        notes.append(FIXED_CALLS_NO_BREAKDOWN)
    elif cancel is None or not cancel.is_set():
        paths, why = breakdown_paths(bench)
        notes.extend(why)
    texts = (hlo_of(compiled) if compiled is not None else None, paths.program.hlo if paths is not None else None)
    hlo = tuple(text for text in texts if text)
    once = CompileStagesMs(
        trace=stages["trace"], lower=stages["lower"], compile=stages["compile"], first_call=stages["first_call"]
    )
    built = Built(once, program_part(own, paths, param_count, hlo), own.flops, paths, hlo)
    return Prepared(name, bench, first, built, Remarks(tuple(notes), tuple(warnings)))


def estimate_ns(bench: Bench, block: Callable[[Any], Any], budget_s: float, *, fixed_calls: bool) -> float:
    """One call's time after warming up: a slow call (over a tenth of the budget) is called once more,
    no more calls than needed before sampling; others are warmed up and timed a few times."""
    fn, args = bench.fn, bench.args  # after placement
    warm = take_sample(fn, args, 1, block)
    if warm > SLOW_SHARE * budget_s * 1e9 and not fixed_calls:
        return warm
    for _ in range(WARMUP_CALLS - 1):
        block(fn(*args))
    return statistics.median(take_sample(fn, args, 1, block) for _ in range(ESTIMATE_CALLS))


def _program(compiled: Any, fn: Any) -> Any:
    """The compiled program XLA can size: the AOT one, or the call itself when it is an executable."""
    return compiled if compiled is not None else fn if is_compiled_executable(fn) else None


def program_part(own: ProgramCosts, paths: Paths | None, param_count: int | None, hlo: tuple[str, ...] = ()) -> Program:
    """The call's own figures where its AOT API gives them, else its jit level's (from the breakdown's
    paths); the bytes of its constants from the first HLO text at hand (the call's own first)."""
    level = paths.program if paths is not None else None
    if level is None or own.flops is not None:
        flops, transcendentals, loops = own.flops, own.transcendentals, own.loops
    else:
        flops, transcendentals, loops = level.flops, level.transcendentals, level.loops
    memory = own.memory if own.memory is not None or level is None else level.memory
    return document.program(flops, transcendentals, memory, param_count, loops, constants_in(hlo))


def constants_in(texts: tuple[str, ...]) -> int | None:
    from tuiperf.results.hlo import constant_bytes, parse

    try:
        return constant_bytes(parse(texts[0])) if texts else None
    except Exception:  # noqa: BLE001 - a figure of evidence, not the measurement: a text it cannot read is none
        return None


def breakdown_paths(bench: Bench) -> tuple[Paths | None, list[str]]:
    """The variant's jit level's breakdown paths, compiled, or notes that say why there are none."""
    if bench.jit_fn is not None and bench.jit_args is not None:
        level, call_is_jit = (bench.jit_fn, bench.jit_args), False
    elif is_jax_jit(bench.fn):
        level, call_is_jit = (bench.fn, bench.args), True
    elif isinstance(bench.fn, Carrier) and bench.fn.donates:
        return None, [
            "no overhead breakdown: the step donates its state, and the breakdown's paths would call it "
            "again with deleted buffers; run it with donation off for a breakdown"
        ]
    elif isinstance(bench.fn, Carrier) and not bench.fn.step.inplace and is_jax_jit(bench.fn.step.fn):
        level, call_is_jit = (bench.fn.step.fn, bench.fn.call_args()), False  # framework = carrying the state
    elif bench.eager:
        return None, []  # eager by design: nothing to break down, nothing to advise
    elif is_compiled_executable(bench.fn):
        return None, ["no overhead breakdown: an ahead-of-time compiled executable has no jit level"]
    else:
        return None, [
            "no overhead breakdown: this call is not a jax.jit function; give Bench(jit_fn=..., jit_args=...) "
            "(tuiperf.eqx_filter_jit_level and tuiperf.nnx_jit_level build them), or eager=True if it is eager"
        ]
    try:
        paths = build_paths(*level, call_is_jit=call_is_jit)
    except BaseException as exc:  # noqa: BLE001 - the breakdown is optional; the timing is not
        return None, [f"no overhead breakdown: its lower-level paths failed ({type(exc).__name__}: {exc})"]
    if isinstance(bench.fn, Carrier) and bench.jit_fn is None:
        paths = dataclasses.replace(paths, framework_holds=STATE_CARRIED)
    return paths, []


def _call_and_block(fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    import jax

    output = fn(*args)
    jax.block_until_ready(output)
    return output
