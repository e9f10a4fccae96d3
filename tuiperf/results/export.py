"""A run as something to share: Markdown for an upstream issue, CSV of every sample, the JSON itself.

The Markdown is plain text first (it reads in a terminal, an e-mail or a GitHub issue) and states
everything a maintainer asks for before looking at a number: versions, device, dispatch mode, the
scenario's parameters and source hash, then medians with their CIs, ratios with CIs and p-values,
the breakdown, the guard's findings and every warning.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from pathlib import Path

from tuiperf.common.text import one_line
from tuiperf.common.units import counted, format_ns, ratio_with_interval, sig3
from tuiperf.results import covers, tried
from tuiperf.results.environments import COMPARED_PACKAGES, changes
from tuiperf.results.findings import comparison_finding, p_cell
from tuiperf.results.model import BREAKDOWN_STAGES, NOT_ATTRIBUTED, Environment, RunResult
from tuiperf.results.ops import ops_summary, side_by_side
from tuiperf.results.ratios import against
from tuiperf.results.resultfile import encode
from tuiperf.results.verdict import BY_CONSTRUCTION_NOTE, stage_cell, verdicts

FORMATS = ("json", "csv", "markdown", "script", "ops-csv")


def export(result: RunResult, fmt: str, run_label: str = "", scenario_files: Iterable[Path] = ()) -> str:
    """``result`` in ``fmt``; a script's source is looked for among ``scenario_files`` (by hash)."""
    if fmt == "json":
        return encode(result).decode("utf-8")
    if fmt == "csv":
        return samples_csv(result, run_label)
    if fmt == "ops-csv":
        return ops_csv(result, run_label)
    if fmt == "markdown":
        return markdown(result)
    if fmt == "script":
        from tuiperf.results.repro import script

        return script(result, scenario_files)
    raise ValueError(f"unknown export format {fmt!r} (one of {', '.join(FORMATS)})")


def samples_csv(result: RunResult, run_label: str = "") -> str:
    """One row per sample: run, point (a sweep's value), variant, sample index, nanoseconds per call."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    from tuiperf.results.compile_time import has_repeats

    compiled = has_repeats(result)  # then a last column says which quantity a row is: a call, or a compile stage
    writer.writerow(
        ["run", "point", "variant", "sample", "ns", "loops_per_sample", *(["quantity"] if compiled else [])]
    )
    points = result.points if result.sweep is not None else [result]
    sweep = result.sweep
    # a sweep's point is its value; a grid's cell its label ("n_args=4, size=64")
    values = [sweep.label(i) if sweep.grid else v for i, v in enumerate(sweep.values)] if sweep is not None else [""]
    for value, point in zip(values, points, strict=False):
        for variant in point.variants:
            name = _csv_text(variant.name)
            for index, ns in enumerate(variant.sampling.samples_ns):
                writer.writerow(
                    [
                        _csv_text(run_label),
                        _csv_text(value),
                        name,
                        index,
                        f"{ns:.1f}",
                        variant.sampling.loops_per_sample,
                        *(["call"] if compiled else []),
                    ]
                )
            for stage, series in variant.stages.repeated.items():
                for index, ms in enumerate(series.samples_ms):
                    writer.writerow(
                        [_csv_text(run_label), _csv_text(value), name, index, f"{ms * 1e6:.1f}", 1, f"compile:{stage}"]
                    )
    return out.getvalue()


OPS_COLUMNS = ["run", "point", "variant", "operation", "kind", "detail", "shapes", "source", "via", "module"]
OPS_COLUMNS += ["runs_per_call", "ns_per_call", "ci95_low_ns", "ci95_high_ns", "share_of_compute"]


def ops_csv(result: RunResult, run_label: str = "") -> str:
    """One row per operation of each variant's operations table (:mod:`tuiperf.results.ops`), the row of
    what the trace does not attribute included."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(OPS_COLUMNS)
    points = result.points if result.sweep is not None else [result]
    sweep = result.sweep
    values = [sweep.label(i) for i in range(len(sweep.values))] if sweep is not None else [""]
    for value, point in zip(values, points, strict=False):
        for variant in point.variants:
            table = variant.program.ops
            for row in table.rows if table is not None else []:
                low, high = row.ci95_ns if row.ci95_ns is not None else (None, None)
                texts = [run_label, value, variant.name, row.op, row.kind, row.detail, row.shapes, row.source, row.via]
                writer.writerow(
                    [
                        *(_csv_text(text) for text in [*texts, row.module]),
                        f"{row.calls:g}",
                        f"{row.ns:.1f}",
                        "" if low is None else f"{low:.1f}",
                        "" if high is None else f"{high:.1f}",
                        "" if row.share is None else f"{row.share:.4f}",
                    ]
                )
    return out.getvalue()


def _csv_text(value: object) -> str:
    """A text cell: one line with no control character, and never a formula (a spreadsheet would run
    ``=...``, ``+...``, ``-...`` or ``@...``: OWASP's rule is a leading apostrophe)."""
    text = one_line(value)
    return "'" + text if text.startswith(("=", "+", "-", "@")) else text


# Characters that Markdown reads as structure anywhere in a line (a name is data, never a link, an
# emphasis, an HTML tag or a table break).
_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>|~&"})


def _cell(text: object) -> str:
    """Text from a result as Markdown text: one line, no control character, every special escaped."""
    return one_line(text).translate(_MARKDOWN_SPECIAL)


def _prose(text: object) -> str:
    """A sentence tuiperf wrote (a warning, a verdict), whose `backticked` words are commands or names
    meant as code: each pair of backticks a code span (what is inside is never markup either), the rest
    escaped as :func:`_cell` does; an unpaired backtick makes no span: all of it escaped."""
    parts = one_line(text).split("`")
    if len(parts) % 2 == 0:
        return _cell(text)
    return "".join(
        (_code(part) if part.strip() else "\\`\\`") if odd else part.translate(_MARKDOWN_SPECIAL)
        for odd, part in ((i % 2 == 1, p) for i, p in enumerate(parts))
    )


def _code(text: object) -> str:
    """Text as an inline code span (fenced by more backticks than it holds, its pipes escaped for a
    table cell, as GitHub's tables require even inside code)."""
    inner = one_line(text).replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", inner)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if inner.startswith("`") or inner.endswith("`") or not inner.strip() else ""
    return f"{fence}{pad}{inner}{pad}{fence}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _memory_section(shown: RunResult, level: str) -> list[str]:
    from tuiperf.results.memory import memory_rows, process_line

    rows = memory_rows(shown)
    if not rows:
        return []
    header = ["variant", "arguments", "outputs", "temporaries", "donated", "code", "total", "vs first"]
    rows = [[_code(row[0]), *row[1:]] for row in rows]
    lines = ["", f"{level} Memory per call, as XLA sizes the program", "", *_table(header, rows)]
    process = process_line(shown)
    return [*lines, "", _prose(process)] if process else lines


def markdown(result: RunResult) -> str:
    """The whole run: its header, then for a single run its tables, for a sweep the tables of
    every point under its value; the warnings once each."""
    shown = result.shown
    lines = [f"## tuiperf: {_cell(result.scenario.title or result.scenario.id)}", ""]
    if result.partial:
        lines += ["**Partial result**: the run was cancelled or its measuring process stopped.", ""]
    swept = result.sweep.parameters if result.sweep is not None else []
    params = ", ".join(_code(f"{k}={v}") for k, v in shown.params.items() if k not in swept) or "defaults"
    lines += [f"Scenario {_code(result.scenario.id)} with {params}."]
    if result.sweep is not None and result.sweep.grid:
        first, second = result.sweep.grid
        lines += [
            f"Grid over {_code(first.parameter)} × {_code(second.parameter)} ({result.sweep.cell_count} cells): "
            f"{_code(first.parameter)} = {', '.join(_cell(v) for v in first.values)}; "
            f"{_code(second.parameter)} = {', '.join(_cell(v) for v in second.values)}; "
            "each variant's table over every cell first, then each cell's tables."
        ]
    elif result.sweep is not None:
        values = ", ".join(_cell(v) for v in result.sweep.values)
        n = len(result.sweep.values)
        lines += [
            f"Sweep over {_code(result.sweep.parameter)} ({n} point{'s' * (n != 1)}) = {values}; "
            "the medians at every point first, then each value's tables."
        ]
    lines += ["", "### Environment", ""]
    env = result.env
    several = len(result.environments) > 1  # each environment's versions are in their own table
    packages = env.packages if env is not None and not several else {}
    device = f"{_cell(result.device.id)} ({_cell(result.device.kind or result.device.platform)})"
    rows = [["device", device]]
    rows += [["devices", str(result.device.count)]] if result.device.count > 1 else []
    rows += [["processes", str(result.options.processes)]] if result.options.processes > 1 else []
    rows += [["dispatch", _cell(result.options.dispatch)], ["interleave", _cell(result.options.interleave)]]
    rows += [[_cell(name), _cell(version or "—")] for name, version in packages.items()]
    if env is not None:
        rows += [["python", _cell(env.python)]] if not several else []
        rows += [["platform", _cell(env.platform)]]
        rows += [["CPU", f"{_cell(env.cpu)} ({_cell(env.cpu_count)} cores)"]]
        if env.xla_flags:
            rows.append(["XLA_FLAGS", _code(env.xla_flags)])
        rows += _machine_rows(env)
    source = _cell((result.scenario.source_sha256 or "—")[:16])
    rows += [["date", _cell(result.started_at)], ["scenario source sha256", source]]
    lines += _table(["", ""], rows)
    lines += _environments_section(result)

    if result.sweep is not None and result.points:
        lines += _grid_section(result) if result.sweep.grid else _sweep_section(result)
        for index, point in enumerate(result.points):
            lines += ["", f"### At {_code(result.sweep.label(index))}"]
            lines += _point(point, "####")
    else:
        lines += _point(shown, "###")
    notes = _warnings(result)
    if notes:
        lines += ["", "### Warnings", ""] + [f"- {_prose(w)}" for w in notes]
    lines += ["", f"_Measured with tuiperf {_cell(result.tool.version)}; every figure comes from this run._", ""]
    return "\n".join(lines)


def _machine_rows(env: Environment) -> list[list[str]]:
    """The git commit and the machine during the run, where the result recorded them."""
    rows = []
    if env.source is not None:
        state = ", ".join(x for x in (env.source.branch, "dirty" if env.source.dirty else "") if x)
        rows.append(["commit", _code(env.source.commit[:12]) + (f" ({_cell(state)})" if state else "")])
    m = env.machine
    if m is not None:
        frequency = [
            f"governor {m.governor}" if m.governor else "",
            "" if m.boost is None else f"boost {'on' if m.boost else 'off'}",
        ]
        if any(frequency):
            rows.append(["CPU frequency", _cell(", ".join(f for f in frequency if f))])
        if m.load_before and m.load_after:
            rows.append(["load average", f"{m.load_before[0]:.2f} → {m.load_after[0]:.2f}"])
        if m.others_cores is not None:
            rows.append(["other processes' CPU", f"{m.others_cores:.2f} cores{' (busy)' if m.busy else ''}"])
        if m.accelerator:
            rows.append(["accelerator", _cell(m.accelerator)])
    return rows


def _sweep_section(result: RunResult) -> list[str]:
    """Every point's median per variant, and its ratio to the baseline with the 95 % CI."""
    sweep = result.sweep
    assert sweep is not None
    names = list(sweep.medians_ns)
    lines = ["", f"### Medians over {_code(sweep.parameter)}", ""]
    rows = []
    for point in result.points:
        ratios = against(point)[1] if len(point.measured) > 1 else {}
        cells = []
        for name in names:
            variant = point.variant(name)
            if variant is None or variant.sampling.stats is None:
                cells.append("—")
                continue
            ratio = ratios.get(name)
            # three significant figures, as the report: ".3f" read "(0.020×, 0.020 – 0.020)" for 0.0200× [0.0200–0.0202]
            versus = f" ({sig3(ratio.ratio)}×, {sig3(ratio.ci95[0])} – {sig3(ratio.ci95[1])})" if ratio else ""
            cells.append(format_ns(variant.sampling.stats.median_ns) + versus)
        rows.append([_cell(point.params.get(sweep.parameter)), *cells])
    if not sweep.grid:  # the report's table has each variant's slope; the Markdown had none
        from tuiperf.results.compile_time import slope_text

        rows.append(["log-log slope", *[slope_text(sweep.slopes.get(name), "—") for name in names]])
    lines += _table([_code(sweep.parameter), *map(_code, names)], rows)
    lines += ["", "_In brackets: median / the baseline's at that point, and its 95% CI._"]
    lines += _sweep_compile_section(result)
    from tuiperf.results.crossover import sentences

    found = sentences(result)
    if found:
        lines += ["", "### Does the extra fixed cost matter at your size?", ""]
        lines += ["_Each variant's time per call fitted as fixed + per-unit × size over the points above._", ""]
        lines += [f"- {_cell(line)}" for line in found]
    return lines


def _sweep_compile_section(result: RunResult) -> list[str]:
    """``--measure compile``: each point's compile (trace+lower+compile) median [95 % CI], and its slope
    (a grid: each cell's, no slope)."""
    from tuiperf.results import compile_time as ct

    sweep = result.sweep
    if sweep is None or not ct.has_repeats(result):
        return []
    slopes = ct.sweep_slopes(result)
    names = list(ct.sweep_medians(result))
    rows = []
    for index, point in enumerate(result.points):
        cells = []
        for name in names:
            variant = point.variant(name)
            total = variant.stages.total if variant is not None and variant.ok else None
            cells.append("—" if total is None else ct.median_text(total))
        label = _code(sweep.label(index)) if sweep.grid else _cell(point.params.get(sweep.parameter))
        rows.append([label, *cells])
    if not sweep.grid:
        slope_cells = [ct.slope_text(slopes.get(name), "—") for name in names]
        rows.append(["log-log slope", *slope_cells])
    swept = " × ".join(map(_code, sweep.parameters))
    lines = ["", f"### Compile time over {swept}", ""]
    lines += _table(["cell" if sweep.grid else _code(sweep.parameter), *map(_code, names)], rows)
    growth = ct.growth_sentence(sweep.parameter, slopes, ct.apart(result))
    lines += ["", "_Trace + lower + compile, median of repeats with JAX's caches cleared [95% CI]._"]
    lines += [f"_{_cell(growth)}._"] if growth else []
    sizes = ct.sweep_sizes(result)
    if sizes:
        size_slopes = ct.size_slopes(result)
        rows = [
            [
                _code(sweep.label(i)) if sweep.grid else _cell(point.params.get(sweep.parameter)),
                *["—" if n[i] is None else f"{n[i]:,}" for n in sizes.values()],
            ]
            for i, point in enumerate(result.points)
        ]
        if not sweep.grid:  # a grid's cells have no order to fit a slope over
            rows.append(["log-log slope", *[ct.slope_text(size_slopes.get(name), "—") for name in sizes]])
        lines += ["", "Compiled program size, HLO instructions:", ""]
        lines += _table(["cell" if sweep.grid else _code(sweep.parameter), *map(_code, sizes)], rows)
    remedies = ct.sweep_remedies(result)
    return lines + ([""] + [f"- {_cell(line)}" for line in remedies] if remedies else [])


def _compile_section(shown: RunResult, level: str) -> list[str]:
    """``--measure compile``: each stage's median [95 % CI], ratios, the persistent cache and the pay-off."""
    from tuiperf.results import compile_time as ct
    from tuiperf.results.model import REPEATED_STAGES

    rows = ct.stage_rows(shown)
    if not rows:
        return []
    lines = ["", f"{level} Compile time, repeated with caches cleared", ""]
    headers = ["variant", *[label for _, label in REPEATED_STAGES], "repeats"]
    lines += _table(headers, [[_code(r[0]), *r[1:]] for r in rows])
    first = ct.first_compile_line(shown)
    lines += ["", f"_Median [95% CI]. {_cell(first[:1].upper() + first[1:])}._"] if first else []
    base, found = ct.ratios(shown, shown.options.baseline)
    if found:
        lines += [
            "",
            f"Compile against {_code(base or '')}: "
            # as the report and the app give them (it read "1.007× (0.992 – 1.015)" beside "1.01× [0.992–1.02]")
            + "; ".join(f"{_code(r.name)} {ratio_with_interval(r.ratio, r.lo, r.hi)}" for r in found),
        ]
    sizes = ct.size_rows(shown)
    if sizes:
        lines += ["", "Program size, counted once per variant:", ""]
        headers = ["variant", "jaxpr equations", "HLO lowered", "HLO compiled", "while loops"]
        lines += _table(headers, [[_code(r[0]), *map(_cell, r[1:])] for r in sizes])
    # each list under its own title, as the report gives them (the cache's and pay-off's lines ran on
    # from the why's under no title)
    said = [
        ("", [*ct.gap_sentences(shown, base), *ct.remedies(shown)]),
        ("Persistent compilation cache, private folder, cold then warm:", ct.cache_lines(shown)),
        ("Does the longer compile pay off?", [p.sentence() for p in ct.payoffs(shown)]),
    ]
    for title, items in said:
        if items:
            lines += ["", title, ""] if title else [""]
            lines += [f"- {_cell(line)}" for line in items]
    return lines + _trace_profile_section(shown)


def _trace_profile_section(shown: RunResult) -> list[str]:
    """``--measure compile``: where one trace's Python time goes, a short table per variant (the
    functions with most own time, then the scenario file's own, marked ◆), and how to read it."""
    from tuiperf.results import compile_time as ct

    found = ct.trace_profile_rows(shown)
    if not found:
        return []
    lines = ["", "Tracing's Python profile, one trace, functions by own time:"]
    for name in dict.fromkeys(name for name, _ in found):
        rows = [
            [
                ("◆ " if row.kind == "scenario" else "") + _code(row.function),
                f"{row.ncalls:,.0f}",
                format_ns(row.tottime_us * 1e3),
                format_ns(row.cumtime_us * 1e3),
            ]
            for of, row in found
            if of == name
        ]
        lines += ["", f"{_code(name)}:", ""]
        lines += _table(["function", "calls", "own", "cum."], rows)
    note = ct.trace_profile_note(shown)
    if any(row.kind == "scenario" for _, row in found):
        note += "; cum.: with the functions it calls; ◆ the scenario file's own functions, by cumulative time"
    return [*lines, "", f"_{_cell(note[:1].upper() + note[1:])}._"]


def _grid_section(result: RunResult) -> list[str]:
    """A grid: per variant, rows the first parameter, columns the second, each cell the median and
    its ratio to the baseline there with the 95 % CI."""
    from tuiperf.results.grid import grid_tables, ratio_text, time_text

    lines: list[str] = []
    for table in grid_tables(result):
        (row_name, row_values), (column_name, column_values) = table.rows, table.columns
        versus = " (the baseline)" if table.is_baseline else f", ratio to {_code(table.baseline)} [95% CI]"
        if not table.measured:  # skipped or failed at every cell
            lines += ["", f"### {_code(table.variant)}: not measured at any cell"]
            continue
        lines += ["", f"### {_code(table.variant)}: time per call{versus}", ""]
        header = [f"{_code(row_name)} \\\\ {_code(column_name)}", *(_cell(v) for v in column_values)]
        rows = [
            [
                _code(f"{row_name}={value}"),
                *(_cell(time_text(c) if table.is_baseline else f"{time_text(c)} · {ratio_text(c)}") for c in cells),
            ]
            for value, cells in zip(row_values, table.cells, strict=True)
        ]
        lines += _table(header, rows)
    from tuiperf.results.crossover import sentences

    note = _cell(sentences(result)[0])
    lines += ["", f"_Does the extra fixed cost matter at your size? {note[:1].upper()}{note[1:]}._"]
    return lines + _sweep_compile_section(result)


def _environments_section(result: RunResult) -> list[str]:
    """A run over several Python environments: each one's Python and library versions, then each
    variant against the same variant in the reference environment, as sentences that name the
    versions that differ (what an upstream issue about an upgrade needs)."""
    if len(result.environments) < 2:
        return []
    lines = ["", "### Python environments (the first is the reference)", ""]
    rows = []
    for run in result.environments:
        env = run.env
        python = f"{_cell(env.python)} ({_code(env.executable or run.python)})" if env else _code(run.python)
        versions = [_cell((env.packages.get(name) if env else None) or "—") for name in COMPARED_PACKAGES]
        status = f"failed: {_cell(run.error)}" if run.error else "measured"
        rows.append([_code(run.name), python, *versions, status])
    lines += _table(["environment", "python", *COMPARED_PACKAGES, "status"], rows)
    points = result.points if result.sweep is not None else [result]
    for index, point in enumerate(points):
        found = changes(point)
        if not found:
            continue
        sweep = result.sweep
        where = f" at {_code(sweep.label(index))}" if sweep else ""
        heading = f"Each variant against {_code(result.environments[0].name)}{where} (ratio of medians, 95% CI, p)"
        lines += ["", heading, ""] + [f"- {_cell(row.sentence())}" for row in found]
    return lines


def _warnings(result: RunResult) -> list[str]:
    """The run's warnings (they already hold each variant's, prefixed with its name), then any
    variant warning a document from elsewhere did not copy up; each once."""
    notes = list(dict.fromkeys(result.warnings))
    for point in result.points or [result]:
        for v in point.variants:
            for w in v.warnings:
                own = f"{v.name}: {w}"
                if not w.startswith("differs from") and not any(n.endswith(own) for n in notes):
                    notes.append(own)
    return notes


def _ops_section(shown: RunResult, level: str, top: int = 8) -> list[str]:
    """Each variant's operations table (its top rows and what the trace does not attribute), and each
    variant's operations against the baseline's."""
    traced = [v for v in shown.variants if v.program.ops is not None and v.program.ops.rows]
    if not traced:
        return []
    lines = ["", f"{level} Operations inside compute (a profiler trace after sampling)"]
    header = ["operation", "kind", "shapes", "from", "runs", "time/call", "95% CI", "share"]
    for v in traced:
        table = v.program.ops
        assert table is not None
        rows = [*table.operations[:top], *(r for r in table.rows if r.kind == NOT_ATTRIBUTED)]
        cells = []
        for row in rows:
            interval = "—" if row.ci95_ns is None else f"{format_ns(row.ci95_ns[0])} – {format_ns(row.ci95_ns[1])}"
            what = ", ".join(x for x in (row.kind, row.detail) if x)
            source = row.source + (f" via {row.via}" if row.via else "")
            runs = "" if row.kind == NOT_ATTRIBUTED else f"{row.calls:g}"
            share = "—" if row.share is None else f"{row.share:.0%}"
            cells.append(
                [_code(row.op), _cell(what), _cell(row.shapes), _cell(source), runs, format_ns(row.ns), interval, share]
            )
        lines += ["", f"{_code(v.name)}: {_cell(ops_summary(table))}", "", *_table(header, cells)]
        if table.note:
            lines += ["", f"_{_cell(table.note)}_"]
    baseline, _ = against(shown)
    said = []
    for pair in side_by_side(shown, baseline):
        other = "" if pair.against == baseline else f" against {_code(pair.against)}"
        said.append(f"- {_code(pair.variant)}{other}: {_prose(pair.words)}")  # `copy.6` read \`copy.6\`
    if said and baseline is not None:
        lines += ["", f"Operations against {_code(baseline)}:", "", *said]
    return lines


def _point(shown: RunResult, level: str) -> list[str]:
    """One set of parameter values: time per call, ratios, breakdown and the guard's findings."""
    lines = ["", f"{level} Time per call", ""]
    rows = []
    for v in shown.variants:
        if v.sampling.stats is None:
            rows.append(
                [_code(v.name), _cell(v.status + (f": {v.failure.error}" if v.failure else "")), "", "", "", ""]
            )
            continue
        s = v.sampling.stats
        ci = f"{format_ns(s.ci95_median_ns[0])} – {format_ns(s.ci95_median_ns[1])}"
        spread = f"{format_ns(s.p10_ns)} – {format_ns(s.p90_ns)}"
        recompiled = f" ({v.recompiles.recompiles} recompiles while timed)" if v.recompiles.recompiles else ""
        rows.append([_code(v.name), format_ns(s.median_ns) + recompiled, ci, spread, str(s.n), _cell(v.status)])
    lines += _table(["variant", "median", "95% CI of median", "p10 – p90", "n", "status"], rows)
    covered = covers.line(shown)
    if covered:
        lines += ["", _prose(covered)]

    measured = [v.name for v in shown.measured]
    if len(measured) > 1:
        baseline, against_base = against(shown)
        lines += ["", f"{level} Ratios to {_code(baseline)}", ""]
        rows = [
            [
                _code(name),
                f"{sig3(c.ratio)}×",  # as the report: ".3f" read 0.021 – 0.021 for [0.0212–0.0214]
                f"{sig3(c.ci95[0])} – {sig3(c.ci95[1])}",
                p_cell(c.p_value, comparison_finding(shown, c)),
            ]
            for name, c in against_base.items()
        ]
        lines += _table(["variant", "median / baseline", "95% CI", "p (Mann-Whitney)"], rows)
        found = verdicts(shown, baseline)
        if found:
            lines += ["", f"{level} Why, against {_code(baseline)}", ""] + [
                f"- {_prose(sentence)}" for _, sentence in found
            ]
    if shown.tried:  # apart from the user's variants
        lines += ["", f"{level} Remedies tuiperf tried (not your variants; the same rounds as the original)", ""]
        headers = ["variant", "remedy tried", "median", "remedied", "remedied / original [95% CI]", "outputs"]
        lines += _table(headers, [[_code(row[0]), *(_cell(c) for c in row[1:])] for row in tried.rows(shown)])

    broken_down = [v for v in shown.variants if v.breakdown is not None]
    if broken_down:
        lines += ["", f"{level} Where one call's time goes (differences of measured paths)", ""]
        rows = []
        for v in broken_down:
            b = v.breakdown
            assert b is not None
            cells = [stage_cell(b.stages.get(key)) for key, _, _ in BREAKDOWN_STAGES]
            verdict = "reliable" if b.reliable else f"unreliable: {_cell(b.reason)}"
            aa = "—" if b.resolution_ns is None else f"±{format_ns(b.resolution_ns)}"
            rows.append([_code(v.name), *cells, format_ns(b.residual_ns), aa, verdict])
        lines += _table(["variant", *[label for _, label, _ in BREAKDOWN_STAGES], "residual", "A/A", ""], rows)
        lines += [
            "",
            f"_{BY_CONSTRUCTION_NOTE}. `< x`: below what the method resolves at this size (the stage's CI; for "
            "framework, jit dispatch and outputs also the A/A pair, two compiles of one program)._",
        ]
    lines += _compile_section(shown, level)
    lines += _memory_section(shown, level)
    lines += _ops_section(shown, level)

    eq = shown.equivalence
    lines += ["", f"{level} Equivalence guard", ""]
    if eq.mismatches:
        lines += [
            f"- **{_code(m.a)} differs from {_code(m.b)}** in {_cell(m.quantity)}: {_cell(m.detail)}"
            for m in eq.mismatches
        ]
    elif eq.checked:
        # a program with a loop has its FLOPs set aside by the guard (results.model.Program.counts_work)
        looped = any(not v.program.counts_work for v in shown.variants if v.name in eq.checked)
        same = (
            "outputs and parameter counts" if looped else "outputs, FLOPs and parameter counts"
        )  # a loop's FLOPs: not compared
        # the reference is among the checked: "3 variants … as lax.scan" counted lax.scan against itself
        others = [name for name in eq.checked if name != eq.reference]
        verb = "computes" if len(others) == 1 else "compute"
        lines += [f"{counted(len(others), 'other variant')} {verb} the same {same} as {_code(eq.reference)}."]
    else:
        lines += ["Not checked (fewer than two equivalent variants measured)."]
    lines += [f"- {_prose(note)} (a note: the values agree)" for note in eq.notes]
    return lines
