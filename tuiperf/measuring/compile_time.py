"""Compile time measured like a call (``--measure compile``): each variant's trace, lower, backend compile
and the first call of the new executable, repeated with variants in turn (round-robin) until every
stage's 95 % interval is within a few percent of its median or the budget ends.

What makes a repeat a real compile: before each one, JAX's in-memory caches of traces, lowerings and
compiled executables are cleared (``jax._src.util.clear_all_caches``: what ``jax.clear_caches`` clears
but jit's C++ per-function caches, so the variants' own jitted functions still call without compiling
after the repeats), and no persistent compilation cache folder is set while they run. The process's
own first-compile costs (the backend's and XLA's one-time set-up) are paid before any variant is
compiled, by compiling a tiny unrelated function, and said apart (:func:`process_first_compile`).

Once per variant, outside the timed stages: its program's size (:func:`program_size`: the jaxpr's
equations, the lowered and the compiled module's HLO instructions), counted from the objects of its
first repeat after that repeat was timed, and a Python profile of one trace (:func:`trace_profile`),
made after the repeats.

The persistent cache is measured on its own (:func:`persistent_cache`): with a private, empty
``jax_compilation_cache_dir``, one compile (the miss, which writes the entry) then another with the
in-memory caches cleared (the hit), with what ``jax.monitoring`` reports of each.
"""

from __future__ import annotations

import contextlib
import cProfile
import os
import pstats
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from tuiperf.results.model import CompileStagesMs, PersistentCache, ProfileRow, ProgramSize, StageSeries, TraceProfile
from tuiperf.results.stats import median_ci

TARGET_REL = 0.05  # stop when every stage's 95 % interval is within ±5 % of its median
MIN_ROUNDS = 10  # up to 10 repeats the order-statistics interval is their whole range: settled only if it is narrow
MAX_ROUNDS = 500
SERIES = ("trace", "lower", "compile", "first_call", "total")  # total: trace + lower + compile

HITS, MISSES = "/jax/compilation_cache/cache_hits", "/jax/compilation_cache/cache_misses"
SAVED, READ = "/jax/compilation_cache/compile_time_saved_sec", "/jax/compilation_cache/cache_retrieval_time_sec"
BACKEND = "/jax/core/compile/backend_compile_duration"  # what JAX weighs against its minimum compile time

_first_compile_ms: float | None = None  # this process's first compile of the tiny function, once
_tiny_ms: float | None = None  # the same tiny function compiled again, just before the latest repeats


def clear_in_memory_caches() -> None:
    """Forget every trace, lowering and compiled executable JAX's Python side keeps (jit's C++
    per-function caches stay: the variants' jitted functions still call without compiling)."""
    try:
        from jax._src import util

        util.clear_all_caches()
    except (ImportError, AttributeError):  # a JAX without it: the public call clears the C++ caches too
        import jax

        jax.clear_caches()


def _tiny_compile_ms() -> float:
    import jax
    import numpy as np

    clear_in_memory_caches()
    started = time.perf_counter_ns()
    jax.jit(lambda a: a * 2 + 1).trace(np.float32(1)).lower().compile()
    return (time.perf_counter_ns() - started) / 1e6


def process_first_compile() -> float:
    """This process's first compile of a tiny unrelated function (ms): the backend's one-time set-up
    paid here, before any variant is compiled, and said apart. Timed once per process."""
    global _first_compile_ms
    if _first_compile_ms is None:
        _first_compile_ms = _tiny_compile_ms()
    return _first_compile_ms


@dataclass
class Subject:
    """One variant whose compile is repeated: its AOT-capable function and arguments, and its stages so far."""

    name: str
    fn: Any
    args: tuple[Any, ...]
    call: bool = True  # time the new executable's first call (not a step's, which may donate its state)
    samples: dict[str, list[float]] = field(default_factory=lambda: {key: [] for key in SERIES})
    size: ProgramSize | None = field(default=None, init=False)  # counted once, from the first repeat's objects

    def repeat(self) -> None:
        """One real compile: caches cleared, then trace, lower, compile and the first call, each timed."""
        import jax

        clear_in_memory_caches()
        clock = time.perf_counter_ns
        t0 = clock()
        if hasattr(self.fn, "trace"):
            traced = self.fn.trace(*self.args)
            t1 = clock()
            lowered = traced.lower()
        else:  # a wrapper with lower() alone traces inside it: its trace is part of 'lower'
            t1 = t0
            lowered = self.fn.lower(*self.args)
        t2 = clock()
        compiled = lowered.compile()
        t3 = clock()
        if self.call:
            try:
                jax.block_until_ready(compiled(*self.args))
            except TypeError:  # static arguments: the executable takes the others alone; its first call is not timed
                self.call = False
                self.samples["first_call"].clear()
        t4 = clock()
        if hasattr(self.fn, "trace"):
            self.samples["trace"].append((t1 - t0) / 1e6)
        for key, ns in (("lower", t2 - t1), ("compile", t3 - t2), ("total", t3 - t0)):
            self.samples[key].append(ns / 1e6)
        if self.call:
            self.samples["first_call"].append((t4 - t3) / 1e6)
        if self.size is None:
            self.size = program_size(traced if hasattr(self.fn, "trace") else None, lowered, compiled)

    def settled(self, target: float = TARGET_REL) -> bool:
        return all(_settled(values, target) for values in self.samples.values() if values)

    def series(self) -> dict[str, StageSeries]:
        return {key: series_of(values) for key, values in self.samples.items() if values}


def jaxpr_equations(jaxpr: Any) -> tuple[int, int]:
    """(every equation of ``jaxpr`` and of the jaxprs nested in its equations' parameters — a scan's,
    a while loop's, a cond's branches, a pjit's —, counted once per occurrence; the outer jaxpr's own)."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)  # a ClosedJaxpr's Jaxpr

    def count(inner: Any) -> int:
        total = 0
        for eqn in inner.eqns:
            total += 1
            for value in eqn.params.values():
                for sub in value if isinstance(value, tuple | list) else (value,):
                    nested = getattr(sub, "jaxpr", sub)
                    if hasattr(nested, "eqns"):
                        total += count(nested)
        return total

    return count(jaxpr), len(jaxpr.eqns)


def program_size(traced: Any, lowered: Any, compiled: Any) -> ProgramSize:
    """One variant's program size: its jaxpr's equations (None where the wrapper has no ``trace()``),
    the lowered module's HLO instructions (StableHLO converted to HLO) and the compiled module's."""
    from tuiperf.measuring.xla_costs import hlo_of
    from tuiperf.results.hlo import instruction_count

    found: dict[str, int | None] = {}
    try:
        if traced is not None:
            found["jaxpr_equations"], found["jaxpr_outer"] = jaxpr_equations(traced.jaxpr)
    except Exception:  # noqa: BLE001 - a wrapper's Traced without a jaxpr: not counted
        pass
    try:
        text = getattr(lowered, "lowered", lowered).as_text(dialect="hlo")
        found["lowered_instructions"] = instruction_count(text) if isinstance(text, str) else None
    except Exception:  # noqa: BLE001 - a wrapper's Lowered without HLO text: not counted
        pass
    text = hlo_of(compiled)
    found["compiled_instructions"] = instruction_count(text) if text is not None else None
    return ProgramSize(**found)


def short_label(filename: str, line: int, function: str) -> str:
    """``inline_jaxpr_into_trace (jax/…/partial_eval.py:2431)``: a library file as its package and its
    name, the folders between left out; a built-in as its name."""
    if filename == "~":
        return function
    parts = Path(filename).parts
    for at in range(len(parts) - 1, -1, -1):
        if parts[at] in ("site-packages", "dist-packages") or re.fullmatch(r"python3\.\d+", parts[at]):
            parts = parts[at + 1 :]
            break
    else:
        parts = parts[-2:]
    where = "/".join(parts) if len(parts) <= 2 else f"{parts[0]}/…/{parts[-1]}"
    return f"{function} ({where}:{line})"


TRACE_TOP = 8  # a trace profile's functions with most own time
SCENARIO_TOP = 3  # and the scenario file's own functions with most cumulative time


TRACE_PROFILES = 3  # traces profiled where one is cheap (their per-function medians)
CHEAP_MS = 300.0  # a profiled trace under this is profiled again, up to TRACE_PROFILES times
Figures = dict[tuple[str, int, str], tuple[float, float, float]]  # (file, line, function): calls, own s, cumulative s


def _profiled_trace(subject: Subject) -> tuple[Figures, float] | str:
    """One trace (or a lower(), for a wrapper without trace()) under cProfile, JAX's in-memory caches
    cleared first and the garbage collector off while it runs (a collection lands as some function's own
    time: one profile read 4 ms "own" in a one-line property of ClosedJaxpr): each function's figures and the
    profiled trace's time (ms); or why it could not be profiled."""
    import gc

    clear_in_memory_caches()
    profiler = cProfile.Profile()
    collecting = gc.isenabled()
    gc.disable()
    try:
        try:
            profiler.enable()
        except ValueError as exc:  # another profiler is active in this process
            return f"not profiled: {exc}"
        started = time.perf_counter_ns()
        try:
            subject.fn.trace(*subject.args) if hasattr(subject.fn, "trace") else subject.fn.lower(*subject.args)
        finally:
            profiler.disable()
        profiled_ms = (time.perf_counter_ns() - started) / 1e6
    finally:
        if collecting:
            gc.enable()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]  # public, undeclared in typeshed
    figures = {key: (float(nc), float(own), float(cum)) for key, (_, nc, own, cum, _) in stats.items()}
    return figures, profiled_ms


def trace_profile(subject: Subject, user_file: str = "") -> TraceProfile:
    """cProfile of a trace of ``subject``, outside the timed repeats: the functions with most own time,
    then ``user_file``'s functions by cumulative time; each figure the median over up to three profiled
    traces (one where a profiled trace takes over :data:`CHEAP_MS`). A wrapper without ``trace()`` is
    profiled tracing and lowering together (its ``lower``), and the note says so."""
    import statistics

    profiles: list[Figures] = []
    times: list[float] = []
    while len(profiles) < TRACE_PROFILES and (not times or times[-1] < CHEAP_MS):
        try:
            found = _profiled_trace(subject)
        except Exception as exc:  # noqa: BLE001 - the profile is evidence, not the measurement: say why there is none
            return TraceProfile(note=f"not profiled: {type(exc).__name__}: {exc}")
        if isinstance(found, str):
            return TraceProfile(note=found)
        profiles.append(found[0])
        times.append(found[1])
    user = os.path.realpath(user_file) if user_file else ""
    rows: list[ProfileRow] = []
    for key in dict.fromkeys(key for profile in profiles for key in profile):
        filename, line, function = key
        if function == "<method 'disable' of '_lsprof.Profiler' objects>":
            continue
        ncalls, own, cum = (statistics.median(p.get(key, (0.0, 0.0, 0.0))[i] for p in profiles) for i in range(3))
        mine = bool(user) and filename != "~" and os.path.realpath(filename) == user
        name = f"{function} ({os.path.basename(filename)}:{line})" if mine else short_label(filename, line, function)
        kind = "scenario" if mine else "python"
        rows.append(ProfileRow(function=name, ncalls=ncalls, cumtime_us=cum * 1e6, tottime_us=own * 1e6, kind=kind))
    top = sorted(rows, key=lambda row: -row.tottime_us)[:TRACE_TOP]  # the scenario's own among them marked too
    scenario = sorted((row for row in rows if row.kind == "scenario" and row not in top), key=lambda r: -r.cumtime_us)
    extra = scenario[:SCENARIO_TOP]
    note = "" if hasattr(subject.fn, "trace") else f"{subject.name} has no trace(): its lower() was profiled"
    return TraceProfile(rows=[*top, *extra], traces=len(profiles), profiled_ms=statistics.median(times), note=note)


def _settled(values: list[float], target: float) -> bool:
    if len(values) < MIN_ROUNDS:
        return False
    median = sorted(values)[len(values) // 2]
    lo, hi = median_ci(values)
    return median > 0 and (hi - lo) / 2 <= target * median


def series_of(values: list[float]) -> StageSeries:
    """A stage's repeats: the samples as taken, their median and its distribution-free 95 % interval."""
    ordered = sorted(values)
    n = len(ordered)
    median = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    return StageSeries(samples_ms=list(values), median_ms=median, ci95_ms=median_ci(values))


@contextlib.contextmanager
def persistent_cache_off() -> Iterator[None]:
    """No persistent compilation cache folder while the repeats run (a read from disk is no compile), then
    as it was. ``jax_enable_compilation_cache`` is left as it is: enabled (JAX's default), every compile
    computes its cache key even with no folder, as a user's process with no folder does."""
    import jax

    was = getattr(jax.config, "jax_compilation_cache_dir")  # noqa: B009 - not in its type stubs
    if was is None:
        yield
        return
    jax.config.update("jax_compilation_cache_dir", None)
    _reset_persistent_cache()
    try:
        yield
    finally:
        jax.config.update("jax_compilation_cache_dir", was)
        _reset_persistent_cache()


def _reset_persistent_cache() -> None:
    from jax.experimental.compilation_cache import compilation_cache

    compilation_cache.reset_cache()


def repeat_compiles(
    subjects: list[Subject],
    budget_s: float,
    *,
    stop: Callable[[], bool] = lambda: False,
    on_turn: Callable[[Subject, int], None] = lambda subject, round_index: None,
) -> tuple[int, str]:
    """Repeat every subject's compile in rounds, one repeat each per round, until all are settled, the
    budget ends or ``stop`` says so; the rounds taken and why they ended."""
    started = time.monotonic()
    rounds, why = 0, "the budget ended"
    with persistent_cache_off():
        global _tiny_ms
        _tiny_ms = _tiny_compile_ms()  # the tiny function again, as the repeats find the process
        while subjects:
            for subject in subjects:
                on_turn(subject, rounds)
                subject.repeat()
            rounds += 1
            if all(s.settled() for s in subjects):
                why = f"every stage's 95 % interval within ±{TARGET_REL:.0%} of its median"
                break
            if stop():
                why = "the run was stopped"
                break
            if time.monotonic() - started > budget_s and rounds >= 3:
                break
            if rounds >= MAX_ROUNDS:
                why = f"{MAX_ROUNDS} rounds"
                break
    return rounds, why


@contextlib.contextmanager
def _listening() -> Iterator[tuple[dict[str, int], dict[str, float]]]:
    import jax.monitoring as monitoring

    counts: dict[str, int] = {}
    seconds: dict[str, float] = {}

    def on_event(event: str, **kwargs: str | int) -> None:
        counts[event] = counts.get(event, 0) + 1

    def on_duration(event: str, duration_secs: float, **kwargs: str | int) -> None:
        seconds[event] = seconds.get(event, 0.0) + duration_secs

    monitoring.register_event_listener(on_event)
    monitoring.register_event_duration_secs_listener(on_duration)
    try:
        yield counts, seconds
    finally:
        monitoring.unregister_event_listener(on_event)
        monitoring.unregister_event_duration_listener(on_duration)


@contextlib.contextmanager
def _private_cache(thresholds_zero: bool) -> Iterator[str]:
    import jax

    names = (
        "jax_compilation_cache_dir",
        "jax_enable_compilation_cache",
        "jax_persistent_cache_min_compile_time_secs",
        "jax_persistent_cache_min_entry_size_bytes",
    )
    was = {name: getattr(jax.config, name) for name in names}
    with tempfile.TemporaryDirectory(prefix="tuiperf-jax-cache-") as folder:
        jax.config.update("jax_compilation_cache_dir", folder)
        jax.config.update("jax_enable_compilation_cache", True)
        if thresholds_zero:
            jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
            jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
        _reset_persistent_cache()
        try:
            yield folder
        finally:
            for name, value in was.items():
                jax.config.update(name, value)
            _reset_persistent_cache()


def _one_compile_ms(subject: Subject) -> float:
    clear_in_memory_caches()
    started = time.perf_counter_ns()
    if hasattr(subject.fn, "trace"):
        subject.fn.trace(*subject.args).lower().compile()
    else:
        subject.fn.lower(*subject.args).compile()
    return (time.perf_counter_ns() - started) / 1e6


def _entries(folder: str) -> int:
    return sum(len(files) for _, _, files in os.walk(folder))


def persistent_cache(subject: Subject, *, thresholds_zero: bool = False) -> PersistentCache:
    """The miss then the hit with a private, empty cache folder: each compile's time (trace, lower and
    compile), the hits, misses, seconds saved and read time JAX reports, and why there was no hit."""
    import jax

    min_time = float(getattr(jax.config, "jax_persistent_cache_min_compile_time_secs"))  # noqa: B009
    min_size = int(getattr(jax.config, "jax_persistent_cache_min_entry_size_bytes"))  # noqa: B009
    with _private_cache(thresholds_zero) as folder, _listening() as (counts, seconds):
        cold_ms = _one_compile_ms(subject)
        backend_s = seconds.get(BACKEND)  # the cold compile's XLA part alone: JAX does not count tracing
        written = _entries(folder)
        warm_ms = _one_compile_ms(subject)
    hits, misses = counts.get(HITS, 0), counts.get(MISSES, 0)
    note = ""
    compiled_s = cold_ms / 1e3 if backend_s is None else backend_s
    if hits == 0:
        if written == 0 and not thresholds_zero and compiled_s < min_time:
            what = "trace, lower and compile" if backend_s is None else "XLA's backend compile"
            note = (
                f"nothing written: {what} took {compiled_s:.3g} s, under "
                f"jax_persistent_cache_min_compile_time_secs ({min_time:g} s)"
            )
        elif written == 0 and not thresholds_zero:
            note = f"nothing written: its entry may be under jax_persistent_cache_min_entry_size_bytes ({min_size})"
        elif written == 0:
            note = "nothing written even with both thresholds at 0 (the backend may not serialize executables)"
        else:
            note = "an entry was written but not read back"
    return PersistentCache(
        cold_ms=cold_ms,
        warm_ms=warm_ms,
        hits=hits,
        misses=misses,
        saved_s=seconds.get(SAVED),
        read_s=seconds.get(READ),
        entries=written,
        thresholds_zero=thresholds_zero,
        note=note,
    )


def with_repeats(
    stages: CompileStagesMs,
    subject: Subject,
    rounds: int,
    why: str,
    cache: list[PersistentCache],
    profile: TraceProfile | None = None,
) -> CompileStagesMs:
    """A variant's stages part with its repeats, its process's first compile, its persistent-cache
    figures, its program's size and its trace's profile."""
    return msgspec.structs.replace(
        stages,
        repeated=subject.series(),
        rounds=rounds,
        stopped=why,
        process_first_ms=_first_compile_ms,
        tiny_ms=_tiny_ms,
        cache=cache,
        size=subject.size,
        trace_profile=profile,
    )
