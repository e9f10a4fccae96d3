"""Render a result for the terminal with Rich (the CLI's output; no Textual)."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from tuiperf.core.model import BREAKDOWN_STAGES, COMPILE_STAGES, RunResult, Sweep, VariantResult
from tuiperf.core.ratios import against
from tuiperf.core.units import format_ns


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f} ms"


def _ns(value: float | None) -> str:
    return "–" if value is None else format_ns(value)


def _table(title: str, columns: tuple[str, ...], names: list[str]) -> Table:
    table = Table(title=title, title_justify="left", expand=False)
    table.add_column(columns[0], no_wrap=True, min_width=min(max(map(len, names), default=8), 28))
    for column in columns[1:]:
        table.add_column(column, justify="right", no_wrap=True)
    return table


def latency_table(result: RunResult) -> Table:
    baseline, ratios = against(result)
    names = [v.name for v in result.variants]
    table = _table(
        f"{result.scenario.id}: per-call latency",
        ("variant", "median", "±CI95", "p10–p90", "n", f"× {baseline}" if ratios else "ratio"),
        names,
    )
    for v in result.variants:
        if v.stats is None or not v.ok:
            status = "skipped: " + "; ".join(v.notes) if v.skipped else f"failed: {v.error}"
            table.add_row(v.name, Text(status[:60], style="yellow" if v.skipped else "red"))
            continue
        s = v.stats
        lo, hi = s.ci95_median_ns
        row = ratios.get(v.name)
        ratio = f"{row.ratio:.2f} [{row.ci95[0]:.2f}–{row.ci95[1]:.2f}]" if row else "1"
        table.add_row(
            v.name,
            format_ns(s.median_ns),
            f"±{100 * (hi - lo) / 2 / s.median_ns:.1f}%",
            f"{format_ns(s.p10_ns)}–{format_ns(s.p90_ns)}",
            str(s.n),
            ratio,
        )
    return table


def stages_table(result: RunResult) -> Table:
    rows = [v for v in result.variants if v.ok]
    table = _table(
        "one-time stages and size",
        ("variant", *[label for _, label in COMPILE_STAGES], "FLOPs", "params"),
        [v.name for v in rows],
    )
    for v in rows:
        table.add_row(
            v.name,
            *[_ms(getattr(v.stages_ms, key)) for key, _ in COMPILE_STAGES],
            "–" if v.flops is None else f"{v.flops:.3g}",
            "–" if v.param_count is None else f"{v.param_count:,}",
        )
    return table


def breakdown_table(result: RunResult) -> Table | None:
    rows = [v for v in result.variants if v.breakdown_ns is not None]
    if not rows:
        return None
    table = _table(
        "where one call's time goes (differences of measured paths)",
        ("variant", *[label for _, label, _ in BREAKDOWN_STAGES], "residual"),
        [v.name for v in rows],
    )
    for v in rows:
        b = v.breakdown_ns
        assert b is not None
        cells = [_ns(b.stages[key].ns) if key in b.stages else "–" for key, _, _ in BREAKDOWN_STAGES]
        table.add_row(v.name, *cells, _ns(b.residual_ns))
    return table


def profile_table(variant: VariantResult, top: int = 8) -> Table:
    table = Table(title=f"Python profile of {variant.name} (cProfile, per call)", title_justify="left")
    for column in ("function", "calls", "cumulative", "own"):
        table.add_column(column, justify="left" if column == "function" else "right")
    for row in variant.profile[:top]:
        table.add_row(row.function, f"{row.ncalls:.3g}", f"{row.cumtime_us:.1f} µs", f"{row.tottime_us:.1f} µs")
    return table


def header(result: RunResult) -> Text:
    env = result.env
    packages = env.packages if env else {}
    params = ", ".join(f"{k}={v}" for k, v in result.params.items())
    text = Text()
    text.append(f"{result.scenario.title or result.scenario.id}\n", style="bold")
    text.append(f"params: {params}\n")
    text.append(
        f"device {result.device.id} ({env.device_kind if env else '?'}), dispatch {result.options.dispatch}, "
        f"jax {packages.get('jax')}, equinox {packages.get('equinox')}, flax {packages.get('flax')}, "
        f"python {env.python if env else '?'}\n",
        style="dim",
    )
    return text


def render(result: RunResult, profiles: bool = False) -> Group:
    shown = result.shown
    parts: list[Any] = [header(result), latency_table(shown), stages_table(shown)]
    breakdown = breakdown_table(shown)
    if breakdown is not None:
        parts.append(breakdown)
    if profiles:
        parts.extend(profile_table(v) for v in shown.variants if v.profile)
    if result.sweep is not None:
        parts.append(sweep_table(result.sweep))
    for warning in result.warnings:
        parts.append(Text(f"⚠ {warning}", style="yellow"))
    return Group(*parts)


def sweep_table(sweep: Sweep) -> Table:
    table = Table(title=f"sweep over {sweep.parameter} (median per call)", title_justify="left")
    table.add_column("variant")
    for value in sweep.values:
        table.add_column(str(value), justify="right")
    table.add_column("log-log slope", justify="right")
    for name, medians in sweep.medians_ns.items():
        slope = sweep.slopes.get(name)
        table.add_row(name, *[_ns(m) for m in medians], "–" if slope is None else f"{slope:.2f}")
    return table


def print_result(result: RunResult, console: Console | None = None, profiles: bool = False) -> None:
    (console or Console()).print(render(result, profiles))
