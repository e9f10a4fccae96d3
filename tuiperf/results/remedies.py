"""Which machinery holds a variant's per-call time, from its profile, and the remedy that fits it.

Each :class:`Remedy` names what holds the time (rows of the Python profile that belong to it), the
remedy, and the scenario whose remedy variant shows that it works (docs/remedies.md lists them; the
tests run them). A remedy is only given when the evidence names its machinery: where no entry fits,
the sentence says where the time is instead (:func:`framework_remedy`). Pure: no numpy or JAX.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

from tuiperf.common.text import one_line
from tuiperf.results.model import ProfileRow, VariantResult

MIN_SHARE = 0.1  # of the profiled call: less, and the machinery does not hold the time
# A share within this factor of MIN_SHARE (6.7 % to 15 %) is not decided from one run: five re-runs of one
# run (eqx.filter_jit over a 1024-wide Linear, a 2-core CPU at load 2.5-3.5) read Equinox's share as
# 8.9, 9.1, 10.8, 11.6 and 12.5 % (relative sd 14 %), so the remedy named changed between them; a share
# at the band's edges is 2.4 (above) and 3.5 (below) such sds from the threshold.
BAND = 1.5
CONSTRUCTORS = ("__init__", "__post_init__", "__new__")  # hashing a kept object is not building one


@dataclass(frozen=True)
class Remedy:
    key: str
    holds: str  # what holds the time, in words
    remedy: str
    scenario: str  # the scenario (file: slow variant → remedy variant) that shows the remedy works
    markers: tuple[str, ...] = ()  # a profile row whose label contains one of these belongs to it


TABLE: tuple[Remedy, ...] = (
    Remedy(
        "custom_derivative",
        "a jax.custom_jvp/custom_vjp function called outside jax.jit (custom_jvp.__call__ resolves its "
        "signature with inspect.signature and traces the rule on every call)",
        "put jax.jit around the custom_jvp/custom_vjp function",
        "tests/fixtures/scenarios/custom_jvp_eager.py: eager-custom_jvp → jit-around-custom_jvp",
        ("custom_derivatives.py",),
    ),
    Remedy(
        "eager_ops",
        "eager jnp operations (apply_primitive: each one dispatched on its own, e.g. jnp.float32(…) built "
        "on every call)",
        "build arrays that do not change once, outside the call, or compute them inside the jitted function",
        "tests/fixtures/scenarios/eager_constant.py: built-per-call → built-once",
        ("apply_primitive", "jax/_src/dispatch.py", "_src/numpy/"),
    ),
    Remedy(
        "nnx_graph",
        "NNX graph walks (the model and optimizer traversed in Python on every call)",
        "split once (nnx.split), jax.jit over the state, nnx.merge inside, or nnx.jit(graph=False)",
        "scenarios/nnx_vs_linen_cnn.py: nnx-nnx.jit → nnx-split-merge, nnx-nnx.jit-graph-false",
        ("flax/nnx/",),
    ),
    Remedy(
        "equinox_traversal",
        "Equinox module traversal (eqx.filter_jit partitions the module into arrays and static parts on every call)",
        "call jax.jit over arrays partitioned once outside the call (eqx.partition, or tuiperf.preflatten)",
        "tests/fixtures/scenarios/eqx_traversal.py: eqx.filter_jit → partitioned-once",
        ("equinox/",),
    ),
    Remedy(
        "per_call_objects",
        "objects built on every call in your own file (their constructors run, and jit hashes a new object, "
        "on every call)",
        "build them once outside the call and pass the same object each time",
        "tests/fixtures/scenarios/per_call_object.py: config-per-call → config-built-once",
    ),
)
BY_KEY = {r.key: r for r in TABLE}

# Remedies decided by other evidence than the profile (a stage, the recompile count, the memory table).
PYTREE_FLATTENING = Remedy(
    "pytree_flattening",
    "pytree flattening at the jit boundary (jit walks the argument pytree and checks every leaf)",
    "pre-flatten the arguments (tuiperf.preflatten) so jit walks a flat list, not the pytree",
    "scenarios/filter_jit_overhead.py: jax.jit → jax.jit-preflattened",
)
HOST_COPY = Remedy(
    "host_copy",
    "a host→device copy (NumPy arrays passed to the call are copied to the device on every call, inside "
    "jit's dispatch: the cost is the copy, not the pytree)",
    "put the data on the device ahead of the call (jax.device_put once, outside the loop), or prefetch the "
    "next batch onto the device while this one computes",
    "tests/fixtures/scenarios/host_arrays.py: numpy-batch → device-batch",
)
STATE_CARRIED = Remedy(
    "state_carried",
    "the state carried from call to call (tuiperf's call, and the previous output's buffers fed back "
    "as the next input: a memory effect that grows with the state, not Python)",
    "none in your code: every loop that feeds its state back pays it",
    "tests/fixtures/scenarios/steps.py (a jitted Step; its compiled call has its own profile row)",
)
RECOMPILES = Remedy(
    "recompiles",
    "compilation while timed (a value jit keys on changes between calls)",
    "keep what changes fixed, or make it an array argument; a static value that prints alike but is a "
    "new key needs a frozen, value-hashed class or to be built once",
    "tests/fixtures/scenarios/shared_jit.py: per-call-config → frozen-config",
)
EVERY = (*TABLE, PYTREE_FLATTENING, HOST_COPY, STATE_CARRIED, RECOMPILES)


def _python_rows(variant: VariantResult) -> list[ProfileRow]:
    return [r for r in variant.profile.rows if r.kind == "python" and not r.function.startswith("{")]


def _in_user_file(row: ProfileRow, scenario_path: str | None) -> bool:
    """A constructor of an object built in the scenario's own file (or generated there, as a
    dataclass's ``__init__`` is, in ``<string>``)."""
    name = row.function.split(" (", 1)[0]
    if name not in CONSTRUCTORS:
        return False
    where = row.function.rsplit("(", 1)[-1]
    file_name = PurePath(scenario_path).name if scenario_path else None
    return where.startswith("<string>") or (file_name is not None and f"{file_name}:" in where)


def _belongs(entry: Remedy, row: ProfileRow, scenario_path: str | None) -> bool:
    if entry.key == "per_call_objects":
        return _in_user_file(row, scenario_path)
    return any(marker in row.function for marker in entry.markers)


def held_us(row: ProfileRow) -> float:
    """The time a function holds itself: its subtree less the compiled call beneath it (the same rule
    for every entry). A wrapper whose cumulative time is mostly the compiled call it makes holds little
    (Equinox's ``__call__`` read 2,479 µs cumulative around a 2,366 µs compiled call). Profiles stored
    before the compiled call's share was measured keep the cumulative time."""
    return row.cumtime_us - (row.compiled_us or 0.0)


@dataclass(frozen=True)
class Held:
    """A table entry that holds time in a profile: its heaviest row, and that row's share of the call
    (what it holds itself, :func:`held_us`, over the profiled call's outermost row)."""

    entry: Remedy
    row: ProfileRow
    share: float
    band: float = BAND  # 1 for a profile stored before the compiled call's share was measured

    @property
    def decided(self) -> bool:
        """Far enough above :data:`MIN_SHARE` that a re-run of the same run names the same remedy."""
        return self.share >= MIN_SHARE * self.band

    def percent(self) -> str:
        return f"{100 * self.share:.1f} %"


def undecided_words(held: Held) -> str:
    low, high = 100 * MIN_SHARE / BAND, 100 * MIN_SHARE * BAND
    return (
        f"not decided: the profile puts {held.percent()} of the call in {one_line(held.row.function, 80)}, "
        f"{held.entry.holds}, too near the {100 * MIN_SHARE:.0f} % a remedy needs to name one from one run "
        f"(re-runs of a run disagree between {low:.1f} and {high:.0f} %)"
    )


def weighed(variant: VariantResult, scenario_path: str | None = None) -> Held | None:
    """The table entry whose rows hold the most of the profiled call themselves (:func:`weigh`)."""
    return weigh(variant.profile.rows, scenario_path)


def weigh(
    profile: Sequence[ProfileRow], scenario_path: str | None = None, entries: Sequence[Remedy] = TABLE
) -> Held | None:
    """The entry whose rows hold the most of the profiled call themselves (:func:`held_us`), with its
    heaviest row and its share of the call's outermost row (a Python frame, or the compiled call where
    the call is the executable itself: six µs of Equinox attribute look-ups around a 309 µs plain
    ``jax.jit`` call are not 62 % of it); None when no entry's rows hold :data:`MIN_SHARE` / :data:`BAND`.
    A profile stored before the compiled call's share was measured is read as it was then: shares of
    the outermost Python row, decided at :data:`MIN_SHARE` (its file shows as it showed)."""
    rows = [r for r in profile if r.kind == "python" and not r.function.startswith("{")]
    if not rows:
        return None
    measured = all(r.compiled_us is not None for r in rows)
    band = BAND if measured else 1.0
    executable = [r for r in profile if r.kind == "executable"] if measured else []
    outermost = max(r.cumtime_us for r in (*rows, *executable))
    best: tuple[Remedy, ProfileRow] | None = None
    for entry in entries:
        for row in rows:
            if _belongs(entry, row, scenario_path) and (best is None or held_us(row) > held_us(best[1])):
                best = entry, row
    if best is None or outermost <= 0 or held_us(best[1]) < MIN_SHARE / band * outermost:
        return None
    return Held(best[0], best[1], held_us(best[1]) / outermost, band)


def machinery(variant: VariantResult, scenario_path: str | None = None) -> tuple[Remedy, ProfileRow] | None:
    """The table entry that holds the time, decided (:meth:`Held.decided`), with its heaviest row; None
    when no entry's rows hold at least :data:`MIN_SHARE` of the call, or the share is too near it."""
    held = weighed(variant, scenario_path)
    return (held.entry, held.row) if held is not None and held.decided else None


def where_the_time_is(variant: VariantResult) -> str | None:
    """The Python function with the most own time, with its file and line, as the profile labels it."""
    rows = _python_rows(variant)
    return one_line(max(rows, key=lambda r: r.tottime_us).function, 80) if rows else None


def framework_remedy(variant: VariantResult, scenario_path: str | None = None, *, suggest: bool = True) -> str:
    """The remedy for time in the framework stage, from the machinery the profile names; else where it
    is; "not decided" where the machinery's share is too near the threshold to name it from one run.
    ``suggest=False`` (a remedy was tried and is said with its effect): the machinery alone."""
    held = weighed(variant, scenario_path)
    if held is not None and not held.decided:  # a remedy tried is said with its effect: that decides
        machinery_in = f"{one_line(held.row.function, 80)}, {held.entry.holds}"
        return undecided_words(held) if suggest else f"the profile puts {held.percent()} of the call in {machinery_in}"
    if held is not None:
        said = f"the profile puts it in {one_line(held.row.function, 80)}, {held.entry.holds}"
        return f"{said}: {held.entry.remedy}" if suggest else said
    where = where_the_time_is(variant)
    return f"no known remedy: the time is in {where}" if where else "no known remedy: no profile names where it is"


def table_rows(entries: Sequence[Remedy] = EVERY) -> list[tuple[str, str, str]]:
    """(what holds the time, remedy, scenario) for the docs."""
    return [(e.holds, e.remedy, e.scenario) for e in entries]
