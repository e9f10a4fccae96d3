"""The result document, typed: what one run measured, as the CLI prints it, the TUI shows it and files keep it.

One model for every reader and one writer (:mod:`tuiperf.results.document`). The classes are ``msgspec``
structs: typed attributes in Python, strict validation when a file is read (``$.variants[0].stats``
names the bad field), a JSON Schema generated from them (``scripts/gen_schema.py`` writes
``tuiperf/results/result.schema.json``; a test fails when the two drift), and decoding about five times
faster than ``json.loads`` on a result of a million samples.

Units are in the field names: ``*_ns`` nanoseconds per call, ``*_ms`` milliseconds once, ``*_s``
seconds. Files written by older versions are upgraded on load (:mod:`tuiperf.results.resultfile`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from tuiperf.results.settings import RunSettings

SCHEMA_VERSION = 3

# The vocabulary of stages, defined here once: (key, label, what it is).
BREAKDOWN_STAGES: tuple[tuple[str, str, str], ...] = (
    ("framework", "framework", "the library's Python work before JAX sees arrays (call − jit)"),
    ("jit_dispatch", "jit dispatch", "pytree flattening, argument checks and jit's cache lookup"),
    ("launch", "launch", "launching an executable with these arrays (a no-op through PJRT)"),
    ("compute", "compute", "running the compiled program"),
    ("outputs", "outputs", "rebuilding the output pytree on the host (e.g. an Equinox module)"),
)
# Each breakdown stage as a signed sum of the medians of measured paths (see core.breakdown).
STAGE_PATHS: dict[str, dict[str, int]] = {
    "framework": {"call": 1, "jit": -1},
    "jit_dispatch": {"jit": 1, "flat_jit": -1, "noop_jit": 1, "noop_execute": -1},
    "launch": {"noop_execute": 1},
    "compute": {"flat_leaves": 1, "noop_jit": -1},
    "outputs": {"flat_jit": 1, "flat_leaves": -1},
}
COMPILE_STAGES: tuple[tuple[str, str], ...] = (
    ("trace", "trace"),
    ("lower", "lower"),
    ("compile", "compile"),
    ("first_call", "first call"),
)
# ``--measure compile``'s repeated stages (CompileStagesMs.repeated's keys), the total first.
REPEATED_STAGES: tuple[tuple[str, str], ...] = (
    ("total", "trace+lower+compile"),
    ("trace", "trace"),
    ("lower", "lower"),
    ("compile", "backend compile"),
    ("first_call", "first call"),
)
# Phases of a run, with the words that say what was happening in each.
PHASES: dict[str, str] = {
    "setup": "setting up inputs",
    "compile": "building and compiling",
    "sample": "sampling",
    "breakdown": "timing the breakdown",
    "profile": "profiling",
    "guard": "checking equivalence",
    "ops": "tracing the program's operations",
}

Scalar = int | float | str | bool
VariantStatus = Literal["ok", "skipped", "failed"]
# Where a crossover falls: below, inside or beyond the swept range, never, or unresolved (no extra cost told apart).
CrossoverWhere = Literal["below", "inside", "beyond", "never", "unresolved"]


class Struct(msgspec.Struct, kw_only=True, omit_defaults=False):
    """Base of every part of the document: keyword-only, all fields written."""


class Part(msgspec.Struct, kw_only=True, omit_defaults=False, frozen=True):
    """A part of a variant's result, made whole by the step that measures it and stored as it is."""


class Stats(Part, frozen=True):
    """Descriptive statistics of one variant's samples (robust figures first)."""

    n: int
    median_ns: float
    mean_ns: float
    std_ns: float
    min_ns: float
    max_ns: float
    p10_ns: float
    p25_ns: float
    p75_ns: float
    p90_ns: float
    p99_ns: float
    iqr_ns: float
    outliers: int
    outlier_rule: str
    ci95_median_ns: tuple[float, float]


class Interval(Part, frozen=True):
    """What a 95 % interval covers (:mod:`tuiperf.results.intervals`): "samples" (one process's samples
    as if independent: results stored before said nothing, and meant this), "rounds" (slow spells and
    drift, resampled in blocks of rounds) or "rounds and processes" (plus process-to-process spread:
    ``processes`` says whether from this run's processes or this machine's calibration, and its size)."""

    covers: str
    processes: str = ""
    samples_ci95: tuple[float, float] | None = None  # the samples-only interval, for comparison


class Mode(Part, frozen=True):
    """A cluster of per-call times (e.g. JAX's asynchronous dispatch paths)."""

    center_ns: float
    fraction: float


class StageSeries(Part, frozen=True):
    """One compile stage repeated (``--measure compile``): its times in milliseconds in the order taken,
    their median and the median's distribution-free 95 % interval."""

    samples_ms: list[float]
    median_ms: float
    ci95_ms: tuple[float, float]


class PersistentCache(Part, frozen=True):
    """JAX's persistent compilation cache, cold then warm, with a private empty folder: each compile's
    time (trace, lower and compile, in-memory caches cleared), what ``jax.monitoring`` reported (hits,
    misses — an entry written —, seconds saved, read time) and why there was no hit (``note``).
    ``thresholds_zero``: measured with ``jax_persistent_cache_min_compile_time_secs`` and
    ``..._min_entry_size_bytes`` at 0 (after a try with the process's own thresholds gave no hit)."""

    cold_ms: float
    warm_ms: float
    hits: int = 0
    misses: int = 0
    saved_s: float | None = None
    read_s: float | None = None
    entries: int = 0  # files the cold compile wrote to the folder
    thresholds_zero: bool = False
    note: str = ""


class ProgramSize(Part, frozen=True):
    """How large one variant's program is at each stage of its compile, counted once (``--measure
    compile``) from the objects of one of its repeats, after that repeat's stages were timed. None where
    the wrapper offers no such object (no ``trace()``: no jaxpr)."""

    # the traced jaxpr's equations, those of nested jaxprs (scan, while, cond, pjit bodies) included
    jaxpr_equations: int | None = None
    jaxpr_outer: int | None = None  # the outer jaxpr's own equations (a scan counts 1 there)
    lowered_instructions: int | None = None  # the lowered module, as HLO: every computation's instructions
    compiled_instructions: int | None = None  # the compiled (optimised) module: every computation's, fusions' included


class TraceProfile(Part, frozen=True):
    """A Python profile (cProfile) of a variant's trace (``f.trace(*args)``, in-memory caches cleared
    first), made after the timed repeats: the functions with most own time (``rows``, one trace's
    figures, the median over ``traces``), then the scenario file's other functions by cumulative time;
    the scenario file's are of ``kind`` "scenario" wherever they are. ``note``: why there is none, or
    what was profiled instead of a trace."""

    rows: list[ProfileRow] = []
    traces: int = 1  # traces profiled: each figure is their median
    profiled_ms: float | None = None  # a profiled trace's time (their median), inflated by the profiler
    note: str = ""


class CompileStagesMs(Part, frozen=True):
    """One-time costs in milliseconds; None where the wrapper offers no such stage. With ``--measure
    compile``, also each stage repeated (``repeated``: trace, lower, compile, first_call and total —
    trace + lower + compile —), variants in turn, with JAX's caches cleared before each repeat."""

    trace: float | None = None
    lower: float | None = None
    compile: float | None = None
    first_call: float | None = None
    repeated: dict[str, StageSeries] = {}
    rounds: int = 0
    stopped: str = ""  # why the repeats ended
    process_first_ms: float | None = None  # the process's first compile (a tiny unrelated function): paid before
    tiny_ms: float | None = None  # the same tiny function compiled again after the repeats
    cache: list[PersistentCache] = []
    size: ProgramSize | None = None  # the program's size as traced, lowered and compiled (None: not counted)
    trace_profile: TraceProfile | None = None  # where one trace's Python time goes (None: not profiled)

    @property
    def total(self) -> StageSeries | None:
        """Trace + lower + compile, repeated: the compile time a user waits for."""
        return self.repeated.get("total")


class ProgramMemory(Part, frozen=True):
    """What XLA says one compiled program needs, in bytes (``Compiled.memory_analysis()``): the same on
    every platform, known before the first call; per device for a program sharded over several. ``of``
    says whose program it is: the call's own ("call"), or its jit level's when the call's wrapper
    offers no ahead-of-time API ("jit level")."""

    arguments: int
    outputs: int
    temporaries: int
    aliased: int  # output bytes that reuse a donated argument's buffer
    generated_code: int
    peak: int | None = None  # XLA's own estimate of the program's peak, where the backend gives one
    of: str = "call"
    devices: int = 1  # a sharded program's figures are per device

    @property
    def total(self) -> int:
        """Arguments, outputs and temporaries, less what donation lets the outputs reuse."""
        return self.arguments + self.outputs + self.temporaries - self.aliased


class ProcessMemory(Struct):
    """The measuring process's memory after sampling: its resident host memory, and the device's
    allocator figures where the backend reports them (``device.memory_stats()``: GPUs, not the CPU)."""

    host_rss_bytes: int | None = None
    device_bytes_in_use: int | None = None
    device_peak_bytes_in_use: int | None = None
    device_bytes_limit: int | None = None


class Stage(Part, frozen=True):
    """One breakdown stage: a difference of two measured paths, with its 95 % CI over the rounds."""

    ns: float
    ci95_ns: tuple[float, float] | None = None
    # What the method can tell apart for this stage at this call's size (its CI's half-width, and for a
    # difference of two compiled programs the A/A pair's): a stage below it is shown as "< resolution".
    resolution_ns: float | None = None
    by_construction: bool = False  # zero because its two paths are the same path (not measured)


class Breakdown(Part, frozen=True):
    """Where one call's time goes. ``stages`` add up to ``call_ns`` exactly (each is a difference of
    path medians); ``residual_ns`` compares that with the steady-state median. When the paths are not
    comparable (a stage clearly negative or larger than the call, a large residual) ``reliable`` is
    False and ``reason`` says why and how to measure it properly."""

    stages: dict[str, Stage]
    call_ns: float
    total_ns: float
    residual_ns: float
    reliable: bool = True
    reason: str | None = None
    paths_ns: dict[str, float] = {}  # median of each path
    rounds: int = 0
    groups_ns: dict[str, list[float]] = {}  # each path's median per group of rounds (same groups for all
    # variants of a run: a baseline's stages can be compared with a paired bootstrap, see core.reconcile)
    resolution_ns: float | None = None  # two compiles of one program (A/A) differ by at most this
    compiles: int = 0  # XLA compilations of the call while it was timed: then no split is given (stages empty)
    # What the framework stage holds where it is not a library's Python work: for a jitted Step,
    # tuiperf carrying the state (a Python call, and the previous output's buffers fed back as input).
    framework_holds: str | None = None


class ProfileRow(Part, frozen=True):
    """One function of a Python profile, per call. ``kind`` is "python", or "executable" for the
    JAX/XLA time that cProfile cannot see inside (measured separately)."""

    function: str
    ncalls: float
    cumtime_us: float
    tottime_us: float
    kind: str = "python"
    # The compiled call's time beneath this function (its share of the executable row, through the
    # profile's call graph); None in profiles stored before it was measured. A function's subtree less
    # this is the time it holds itself (results.remedies weighs machinery by it).
    compiled_us: float | None = None


class Sampling(Part, frozen=True):
    """Steady-state sampling of one variant: its samples, when and in which rounds (and processes) they
    were taken, and the figures derived from them (made by :func:`tuiperf.results.document.sampling`)."""

    samples_ns: list[float] = []
    loops_per_sample: int = 1
    first_sample_s: float | None = None  # seconds after sampling started
    last_sample_s: float | None = None
    first_round: int | None = None
    last_round: int | None = None
    round_starts: list[int] = []  # index in samples_ns of each turn's first sample (turn k is in round k)
    process_starts: list[int] = []  # index in samples_ns of each process's first sample (--processes N)
    process_medians_ns: list[float] = []  # one median per measuring process (--processes N, --cluster N)
    stats: Stats | None = None
    modes: list[Mode] = []
    median_interval: Interval | None = None  # what stats.ci95_median_ns covers (None: samples only)
    # A cluster run (--cluster N): the median over calls of (slowest − fastest process's time) / slowest,
    # i.e. how much of each call the slowest process holds the others back; and per process, the calls
    # in which it was the slowest.
    slowest_share: float | None = None
    slowest_calls: list[int] = []


class OpRow(Part, frozen=True):
    """One operation a variant's program ran (an HLO instruction; a fusion is one), per call, from a
    profiler trace of calls made after sampling (:mod:`tuiperf.results.ops`); or, with ``kind``
    :data:`NOT_ATTRIBUTED`, the compute stage's time the trace gives to no operation."""

    op: str  # the HLO instruction's name: "convolution.3", "while.5", "ynn_fusion.1"
    kind: str  # matrix product, convolution, elementwise, reduction, transpose/copy, while loop, ...
    shapes: str = ""  # "f32[64,336] × f32[512,336] → f32[64,512]"
    detail: str = ""  # "3-D, window 3x3x3", "8 steps", "inside while.5"
    source: str = ""  # the line of the user's code it came from: "model.py:42"
    via: str = ""  # the innermost library frame it came through: "flax/linen/linear.py:1021"
    module: str = ""  # the HLO module that ran it
    calls: float = 0.0  # times it ran per call
    ns: float = 0.0  # time per call (its own time: a loop's is without its body's operations)
    ci95_ns: tuple[float, float] | None = None  # over batches of traced calls
    share: float | None = None  # of the compute stage (of the traced time where compute is unknown)


NOT_ATTRIBUTED = "not attributed"


class Operations(Part, frozen=True):
    """The operations table of one variant: rows by time per call, largest first, the row of what the
    trace does not attribute last (where the compute stage is known), so that the rows add up to it."""

    rows: list[OpRow] = []
    calls: int = 0  # traced calls
    batches: int = 0  # the intervals are over this many batches of them
    traced_ns: float = 0.0  # the operations' time per call, summed
    compute_ns: float | None = None  # the breakdown's compute stage the shares are of
    note: str | None = None  # why there is no table, or what to know reading it
    call_ns: float | None = None  # the traced calls' median time (the sampled median is the variant's own)

    @property
    def operations(self) -> list[OpRow]:
        """The rows of operations (without the not-attributed row)."""
        return [row for row in self.rows if row.kind != NOT_ATTRIBUTED]


class Program(Part, frozen=True):
    """What XLA says of the compiled program (or its jit level's), and the parameters it holds."""

    flops: float | None = None
    transcendentals: float | None = None  # XLA counts sin, exp, tanh, ... apart from the FLOPs
    memory: ProgramMemory | None = None
    param_count: int | None = None
    # The trip count of each while loop in the program (None: unknown; the list None: not read). XLA
    # counts a loop's body once, so the FLOPs of a program with a loop say nothing of its work.
    loops: list[int | None] | None = None
    ops: Operations | None = None  # which operations took the compute stage's time (None: not traced)
    constant_bytes: int | None = None  # arrays written into the program as constants (None: not read)

    @property
    def counts_work(self) -> bool:
        """Whether XLA's FLOP and transcendental counts are the program's work (it holds no loop)."""
        return not self.loops

    def loop_words(self) -> str:
        return loop_words(self.loops or [])


def loop_words(loops: Sequence[int | None]) -> str:
    """``a 16-step loop``, ``a loop`` (trip count unknown), ``2 loops (16 and ? steps)``."""
    steps = [str(n) if n is not None else "?" for n in loops]
    if len(steps) == 1:
        return f"{_article(steps[0])} {steps[0]}-step loop" if steps[0] != "?" else "a loop"
    return f"{len(steps)} loops ({' and '.join(steps)} steps)"


def _article(number: str) -> str:
    """``an`` before a count said with a vowel first (8, 11, 18, 80–89, 800–899, 8,000, 11,000, 18,000…)."""
    digits = len(number)
    eleven = number[:2] in ("11", "18") and digits % 3 == 2  # eleven, eighteen (thousand, million)
    return "an" if number.startswith("8") or eleven else "a"


class Recompiles(Part, frozen=True):
    """What traced and compiled while the variant was sampled, and why."""

    retraces: int = 0  # traces during steady-state sampling
    recompiles: int = 0  # XLA compilations during steady-state sampling
    causes: list[str] = []  # what changed between calls, from JAX's explanation of each cache miss
    eager: bool = False  # eager by design: traces per call are expected, no jit level


class Profile(Part, frozen=True):
    """A Python profile of one call, or ``note``: why there is none, or how to read it."""

    rows: list[ProfileRow] = []
    note: str | None = None
    # Bytes of host (NumPy) arrays among the call's arguments: copied to the device on every call as
    # they cross the jit boundary (None: not measured, a result stored before).
    host_bytes: int | None = None


class Failure(Part, frozen=True):
    """Why a variant failed (its status is "failed"), and in which of :data:`PHASES`."""

    error: str
    phase: str | None = None


class VariantResult(Part, frozen=True):
    """One variant's result: who it is and how it ended, then one part per step that measured it."""

    name: str
    status: VariantStatus = "ok"
    failure: Failure | None = None
    notes: list[str] = []
    warnings: list[str] = []
    environment: str | None = None  # the Python environment it was measured in, in a run over several
    sampling: Sampling = msgspec.field(default_factory=Sampling)
    stages: CompileStagesMs = msgspec.field(default_factory=CompileStagesMs)  # one-time stages, in milliseconds
    program: Program = msgspec.field(default_factory=Program)
    recompiles: Recompiles = msgspec.field(default_factory=Recompiles)
    profile: Profile = msgspec.field(default_factory=Profile)
    breakdown: Breakdown | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def skipped(self) -> bool:
        return self.status == "skipped"

    @property
    def measured(self) -> bool:
        return self.status == "ok" and self.sampling.stats is not None


class Tool(Struct):
    name: str = "tuiperf"
    version: str = ""


class ScenarioRef(Struct):
    id: str
    title: str = ""
    path: str = ""
    source_sha256: str | None = None  # of the file the run imported


class DeviceInfo(Struct):
    id: str
    platform: str = ""
    kind: str = ""
    index: int | None = None
    count: int = 1  # devices of this platform the run could use (tuiperf.devices, --devices N)


class RunOptions(RunSettings, kw_only=True):
    """How a run was measured: every row of the option table (:class:`RunSettings`, declared once in
    ``results/settings.py``) as the run used it — ``dispatch`` the mode the process really ran,
    ``baseline`` the variant ratios are against — and the variants asked for. A row added to the table
    is stored with no edit here; a document written before a row existed is read with what it meant
    (the row's ``Option.absent``, filled in by ``resultfile.decode``)."""

    variants: list[str] | None = None


class BusyProcess(Struct):
    """Another process that used the CPU while the run measured (not the run's own process tree)."""

    pid: int
    name: str
    cores: float  # CPU it used over the run, in cores (1.0: one core the whole time)


class Machine(Struct):
    """The machine a run measured on, read from /proc and /sys by the process that started the run
    (:mod:`tuiperf.results.machine`); empty or None where the system does not tell."""

    cpu_model: str = ""
    cpu_count: int | None = None  # the cores this process may run on
    governor: str = ""  # cpufreq scaling governor(s), "" where /sys does not tell
    boost: bool | None = None  # frequency boost (turbo) on, where /sys tells
    memory_total_bytes: int | None = None
    memory_available_bytes: int | None = None  # before the run
    accelerator: str = ""  # the accelerators the system lists (NVIDIA's driver), "" where none
    load_before: list[float] = []  # 1, 5 and 15 minute load averages as the run started
    load_after: list[float] = []
    others_cores: float | None = None  # CPU every other process used during the run, in cores
    seconds: float | None = None  # the span the CPU use was read over
    busiest: list[BusyProcess] = []  # the other processes that used most CPU during the run
    busy: bool = False  # the others used more than the cores the run left spare (the run may be unstable)


class Source(Struct):
    """The git state of the scenario's folder when the run started (where it is in a repository)."""

    commit: str
    branch: str = ""  # "" for a detached HEAD
    dirty: bool = False  # files changed and not committed (untracked files included)
    root: str = ""  # the repository's top folder


class Environment(Struct):
    python: str  # its version
    packages: dict[str, str | None]  # jax, jaxlib, equinox, flax, numpy, optax, tuiperf
    executable: str = ""  # the interpreter the measuring process ran (sys.executable)
    platform: str = ""
    cpu: str = ""
    cpu_count: int | None = None
    device_kind: str = ""
    backend: str = ""
    dispatch: str = ""
    xla_flags: str = ""
    jax_platforms: str = ""
    allocator: dict[str, str] = {}  # the XLA_PYTHON_CLIENT_* settings the measuring process ran with
    timer: str = "time.perf_counter_ns"
    timer_resolution_ns: float | None = None
    date: str = ""
    machine: Machine | None = None  # the machine and how busy it was during the run (older files: None)
    source: Source | None = None  # the git commit of the scenario's folder (None: not a repository, or older)


class Calibration(Struct):
    timer_resolution_ns: float
    harness_overhead_ns: float | None = None


class Crash(Struct):
    """What stopped a run: which variant, in which phase, how the measuring process ended."""

    how: str  # "was killed by SIGSEGV", "exited with status 3", "did not return within 60 s"
    variant: str | None = None
    phase: str | None = None
    stderr_tail: str = ""
    log_path: str | None = None


class Comparison(Struct):
    """median(a) / median(b) with a bootstrap 95 % CI and a Mann-Whitney p-value."""

    a: str
    b: str
    ratio: float
    ci95: tuple[float, float]
    p_value: float
    interval: Interval | None = None  # what ci95 covers (None: stored before, samples only)


class Tried(Struct):
    """A remedy tuiperf applied itself to one of the user's variants, where the evidence named it (one
    call's profile: JAX operations dispatched one at a time, or differentiated, outside a compiled
    program): the remedied variant, measured in the same rounds as the original and checked against
    its outputs. Not one of the user's variants: kept apart from ``RunResult.variants``."""

    of: str  # the user's variant it remedies
    remedy: str  # what was done, in words ("put jax.jit around the call")
    evidence: str  # what the measurement showed that named it
    result: VariantResult | None = None  # the remedied variant as measured (named "<of> ⟨remedy⟩")
    ratio: Comparison | None = None  # its median over the original's, same rounds
    same_outputs: bool | None = None  # the guard's check against the original's outputs
    differs: str = ""  # what differs where the outputs do not agree
    error: str | None = None  # why it could not be tried (the remedy's build, compile or first call failed)


class Mismatch(Struct):
    a: str
    b: str
    quantity: str
    detail: str


class Equivalence(Struct):
    reference: str | None = None
    checked: list[str] = []
    mismatches: list[Mismatch] = []
    notes: list[str] = []  # the same values computed by different programs (FLOPs differ): not a verdict

    def differs(self, name: str) -> bool:
        return any(m.a == name for m in self.mismatches)


class EnvironmentRun(Struct):
    """One Python environment of a run over several (``--env``): the first is the reference the
    others are compared with. ``error`` says why it measured nothing or stopped early."""

    name: str
    python: str  # the interpreter's path as registered
    env: Environment | None = None  # what its measuring process reported (versions, executable)
    error: str | None = None
    crash: Crash | None = None
    memory: ProcessMemory | None = None  # its measuring process's memory after sampling


class Cluster(Struct):
    """A run measured by several processes forming one JAX cluster (``jax.distributed``), in lockstep:
    every process made the same calls in the same order; the result's samples are ``samples_of``'s (the
    first process this tuiperf started: process 0 unless the others started some elsewhere)."""

    processes: int
    devices_per_process: int
    coordinator: str  # HOST:PORT the processes joined at
    samples_per_variant: int | None = None  # fixed after preparing, the same in every process
    samples_of: int = 0  # the process whose samples (and figures) the result holds


class Crossover(Struct):
    """Where a variant's extra fixed cost over the baseline falls under ``share`` of its call, from a
    fit of each variant's time per call as ``fixed + per_unit × size`` over a sweep's points
    (:mod:`tuiperf.results.crossover`; the CIs from a bootstrap over the points)."""

    variant: str
    baseline: str
    share: float  # 0.1 or 0.01 of the variant's call
    extra_ns: float  # the variant's fixed term minus the baseline's
    extra_ci95_ns: tuple[float, float]
    fixed_ns: float  # the variant's own fixed term
    per_unit_ns: float  # the variant's time per unit of the swept parameter
    per_unit_ci95_ns: tuple[float, float]
    at: float | None  # the size above which the extra cost is under ``share`` (None: never)
    at_ci95: tuple[float, float | None] | None  # None as the upper end: unbounded
    where: CrossoverWhere  # "inside" and "beyond" have an ``at`` (the file reader checks it)
    misfit: float  # root-mean-square relative residual of the variant's linear fit


class SweepAxis(Struct):
    """One swept parameter of a grid and its values, in the order given."""

    parameter: str
    values: list[Scalar]


class Sweep(Struct):
    """A sweep over one parameter (one point per value) or a grid over two (``grid``: one point per
    cell, row by row: the first parameter's values are the rows, the second's the columns).

    ``values`` holds each measured point's value of ``parameter`` (for a grid: the row of each cell), so
    it always lines up with ``points`` and ``medians_ns``; name a point with :meth:`label`."""

    parameter: str
    values: list[Scalar]
    medians_ns: dict[str, list[float | None]]
    slopes: dict[str, float | None]
    # The first point measured again after the last one: each variant's median then (drift check).
    anchor_ns: dict[str, float | None] = {}
    # Each variant's compiled program memory at each point (ProgramMemory.total, per device), as XLA sizes it.
    memory_bytes: dict[str, list[int | None]] = {}
    # For a sweep over a size: where each variant's extra fixed cost stops mattering (see Crossover).
    crossovers: list[Crossover] = []
    # A grid (two ``--sweep``): both parameters and their values; empty for a sweep over one parameter.
    grid: list[SweepAxis] = []
    # ``--measure compile``: each variant's compile (trace + lower + compile) median at each point, in ms.
    compile_ms: dict[str, list[float | None]] = {}

    @property
    def parameters(self) -> list[str]:
        return [axis.parameter for axis in self.grid] if self.grid else [self.parameter]

    @property
    def cell_count(self) -> int:
        """The points a complete sweep has (a grid's rows × columns); ``values`` holds those measured."""
        if not self.grid:
            return len(self.values)
        count = 1
        for axis in self.grid:
            count *= len(axis.values)
        return count

    def cell(self, index: int) -> dict[str, Scalar]:
        """The swept parameters' values at point ``index``."""
        if not self.grid:
            return {self.parameter: self.values[index]}
        found: dict[str, Scalar] = {}
        for axis in reversed(self.grid):  # the last parameter varies fastest
            index, at = divmod(index, len(axis.values))
            found[axis.parameter] = axis.values[at]
        return {p: found[p] for p in self.parameters}

    def label(self, index: int) -> str:
        """``n_args=4`` or, in a grid, ``n_args=4, size=64`` (values as given; callers sanitise)."""
        return ", ".join(f"{name}={value}" for name, value in self.cell(index).items())

    def title(self) -> str:
        """``sweep over n_args (3 points)`` or ``grid over n_args × size (6 cells)``."""
        n = self.cell_count
        if self.grid:
            return f"grid over {' × '.join(self.parameters)} ({n} cell{'s' * (n != 1)})"
        return f"sweep over {self.parameter} ({n} point{'s' * (n != 1)})"


class RunResult(Struct, kw_only=True):
    """One run: a single measurement, or a sweep (then ``points`` holds one result per value and
    ``variants`` is empty)."""

    schema_version: int = SCHEMA_VERSION
    tool: Tool = msgspec.field(default_factory=Tool)
    scenario: ScenarioRef
    params: dict[str, Scalar] = {}
    device: DeviceInfo
    options: RunOptions = msgspec.field(default_factory=RunOptions)
    env: Environment | None = None
    calibration: Calibration | None = None
    started_at: str = ""
    duration_s: float = 0.0
    partial: bool = False
    error: str | None = None
    crash: Crash | None = None
    variants: list[VariantResult] = []
    comparisons: list[Comparison] = []
    equivalence: Equivalence = msgspec.field(default_factory=Equivalence)
    warnings: list[str] = []
    memory: ProcessMemory | None = None
    cluster: Cluster | None = None
    sweep: Sweep | None = None
    points: list[RunResult] = []
    environments: list[EnvironmentRun] = []  # a run over several Python environments (``--env``)
    tried: list[Tried] = []  # remedies tuiperf applied itself and measured beside the originals

    def variant(self, name: str) -> VariantResult | None:
        return next((v for v in self.variants if v.name == name), None)

    @property
    def measured(self) -> list[VariantResult]:
        return [v for v in self.variants if v.measured]

    @property
    def shown(self) -> RunResult:
        """What single-point views show: the run itself, or a sweep's last point."""
        return self.points[-1] if self.sweep is not None and self.points else self
