"""Result documents built from given samples, through the one writer (no JAX needed)."""

from __future__ import annotations

from collections.abc import Sequence

from tuiperf.results import document
from tuiperf.results.document import RunHeader
from tuiperf.results.model import (
    Breakdown,
    DeviceInfo,
    Environment,
    Failure,
    Profile,
    ProfileRow,
    Recompiles,
    RunOptions,
    RunResult,
    ScenarioRef,
    Stage,
    VariantResult,
)
from tuiperf.results.reconcile import stage_values


def header(
    scenario: str = "s",
    params: dict | None = None,
    dispatch: str = "sync",
    packages: dict | None = None,
    devices: int = 1,
    processes: int = 1,
) -> RunHeader:
    return RunHeader(
        scenario=ScenarioRef(id=scenario, title=scenario.title()),
        params=dict(params or {}),
        device=DeviceInfo(id="cpu:0", platform="cpu", kind="cpu", index=0, count=devices),
        options=RunOptions(dispatch=dispatch, devices=devices, processes=processes),
        env=Environment(python="3.11.7", packages=dict(packages or {"jax": "0.10.2"}), dispatch=dispatch),
    )


def result(samples: dict[str, Sequence[float]], **header_fields) -> RunResult:
    """A complete result with one variant per entry of ``samples``."""
    variants = [variant(name, values) for name, values in samples.items()]
    return document.run_result(header(**header_fields), variants, duration_s=1.0)


def sweep(
    medians: dict[str, Sequence[float]],
    parameter: str = "n_args",
    values: Sequence[object] = (1, 4, 16),
    params: dict | None = None,
    **header_fields,
) -> RunResult:
    """A stored 1-D sweep: one point per value, each variant's samples steady around its median there."""
    fixed = dict(params or {"size": 1})
    points = [
        result(
            {name: steady(series[i]) for name, series in medians.items()},
            params={**fixed, parameter: value},
            **header_fields,
        )
        for i, value in enumerate(values)
    ]
    base = header(params={**fixed, parameter: values[0]}, **header_fields)
    return document.sweep_result(parameter, list(values), points, base, duration_s=float(len(values)))


def crossing_sweep(**header_fields) -> RunResult:
    """A sweep over batch where eqx.filter_jit costs a fixed 23 µs more than jax.jit: under 10 % of the
    call above batch ≈ 200,000, never under 1 % in the range."""
    sizes = (1_000, 10_000, 100_000, 1_000_000)
    medians = {"jax.jit": [10_000.0 + s for s in sizes], "eqx.filter_jit": [33_000.0 + s for s in sizes]}
    return sweep(medians, parameter="batch", values=sizes, params={}, **header_fields)


def grid(
    medians: dict[str, Sequence[float]],
    rows: tuple[str, Sequence[object]] = ("n_args", (1, 4, 16)),
    columns: tuple[str, Sequence[object]] = ("size", (1, 64)),
    params: dict | None = None,
    **header_fields,
) -> RunResult:
    """A stored grid (two ``--sweep``): one point per cell, row by row, each variant's median given per cell."""
    fixed = dict(params or {})
    cells = [{rows[0]: r, columns[0]: c} for r in rows[1] for c in columns[1]]
    points = [
        result({name: steady(series[i]) for name, series in medians.items()}, params={**fixed, **cell}, **header_fields)
        for i, cell in enumerate(cells)
    ]
    base = header(params={**fixed, **cells[0]}, **header_fields)
    return document.sweep_result(
        rows[0], list(rows[1]), points, base, duration_s=float(len(cells)), columns=(columns[0], list(columns[1]))
    )


def steady(median: float, n: int = 300, spread: int = 13) -> list[float]:
    """Deterministic, tight samples around ``median``."""
    return [median * (1 + (i % spread - spread // 2) / 1000) for i in range(n)]


def breakdown(paths: dict[str, float], groups: dict[str, list[float]] | None = None, reliable=True) -> Breakdown:
    """A breakdown whose stages follow from the given path medians (as the sampler's would)."""
    stages = {k: Stage(v) for k, v in stage_values(paths).items()}
    return Breakdown(
        stages=stages,
        call_ns=paths["call"],
        total_ns=paths["call"],
        residual_ns=0.0,
        reliable=reliable,
        paths_ns=paths,
        groups_ns=groups or {},
    )


# Text that would be code, markup or a terminal command if any output took it as such: a docstring
# break followed by Python, Rich markup, an OSC 52 clipboard write, a C1 CSI, a bidi override, a
# Markdown table break and a CSV formula.
HOSTILE = (
    '"""\nimport os; os.system("echo pwned")\n"""\x1b]52;c;Y3VybCB4IHwgc2g=\x07\x1b]0;owned\x07'
    "\x9b2J[/][link=file:///etc/passwd]x[/link]|`*\r\u202e=cmd|' /C calc'!A0"
)


def hostile(result: RunResult, payload: str = HOSTILE) -> RunResult:
    """``result`` with ``payload`` appended to every text in it (keys too), statuses kept."""
    import msgspec

    def walk(value, key=None):
        if isinstance(value, str):
            return value if key == "status" else value + payload
        if isinstance(value, msgspec.Struct):
            fields = {name: walk(getattr(value, name), name) for name in value.__struct_fields__}
            return msgspec.structs.replace(value, **fields)
        if isinstance(value, dict):
            return {walk(k): walk(v, k) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(walk(v, key) for v in value)
        return value

    return walk(result)


def variant(
    name: str,
    samples: Sequence[float] = (),
    *,
    round_starts: Sequence[int] = (),
    process_starts: Sequence[int] = (),
    error: str | None = None,
    failed_phase: str | None = None,
    retraces: int = 0,
    recompiles: int = 0,
    recompile_causes: Sequence[str] = (),
    eager: bool = False,
    profile: Sequence[ProfileRow] = (),
    **parts,
) -> VariantResult:
    """A variant's result from given samples (and counts, a profile, a failure) through the one writer."""
    sampled = document.sampling(samples, round_starts=round_starts, process_starts=process_starts)
    return document.variant_result(
        name,
        sampled,
        failure=Failure(error=error, phase=failed_phase) if error is not None else None,
        recompiles=Recompiles(retraces=retraces, recompiles=recompiles, causes=list(recompile_causes), eager=eager),
        profile=Profile(rows=list(profile)),
        **parts,
    )
