"""Where one call's time goes: each stage is the difference of two measured paths.

    framework    = call        - jit           the library's Python work before JAX sees arrays
    jit_dispatch = jit         - flat_jit      flattening the argument pytree ...
                 + noop_jit    - noop_execute  ... plus jit's argument checks and cache lookup
    launch       = noop_execute                launching an executable with these arrays (PJRT)
    compute      = flat_leaves - noop_jit      running the program, output buffers included
    outputs      = flat_jit    - flat_leaves   rebuilding the output pytree on the host

The paths (:func:`build_paths`) are real executables over the variant's own arrays:

- ``jit``: ``jit_fn(*jit_args)``, what JAX sees after the framework's Python work; for a variant
  that is itself a ``jax.jit`` function this *is* the call, and framework is zero by construction;
- ``flat_jit``: the same program jitted over the flat list of arrays (no pytree to flatten);
- ``flat_leaves``: that program returning its output leaves as a flat list (no pytree to rebuild);
- ``noop_jit``: a jitted function taking the same arrays that computes and returns nothing;
- ``noop_execute``: that no-op's executable launched through PJRT directly.

- ``twin``: ``flat_jit``'s program compiled a second time, an A/A pair: two separately compiled
  copies of one program differ by code placement and cache luck, and so do the paths above (the
  call and its jit level are separate programs too). Their difference bounds what the method can
  tell apart at this call's size: each stage that subtracts two such programs (framework, jit
  dispatch, outputs) gets that **resolution** (at least its own CI's half-width), and a stage below
  it is shown as "< resolution", not as a figure.

The stages add up exactly to the breakdown's median of the call. All paths of all variants are
sampled in the same rounds (:func:`measure_breakdowns`), so drift hits every stage of every variant
alike, and each stage gets a 95 % CI from a bootstrap over rounds (paired: a round's paths are
resampled together). A breakdown whose paths are not comparable — a stage clearly negative or larger
than the call, a call that differs from the steady-state median, a jit level that computes other
FLOPs than the call — is marked unreliable with the reason, never drawn as impossible bars.
"""

from __future__ import annotations

import functools
import itertools
import statistics
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tuiperf.measuring.sampler import Cancel, Outcome, Pace, Target, sample_interleaved
from tuiperf.measuring.shallow import Scope
from tuiperf.measuring.timing import DEFAULT_CLOCK, Clock, blocker_for, take_sample
from tuiperf.measuring.xla_costs import ProgramCosts
from tuiperf.results.model import BREAKDOWN_STAGES, STAGE_PATHS, Breakdown, Stage

assert list(STAGE_PATHS) == [key for key, _, _ in BREAKDOWN_STAGES]

MIN_ROUNDS = 8  # paths take ~5 ms turns like the main sampling (shorter turns read Python-heavy
# calls 12-20 % slower: fewer warm calls per turn), so rounds are long; pair at least this many
MAX_GROUPS = 40  # rounds are pooled into at most this many groups for the bootstrap
MIN_GROUPS = 4  # fewer (slow calls, a short budget) and the bootstrap cannot tell noise from a stage
BOOTSTRAP = 1000
NEGLIGIBLE = 0.03  # a stage larger than the call by more than this share (or 30 ns) is impossible
TIMER_FLOOR_NS = 30.0  # differences smaller than this are below what the clock itself resolves
# Stages that subtract two separately compiled programs of the call's size: the A/A pair bounds them.
PROGRAM_DIFFERENCES = ("framework", "jit_dispatch", "outputs")
RESIDUAL_LIMIT = 0.10  # a call that differs from the steady-state median by more: not comparable
FLOPS_TOLERANCE = 0.05


@dataclass
class TimedPath:
    """A callable and its arguments, timed as one path of the breakdown."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]


@dataclass(frozen=True)
class Paths:
    """The lower levels of one variant's call (everything but the call itself)."""

    paths: dict[str, TimedPath]
    call_is_jit: bool  # the call is a jax.jit function: its own jit level, framework is zero
    single_output: bool = False  # the program returns one array: no output pytree, outputs is zero
    program: ProgramCosts = field(default_factory=ProgramCosts)  # XLA's figures of the jit level's program
    # what call − jit holds when it is not a library's Python work (given by whoever knows)
    framework_holds: str | None = None


@dataclass(frozen=True)
class SteadyState:
    """A call's steady-state median and its 95 % interval, from sampling: what its paths must add up to."""

    median_ns: float
    ci95_ns: tuple[float, float]


@dataclass
class BreakdownInput:
    """One variant to break down: its call, its paths and its steady-state figures."""

    name: str
    call: TimedPath
    paths: Paths
    steady: SteadyState
    call_flops: float | None = None  # XLA's FLOPs of the call, where its wrapper reports them


def build_paths(jit_fn: Callable[..., Any], jit_args: tuple[Any, ...], *, call_is_jit: bool) -> Paths:
    """Compile the lower-level paths of ``jit_fn(*jit_args)`` (see the module docstring).

    The paths take the leaves the way ``jax.jit`` traces the call: arrays and Python scalars are
    arguments (a scalar as a weakly-typed 0-d one), everything else is baked in. A scalar that
    ``jit_fn`` holds static (``static_argnums``, an Equinox static leaf) stays a constant, as in the call:
    baking every scalar in let XLA fold them and made the paths another program than the call.
    """
    import jax

    leaves, treedef = jax.tree.flatten(jit_args)

    def program_over(dynamic: list[int]) -> Callable[..., Any]:
        def flat_program(*flat_arrays: Any) -> Any:
            rebuilt = list(leaves)
            for i, array in zip(dynamic, flat_arrays):
                rebuilt[i] = array
            return jit_fn(*jax.tree.unflatten(treedef, rebuilt))

        return flat_program

    dynamic = _traced_leaves(jit_args, leaves, program_over)
    flat_program = program_over(dynamic)
    arrays = tuple(leaves[i] for i in dynamic)
    on_device = [leaf if isinstance(leaf, jax.Array) else jax.numpy.asarray(leaf) for leaf in arrays]

    # keep_unused: every path must receive the same arrays, used or not.
    flat_jit = jax.jit(flat_program, keep_unused=True)
    traced = flat_jit.trace(*arrays)
    program = traced.lower().compile()  # also fills flat_jit's cache

    def twin_program(*flat_arrays: Any) -> Any:  # another function: jit traces and compiles it again
        return flat_program(*flat_arrays)

    twin = jax.jit(twin_program, keep_unused=True)
    twin.trace(*arrays).lower().compile()
    noop_jit = jax.jit(lambda *a: (), keep_unused=True)
    noop_executable = noop_jit.trace(*arrays).lower().compile().runtime_executable()
    paths = {
        "flat_jit": TimedPath(flat_jit, arrays),
        "twin": TimedPath(twin, arrays),
        "noop_jit": TimedPath(noop_jit, arrays),
        # A partial over a prebuilt list: no Python frame or list building in the timed path (a lambda
        # adds a frame that the jit path does not pay, enough to make "jit dispatch" read negative).
        "noop_execute": TimedPath(functools.partial(noop_executable.execute_sharded, on_device), ()),
    }
    # A single array comes back as it is: no output pytree to rebuild, "outputs" is zero by construction.
    single_output = isinstance(traced.out_info, jax.ShapeDtypeStruct)
    if not single_output:
        flat_leaves = jax.jit(lambda *a: tuple(jax.tree.leaves(flat_program(*a))), keep_unused=True)
        flat_leaves.trace(*arrays).lower().compile()
        paths["flat_leaves"] = TimedPath(flat_leaves, arrays)
    if not call_is_jit:
        paths["jit"] = TimedPath(jit_fn, jit_args)
    return Paths(
        paths=paths,
        call_is_jit=call_is_jit,
        single_output=single_output,
        program=ProgramCosts.of(program, "jit level"),
    )


def _traced_leaves(
    jit_args: tuple[Any, ...], leaves: list[Any], program_over: Callable[[list[int]], Callable[..., Any]]
) -> list[int]:
    """Indices of the leaves the paths take as arguments: every array, and every Python scalar that
    the jit level does not hold static. A top-level argument whose scalars cannot be traced (a static
    argument: hashing a tracer fails) keeps its scalars as constants."""
    import jax

    arrays = [i for i, leaf in enumerate(leaves) if isinstance(leaf, jax.Array | np.ndarray)]
    scalars = [i for i, leaf in enumerate(leaves) if type(leaf) in (bool, int, float, complex)]
    if not scalars:
        return arrays
    owner, start = {}, 0  # leaf index -> the top-level argument it belongs to
    for position, arg in enumerate(jit_args):
        count = len(jax.tree.leaves(arg))
        owner.update({i: position for i in range(start, start + count)})
        start += count

    def traces(dynamic: list[int]) -> bool:
        try:
            jax.eval_shape(program_over(dynamic), *(leaves[i] for i in dynamic))
        except Exception:  # noqa: BLE001 - a scalar the jit level needs static (or concrete)
            return False
        return True

    if traces(sorted(arrays + scalars)):
        return sorted(arrays + scalars)
    static = {
        p for p in {owner[i] for i in scalars} if not traces(sorted(arrays + [i for i in scalars if owner[i] == p]))
    }
    return sorted(arrays + [i for i in scalars if owner[i] not in static])


def measure_breakdowns(
    inputs: Sequence[BreakdownInput],
    *,
    resolution_ns: float,
    budget_s: float,
    cancel: Cancel,
    interleave: str = "block",
    dispatch: str = "sync",
    on_turn: Callable[[Target], None] = lambda target: None,
    clock: Clock = DEFAULT_CLOCK,
    scope: Scope = nullcontext,
) -> dict[str, Breakdown]:
    """Sample every path of every variant in the same rounds; one :class:`Breakdown` per variant.

    A variant whose path raises gets no breakdown (the caller notes it); a cancel returns {}.
    """
    targets: list[Target] = []
    owner: dict[str, tuple[str, str]] = {}  # target name -> (variant, path)
    for item in inputs:
        for path_name, path in {"call": item.call, **item.paths.paths}.items():
            block = blocker_for(path.fn(*path.args))
            estimate = statistics.median(take_sample(path.fn, path.args, 1, block, clock) for _ in range(3))
            name = f"{item.name}/{path_name}"
            owner[name] = (item.name, path_name)
            targets.append(Target(name, path.fn, path.args, block, Pace.of(estimate, resolution_ns)))
    if not targets:
        return {}
    outcome = sample_interleaved(
        targets,
        samples=None,
        budget_s=budget_s,
        cancel=cancel,
        interleave=interleave,
        on_turn=on_turn,
        clock=clock,
        min_rounds=MIN_ROUNDS,
        scope=scope,
    )
    if not outcome.completed:
        return {}
    by_variant: dict[str, dict[str, Target]] = {}
    for target in targets:
        variant, path_name = owner[target.name]
        by_variant.setdefault(variant, {})[path_name] = target
    results = {}
    for item in inputs:
        mine = by_variant[item.name]
        if any(t.error is not None or not t.samples for t in mine.values()):
            continue
        results[item.name] = _breakdown(item, mine, outcome, dispatch)
    return results


def _breakdown(item: BreakdownInput, targets: dict[str, Target], outcome: Outcome, dispatch: str) -> Breakdown:
    groups = _group_medians(targets)  # path -> per-group medians, the same groups for every path
    if item.paths.call_is_jit:
        groups["jit"] = groups["call"]
    if item.paths.single_output:
        groups["flat_leaves"] = groups["flat_jit"]
    medians = {path: float(np.median(values)) for path, values in groups.items()}
    point = {stage: sum(sign * medians[p] for p, sign in paths.items()) for stage, paths in STAGE_PATHS.items()}
    cis = _bootstrap(groups)
    aa = _aa_resolution(groups, cis)
    stages = {
        key: Stage(ns=point[key], ci95_ns=cis[key], resolution_ns=_resolution(key, point[key], cis[key], aa))
        for key in STAGE_PATHS
    }
    if item.paths.call_is_jit:  # two identical paths: zero by construction, not a measured difference
        stages["framework"] = Stage(ns=0.0, ci95_ns=(0.0, 0.0), by_construction=True)
    if item.paths.single_output:
        stages["outputs"] = Stage(ns=0.0, ci95_ns=(0.0, 0.0), by_construction=True)
    call = medians["call"]
    rounds = len(groups["call"])
    reliable, reason = _verdict(item, stages, call, cis["call"], dispatch, rounds)
    return Breakdown(
        stages=stages,
        call_ns=call,
        total_ns=item.steady.median_ns,
        residual_ns=item.steady.median_ns - call,
        reliable=reliable,
        reason=reason,
        paths_ns=medians,
        rounds=outcome.rounds,
        groups_ns={path: [float(v) for v in values] for path, values in groups.items()},
        resolution_ns=aa,
        framework_holds=item.paths.framework_holds,
    )


def _aa_resolution(groups: dict[str, np.ndarray], cis: dict[str, tuple[float, float]]) -> float | None:
    """The largest difference between two compiles of one program that the A/A pair allows."""
    if "twin" not in groups:
        return None
    lo, hi = cis["aa"]
    return max(abs(lo), abs(hi), TIMER_FLOOR_NS)


def _resolution(key: str, ns: float, ci: tuple[float, float], aa: float | None) -> float:
    """What can be told apart for one stage: its CI's half-width (it is a difference of noisy medians)
    and, where it subtracts two separately compiled programs, the A/A pair's difference."""
    own = max(abs(ci[1] - ns), abs(ns - ci[0]), TIMER_FLOOR_NS)
    return max(own, aa) if aa is not None and key in PROGRAM_DIFFERENCES else own


def below_resolution(stage: Stage) -> bool:
    """A measured stage the method cannot tell from zero."""
    return not stage.by_construction and stage.resolution_ns is not None and abs(stage.ns) < stage.resolution_ns


def _group_medians(targets: dict[str, Target]) -> dict[str, np.ndarray]:
    """Each path's samples pooled into the same groups of consecutive rounds, one median per group."""
    turns = {path: target.turns() for path, target in targets.items()}
    rounds = min(len(t) for t in turns.values())
    groups = min(MAX_GROUPS, rounds)
    edges = np.linspace(0, rounds, groups + 1).astype(int)
    return {
        path: np.array([np.median(np.concatenate(per_turn[a:b])) for a, b in itertools.pairwise(edges)])
        for path, per_turn in turns.items()
    }


def _bootstrap(groups: dict[str, np.ndarray]) -> dict[str, tuple[float, float]]:
    """95 % percentile intervals of each stage (and of the call) over resampled groups."""
    rng = np.random.default_rng(0)
    n = len(next(iter(groups.values())))
    picks = rng.integers(0, n, size=(BOOTSTRAP, n))
    medians = {path: np.median(values[picks], axis=1) for path, values in groups.items()}
    cis: dict[str, tuple[float, float]] = {}
    for stage, paths in STAGE_PATHS.items():
        draws = sum(sign * medians[p] for p, sign in paths.items())
        lo, hi = np.percentile(draws, [2.5, 97.5])
        cis[stage] = (float(lo), float(hi))
    lo, hi = np.percentile(medians["call"], [2.5, 97.5])
    cis["call"] = (float(lo), float(hi))
    if "twin" in medians:
        lo, hi = np.percentile(medians["twin"] - medians["flat_jit"], [2.5, 97.5])
        cis["aa"] = (float(lo), float(hi))
    return cis


def _verdict(
    item: BreakdownInput,
    stages: dict[str, Stage],
    call: float,
    call_ci: tuple[float, float],
    dispatch: str,
    rounds: int = MIN_GROUPS,
) -> tuple[bool, str | None]:
    """Whether the stages can be read as a split of the call; if not, why and what to do."""
    problems = []
    if rounds < MIN_GROUPS:
        problems.append(
            f"only {rounds} round(s) of the paths fit in the breakdown's time: too few to tell noise from a stage "
            "(give a larger --budget)"
        )
    for key, label, _ in BREAKDOWN_STAGES:
        stage = stages[key]
        lo, hi = stage.ci95_ns or (stage.ns, stage.ns)
        # Clearly below zero (the whole CI, and beyond what two compiles of one program differ by) is
        # never a split of the call, whatever its share of the call.
        if hi < 0 and -stage.ns > max(stage.resolution_ns or 0.0, TIMER_FLOOR_NS):
            problems.append(
                f"{label} is negative ({stage.ns:.0f} ns, 95 % CI {lo:.0f} to {hi:.0f} ns): "
                "a lower-level path took longer than the path it is part of"
            )
        elif lo > call * (1 + NEGLIGIBLE) + 30.0:
            problems.append(f"{label} ({stage.ns:.0f} ns) is larger than the whole call ({call:.0f} ns)")
    residual = item.steady.median_ns - call
    # Never waived for a wide steady-state interval: that is noise the split cannot be read through.
    if abs(residual) > RESIDUAL_LIMIT * item.steady.median_ns:
        main_half = (item.steady.ci95_ns[1] - item.steady.ci95_ns[0]) / 2
        wide = (
            f" (the steady-state median itself is uncertain by ±{100 * main_half / item.steady.median_ns:.0f} %)"
            if main_half > RESIDUAL_LIMIT * item.steady.median_ns
            else ""
        )
        problems.append(
            f"the call measured {100 * -residual / item.steady.median_ns:+.0f} % against its steady-state "
            f"median while the paths were timed{wide}: the two phases saw different conditions"
        )
    if item.call_flops and item.paths.program.flops is not None:
        ratio = item.paths.program.flops / item.call_flops
        if abs(ratio - 1) > FLOPS_TOLERANCE:
            problems.append(
                f"the jit level computes {ratio:.3g}× the call's XLA FLOPs: it is not the same "
                "program (give Bench the jit_fn/jit_args that compute everything the call does)"
            )
    if not problems:
        return True, None
    if dispatch == "async":
        remedy = (
            "under asynchronous CPU dispatch the paths queue work differently; measure the breakdown "
            "with --dispatch sync"
        )
    else:
        remedy = "run again on a quieter machine; if it persists, check the variant's jit level"
    return False, "; ".join(problems) + f". {remedy}."


def compiling_breakdown(median_ns: float, compiles: int, samples: int | None) -> Breakdown:
    """No split for a call that compiles while it is timed: its time is mostly compilation, which no
    path of the breakdown includes, so call − jit would read as the framework's work."""
    during = f"in {samples} samples while it was sampled" if samples is not None else "while its paths were timed"
    return Breakdown(
        stages={},
        call_ns=median_ns,
        total_ns=median_ns,
        residual_ns=0.0,
        reliable=False,
        reason=(
            f"the call compiled {compiles} time(s) {during}: its time is mostly compilation, which none of the "
            "breakdown's paths include, so no split is given (the Warnings say what changed between calls; "
            "make that value an array argument, or keep it fixed)"
        ),
        compiles=compiles,
    )
