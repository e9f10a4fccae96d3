"""The option table: every run option declared once, as one field of :class:`RunSettings`.

Each field is one option: its name, its type, its default, and an :class:`Option` saying its bounds or
choices, its help, its command-line flag, whether the setup form shows it and what an older stored
result meant by leaving it out. The table lives with the result model because a result stores it
(``RunOptions`` derives from it); what is derived from it for the command line, the form and a request
is in :mod:`tuiperf.contract.options`.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Annotated

import msgspec


class _Same:
    """An :class:`Option`'s ``absent`` when an older document without the row meant the row's default."""

    def __repr__(self) -> str:
        return "SAME"


SAME = _Same()

DISPATCH_MODES = ("sync", "async")
# Sync by default: the calling thread does the work, so a per-call figure is host work plus compute
# with no hand-off to JAX's dispatch thread, and the breakdown's paths are comparable; both modes
# repeat equally well between fresh processes (docs/how-it-measures.md; benchmarks/dispatch_modes.py).
DEFAULT_DISPATCH = "sync"
INTERLEAVE_MODES = ("block", "call")
SWEEP_ORDERS = ("interleaved", "sequential")
MEASURE_MODES = ("call", "compile")
MAX_SAMPLES_PER_VARIANT = 1_000_000  # ~8 MB per variant in the measuring process
MEASURING_COMMANDS = ("run", "app", "screenshot", "trace")


@dataclass(frozen=True)
class Option:
    """What the table says of one option besides its name, type and default."""

    help: str
    flag: str | None = None  # on the command line; a bool's flag sets the opposite of its default
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    min: float | None = None
    max: float | None = None
    none: str | None = None  # the word for "no value" (None) on the command line and in the form
    label: str | None = None  # shown in the setup form under this label; None: not in the form
    commands: tuple[str, ...] = MEASURING_COMMANDS  # the subcommands that take the flag
    # What a stored result written before the row existed meant by leaving it out, where that is not
    # the row's default (a new run's default can change; an old document's meaning cannot).
    absent: object = SAME

    @property
    def field_id(self) -> str:
        """The form field's id: the flag without its dashes."""
        return (self.flag or "").lstrip("-")


class RunSettings(msgspec.Struct, kw_only=True):
    """How to measure (besides the scenario, its parameters, variants and device): the option table."""

    dispatch: Annotated[
        str,
        Option(
            "JAX's CPU dispatch mode (see docs/how-it-measures.md)",
            flag="--dispatch",
            choices=DISPATCH_MODES,
            label="dispatch",
        ),
    ] = DEFAULT_DISPATCH
    budget_s: Annotated[
        float,
        Option(
            "auto mode: sample until each median's 95 % CI is within ±1 % or this many seconds end",
            flag="--budget",
            metavar="SECONDS",
            min=0.01,
            max=24 * 3600,
            label="budget s",
        ),
    ] = 3.0
    samples: Annotated[
        int | None,
        Option(
            "fixed samples per variant; auto: until the median is known to ±1 % or the budget ends",
            flag="--samples",
            metavar="N",
            min=1,
            max=MAX_SAMPLES_PER_VARIANT,
            none="auto",
            label="samples",
        ),
    ] = None
    measure: Annotated[
        str,
        Option(
            "call: the steady-state time of a call; compile: also trace, lower, compile and the first call, each "
            "repeated with JAX's caches cleared, variants in turn, until known to a few percent or the budget ends",
            flag="--measure",
            choices=MEASURE_MODES,
            commands=("run", "screenshot"),
            label="measure",
        ),
    ] = "call"
    interleave: Annotated[
        str,
        Option(
            "block: ~5 ms turns after a warm-up call (like a timing loop); call: one call per turn",
            flag="--interleave",
            choices=INTERLEAVE_MODES,
        ),
    ] = "block"
    timeout_s: Annotated[
        float | None,
        Option(
            "stop a call (or compile) that takes longer than this many seconds (none: never)",
            flag="--timeout",
            metavar="SECONDS",
            min=0.001,
            max=7 * 24 * 3600,
            none="none",
            absent=None,  # runs had no timeout before the option
        ),
    ] = 60.0
    processes: Annotated[
        int,
        Option(
            "repeat the measurement in N fresh measuring processes and report their spread",
            flag="--processes",
            metavar="N",
            min=1,
            max=100,
            commands=("run",),
        ),
    ] = 1
    profile: Annotated[
        bool,
        Option(
            "skip the Python profile and the operations table of each variant",
            flag="--no-profile",
            commands=("run",),
        ),
    ] = True
    ops: Annotated[
        bool,
        Option(
            "skip the operations table (a profiler trace of a few calls of each variant, after sampling)",
            flag="--no-ops",
            commands=("run",),
            absent=False,  # runs before the option traced no operations
        ),
    ] = True
    seed: Annotated[int, Option("seed of the run's random choices", min=0, max=2**32 - 1)] = 0
    devices: Annotated[
        int,
        Option(
            "devices the run may use (tuiperf.devices, tuiperf.mesh); on the CPU, N host devices",
            flag="--devices",
            metavar="N",
            min=1,
            max=256,
            label="devices",
        ),
    ] = 1
    cluster: Annotated[
        int,
        Option(
            "measure in N processes forming one JAX cluster (jax.distributed), each with --devices devices, "
            "sampling in lockstep",
            flag="--cluster",
            metavar="N",
            min=1,
            max=64,
            commands=("run",),
        ),
    ] = 1
    cluster_start: Annotated[
        int,
        Option(
            "with --cluster: the id of the first cluster process started here (the others run on other hosts)",
            flag="--cluster-start",
            metavar="ID",
            min=0,
            max=63,
            commands=("run",),
        ),
    ] = 0
    cluster_local: Annotated[
        int | None,
        Option(
            "with --cluster: how many of its processes start here, from --cluster-start (all: every one)",
            flag="--cluster-local",
            metavar="N",
            min=1,
            max=64,
            none="all",
            commands=("run",),
        ),
    ] = None
    coordinator: Annotated[
        str | None,
        Option(
            "where a cluster's coordinator listens, HOST:PORT (default: 127.0.0.1 and a free port)",
            flag="--coordinator",
            metavar="HOST:PORT",
            none="",
            commands=("run",),
        ),
    ] = None
    sweep_order: Annotated[
        str,
        Option(
            "a sweep's points: interleaved (all prepared, then sampled in the same rounds, so drift hits every "
            "point alike) or sequential (one after another, the first re-measured at the end to flag drift)",
            flag="--sweep-order",
            choices=SWEEP_ORDERS,
            commands=("run", "screenshot"),
            absent="sequential",  # sweeps measured their points one after another before the option
        ),
    ] = "interleaved"
    baseline: Annotated[
        str | None,
        Option(
            "ratios against this variant (default: the one the scenario marks reference=True, else the first)",
            flag="--baseline",
            metavar="VARIANT",
            none="",
            commands=("run",),
        ),
    ] = None


def options_of(table: type[RunSettings]) -> dict[str, tuple[object, Option]]:
    """Each row of ``table`` by name: its type (``int | None`` and the like) and its :class:`Option`."""
    hints = typing.get_type_hints(table, include_extras=True)
    rows = {}
    for field in msgspec.structs.fields(table):
        base, *extras = typing.get_args(hints[field.name])
        rows[field.name] = (base, next(e for e in extras if isinstance(e, Option)))
    return rows


def fill_absent(options: dict[str, object], table: type[RunSettings] = RunSettings) -> dict[str, object]:
    """A stored result's options with each row it lacks set to what its writer meant (an :class:`Option`'s
    ``absent``); rows whose meaning is the default are left for the decoder to fill."""
    filled = dict(options)
    for name, (_, option) in options_of(table).items():
        if name not in filled and option.absent is not SAME:
            filled[name] = option.absent
    return filled
