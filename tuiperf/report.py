"""Render a result document for the terminal with Rich (the CLI's output; no Textual)."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from tuiperf.core.ratios import against
from tuiperf.core.units import format_ns

STAGES = ("framework", "jit_dispatch", "launch", "compute")


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


def latency_table(doc: dict[str, Any]) -> Table:
    baseline, ratios = against(doc)
    names = [v["name"] for v in doc["variants"]]
    table = _table(
        f"{doc['scenario']['id']}: per-call latency",
        ("variant", "median", "±CI95", "p10–p90", "n", f"× {baseline}" if ratios else "ratio"),
        names,
    )
    for v in doc["variants"]:
        if not v["ok"] or not v["stats"]:
            status = "skipped: " + "; ".join(v["notes"]) if v["skipped"] else f"failed: {v['error']}"
            table.add_row(v["name"], Text(status[:60], style="yellow" if v["skipped"] else "red"))
            continue
        s = v["stats"]
        lo, hi = s["ci95_median_ns"]
        row = ratios.get(v["name"])
        ratio = f"{row['ratio']:.2f} [{row['ci95'][0]:.2f}–{row['ci95'][1]:.2f}]" if row else "1"
        table.add_row(
            v["name"],
            format_ns(s["median_ns"]),
            f"±{100 * (hi - lo) / 2 / s['median_ns']:.1f}%",
            f"{format_ns(s['p10_ns'])}–{format_ns(s['p90_ns'])}",
            str(s["n"]),
            ratio,
        )
    return table


def stages_table(doc: dict[str, Any]) -> Table:
    rows = [v for v in doc["variants"] if v["ok"]]
    table = _table(
        "one-time stages and size",
        ("variant", "trace", "lower", "compile", "first call", "FLOPs", "params"),
        [v["name"] for v in rows],
    )
    for v in rows:
        st = v["stages_ms"]
        table.add_row(
            v["name"],
            *[_ms(st.get(k)) for k in ("trace", "lower", "compile", "first_call")],
            "–" if v["flops"] is None else f"{v['flops']:.3g}",
            "–" if v["param_count"] is None else f"{v['param_count']:,}",
        )
    return table


def breakdown_table(doc: dict[str, Any]) -> Table | None:
    rows = [v for v in doc["variants"] if v.get("breakdown_ns")]
    if not rows:
        return None
    table = _table(
        "where one call's time goes (differences of measured paths)",
        ("variant", "framework", "jit dispatch", "launch", "compute", "residual"),
        [v["name"] for v in rows],
    )
    for v in rows:
        b = v["breakdown_ns"]
        table.add_row(v["name"], *[_ns(b[k]) for k in STAGES], _ns(b["residual"]))
    return table


def profile_table(variant: dict[str, Any], top: int = 8) -> Table:
    table = Table(title=f"Python profile of {variant['name']} (cProfile, per call)", title_justify="left")
    for column in ("function", "calls", "cumulative", "own"):
        table.add_column(column, justify="left" if column == "function" else "right")
    for row in variant["profile"][:top]:
        table.add_row(
            row["function"], f"{row['ncalls']:.3g}", f"{row['cumtime_us']:.1f} µs", f"{row['tottime_us']:.1f} µs"
        )
    return table


def header(doc: dict[str, Any]) -> Text:
    env = doc.get("env", {})
    params = ", ".join(f"{k}={v}" for k, v in doc.get("params", {}).items())
    text = Text()
    text.append(f"{doc['scenario'].get('title') or doc['scenario']['id']}\n", style="bold")
    text.append(f"params: {params}\n")
    text.append(
        f"device {doc['device'].get('id')} ({env.get('device_kind', '?')}), dispatch {doc['options'].get('dispatch')}, "
        f"jax {env.get('jax')}, equinox {env.get('equinox')}, flax {env.get('flax')}, python {env.get('python')}\n",
        style="dim",
    )
    return text


def render(doc: dict[str, Any], profiles: bool = False) -> Group:
    parts: list[Any] = [header(doc), latency_table(doc), stages_table(doc)]
    breakdown = breakdown_table(doc)
    if breakdown is not None:
        parts.append(breakdown)
    if profiles:
        parts.extend(profile_table(v) for v in doc["variants"] if v.get("profile"))
    if doc.get("sweep"):
        parts.append(sweep_table(doc["sweep"]))
    for warning in doc.get("warnings", []):
        parts.append(Text(f"⚠ {warning}", style="yellow"))
    return Group(*parts)


def sweep_table(sweep: dict[str, Any]) -> Table:
    table = Table(title=f"sweep over {sweep['parameter']} (median per call)", title_justify="left")
    table.add_column("variant")
    for value in sweep["values"]:
        table.add_column(str(value), justify="right")
    table.add_column("log-log slope", justify="right")
    for name, medians in sweep["medians_ns"].items():
        slope = sweep["slopes"].get(name)
        table.add_row(name, *[_ns(m) for m in medians], "–" if slope is None else f"{slope:.2f}")
    return table


def print_result(doc: dict[str, Any], console: Console | None = None, profiles: bool = False) -> None:
    (console or Console()).print(render(doc, profiles))
