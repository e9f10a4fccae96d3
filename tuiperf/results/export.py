"""A run as something to share: Markdown for an upstream issue, CSV of every sample, the JSON itself.

The Markdown is plain text first (it reads in a terminal, an e-mail or a GitHub issue) and states
everything a maintainer asks for before looking at a number: versions, device, dispatch mode, the
scenario's parameters and source hash, then medians with their CIs, ratios with CIs and p-values,
the breakdown, the guard's findings and every warning.
"""

from __future__ import annotations

import csv
import io

from tuiperf.common.units import format_ns, format_p
from tuiperf.results.model import BREAKDOWN_STAGES, RunResult
from tuiperf.results.ratios import against
from tuiperf.results.resultfile import encode
from tuiperf.results.verdict import BY_CONSTRUCTION_NOTE, stage_cell, verdicts

FORMATS = ("json", "csv", "markdown", "script")


def export(result: RunResult, fmt: str, run_label: str = "") -> str:
    if fmt == "json":
        return encode(result).decode("utf-8")
    if fmt == "csv":
        return samples_csv(result, run_label)
    if fmt == "markdown":
        return markdown(result)
    if fmt == "script":
        from tuiperf.results.repro import script

        return script(result)
    raise ValueError(f"unknown export format {fmt!r} (one of {', '.join(FORMATS)})")


def samples_csv(result: RunResult, run_label: str = "") -> str:
    """One row per sample: run, point (a sweep's value), variant, sample index, nanoseconds per call."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "point", "variant", "sample", "ns", "loops_per_sample"])
    points = result.points if result.sweep is not None else [result]
    values = result.sweep.values if result.sweep is not None else [""]
    for value, point in zip(values, points, strict=False):
        for variant in point.variants:
            for index, ns in enumerate(variant.samples_ns):
                writer.writerow([run_label, value, variant.name, index, f"{ns:.1f}", variant.loops_per_sample])
    return out.getvalue()


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _memory_section(shown: RunResult) -> list[str]:
    from tuiperf.results.memory import memory_rows, process_line

    rows = memory_rows(shown)
    if not rows:
        return []
    header = ["variant", "arguments", "outputs", "temporaries", "donated", "code", "total", "vs first"]
    lines = ["", "### Memory per call, as XLA sizes the program", "", *_table(header, rows)]
    process = process_line(shown)
    return [*lines, "", process] if process else lines


def markdown(result: RunResult) -> str:
    shown = result.shown
    lines = [f"## tuiperf: {_cell(result.scenario.title or result.scenario.id)}", ""]
    if result.partial:
        lines += ["**Partial result**: the run was cancelled or its measuring process stopped.", ""]
    params = ", ".join(f"`{k}={v}`" for k, v in shown.params.items()) or "defaults"
    lines += [f"Scenario `{result.scenario.id}` with {params}."]
    if result.sweep is not None:
        values = ", ".join(str(v) for v in result.sweep.values)
        lines += [f"Sweep over `{result.sweep.parameter}` = {values}; the tables show the last value."]
    lines += ["", "### Environment", ""]
    env = result.env
    packages = env.packages if env is not None else {}
    rows = [["device", f"{result.device.id} ({result.device.kind or result.device.platform})"]]
    rows += [["dispatch", result.options.dispatch], ["interleave", result.options.interleave]]
    rows += [[name, version or "—"] for name, version in packages.items()]
    if env is not None:
        rows += [["python", env.python], ["platform", env.platform], ["CPU", f"{env.cpu} ({env.cpu_count} cores)"]]
        if env.xla_flags:
            rows.append(["XLA_FLAGS", f"`{env.xla_flags}`"])
    rows += [["date", result.started_at], ["scenario source sha256", (result.scenario.source_sha256 or "—")[:16]]]
    lines += _table(["", ""], rows)

    lines += ["", "### Time per call", ""]
    rows = []
    for v in shown.variants:
        if v.stats is None:
            rows.append([f"`{v.name}`", v.status + (f": {v.error}" if v.error else ""), "", "", "", ""])
            continue
        s = v.stats
        ci = f"{format_ns(s.ci95_median_ns[0])} – {format_ns(s.ci95_median_ns[1])}"
        spread = f"{format_ns(s.p10_ns)} – {format_ns(s.p90_ns)}"
        recompiled = f" ({v.recompiles} recompiles while timed)" if v.recompiles else ""
        rows.append([f"`{v.name}`", format_ns(s.median_ns) + recompiled, ci, spread, str(s.n), v.status])
    lines += _table(["variant", "median", "95% CI of median", "p10 – p90", "n", "status"], rows)

    measured = [v.name for v in shown.measured]
    if len(measured) > 1:
        baseline, against_base = against(shown)
        lines += ["", f"### Ratios to `{baseline}`", ""]
        rows = [
            [f"`{name}`", f"{c.ratio:.3f}×", f"{c.ci95[0]:.3f} – {c.ci95[1]:.3f}", format_p(c.p_value)]
            for name, c in against_base.items()
        ]
        lines += _table(["variant", "median / baseline", "95% CI", "p (Mann-Whitney)"], rows)
        found = verdicts(shown, baseline)
        if found:
            lines += ["", f"### Why, against `{baseline}`", ""] + [f"- {_cell(sentence)}" for _, sentence in found]

    broken_down = [v for v in shown.variants if v.breakdown_ns is not None]
    if broken_down:
        lines += ["", "### Where one call's time goes (differences of measured paths)", ""]
        rows = []
        for v in broken_down:
            b = v.breakdown_ns
            assert b is not None
            cells = [stage_cell(b.stages.get(key)) for key, _, _ in BREAKDOWN_STAGES]
            verdict = "reliable" if b.reliable else f"unreliable: {b.reason}"
            aa = "—" if b.resolution_ns is None else f"±{format_ns(b.resolution_ns)}"
            rows.append([f"`{v.name}`", *cells, format_ns(b.residual_ns), aa, verdict])
        lines += _table(["variant", *[label for _, label, _ in BREAKDOWN_STAGES], "residual", "A/A", ""], rows)
        lines += [
            "",
            f"_{BY_CONSTRUCTION_NOTE}. `< x`: below what the method resolves at this size (the stage's CI; for "
            "framework, jit dispatch and outputs also the A/A pair, two compiles of one program)._",
        ]

    lines += _memory_section(shown)

    eq = shown.equivalence
    lines += ["", "### Equivalence guard", ""]
    if eq.mismatches:
        lines += [f"- **`{m.a}` differs from `{m.b}`** in {m.quantity}: {m.detail}" for m in eq.mismatches]
    elif eq.checked:
        lines += [
            f"{len(eq.checked)} variants compute the same outputs, FLOPs and parameter counts as `{eq.reference}`."
        ]
    else:
        lines += ["Not checked (fewer than two equivalent variants measured)."]
    lines += [f"- {_cell(note)} (a note: the values agree)" for note in eq.notes]
    notes = list(result.warnings) + [f"`{v.name}`: {w}" for v in shown.variants for w in v.warnings]
    if notes:
        lines += ["", "### Warnings", ""] + [f"- {_cell(w)}" for w in notes]
    lines += ["", f"_Measured with tuiperf {result.tool.version}; every figure comes from this run._", ""]
    return "\n".join(lines)
