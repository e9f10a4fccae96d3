"""The text report of a result, for terminals, pipes and files (the CLI's output; no Textual).

Numbers are never cut: a table that does not fit the width is printed as stacked ``label value``
pairs that wrap between pairs, never inside one; long lines wrap with a hanging indent and no line
ends in a space (:mod:`tuiperf.cli.wrap`), so a piped report pastes as it printed. Everything that
comes from a result file (names, titles, errors, warnings) is shown as inert text
(:func:`tuiperf.common.text.inert`), never as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console, Group
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from tuiperf.cli.wrap import Flow, Hanging, print_trimmed
from tuiperf.common.text import inert, one_line
from tuiperf.common.units import format_bytes, format_ns, ratio_with_interval
from tuiperf.results import covers, tried
from tuiperf.results.environments import COMPARED_PACKAGES, changes, compile_changes, pairs
from tuiperf.results.evidence import first_compile_note
from tuiperf.results.findings import comparison_finding, p_cell
from tuiperf.results.model import (
    BREAKDOWN_STAGES,
    COMPILE_STAGES,
    NOT_ATTRIBUTED,
    PHASES,
    Environment,
    OpRow,
    RunResult,
    Sweep,
    VariantResult,
)
from tuiperf.results.ops import across_sweep, ops_summary, side_by_side
from tuiperf.results.ratios import against
from tuiperf.results.reconcile import Resampled, reconcile
from tuiperf.results.verdict import BY_CONSTRUCTION_NOTE, gap_words, stage_cell, verdicts

INDENT = 4


def _ns(value: float | None) -> str:
    return "–" if value is None else format_ns(value)


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f} ms"


# A table cell: text, or a list (parameters, medians) that is joined by ", " in a table and wraps
# between its items when the rows are stacked.
Cell = str | list[str]


def grid(
    title: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    width: int,
    console: Console,
    name_prefix: str = "",
) -> Any:
    """A table if it fits ``width``; otherwise each row as its name (after ``name_prefix``: "run 12")
    and then wrapped ``header value`` pairs. The title is a line of its own (a table's title would
    wrap at the table's width, with no indent)."""
    table = Table(
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        show_edge=False,
        collapse_padding=True,
    )
    for i, header in enumerate(headers):
        table.add_column(Text(header), justify="left" if i == 0 else "right", no_wrap=True)
    for row in rows:
        table.add_row(*[Text(cell if isinstance(cell, str) else ", ".join(cell)) for cell in row])
    natural = Measurement.get(console, console.options.update_width(100_000), table).maximum
    if natural <= width:
        return Group(Hanging(title, style="bold"), table)
    lines: list[Any] = [Hanging(title, style="bold")]
    for row in rows:
        name = ", ".join(row[0]) if isinstance(row[0], list) else row[0]
        lines.append(Hanging(name_prefix + name, style="bold"))
        cells = list(zip(headers[1:], row[1:]))
        pairs = [f"{header} {cell}" for header, cell in cells if isinstance(cell, str) and cell not in ("", "–")]
        if pairs:
            lines.append(_pairs(pairs))
        for header, cell in cells:
            if isinstance(cell, list) and cell:
                lines.append(Flow(cell, lead=f"{' ' * INDENT}{header} ", sep=", ", indent=INDENT + 2))
    return Group(*lines)


def _pairs(pairs: Sequence[str]) -> Flow:
    """``label value`` pairs, indented, several to a line, a line breaking only between pairs."""
    return Flow(pairs, lead=" " * INDENT, sep="   ", indent=INDENT)


def swept_values(result: RunResult) -> list[tuple[str, list[Any]]]:
    """Each swept parameter and its values (a grid's two)."""
    sweep = result.sweep
    if sweep is None:
        return []
    return [(a.parameter, list(a.values)) for a in sweep.grid] or [(sweep.parameter, list(sweep.values))]


def header(result: RunResult) -> Group:
    env = result.env
    several = len(result.environments) > 1  # then each environment's versions are listed below
    packages = env.packages if env and not several else {}
    params = dict(result.params)
    for parameter, values in swept_values(result):
        params[parameter] = ", ".join(one_line(v) for v in values) + " (swept)"
    assignments = [f"{one_line(k)}={one_line(v)}" for k, v in params.items()] or ["none"]
    facts = [
        f"device {one_line(result.device.id)} ({one_line(env.device_kind if env else result.device.kind or '?')})",
        f"{result.device.count} devices" if result.device.count > 1 else "",
        f"{one_line(result.options.dispatch)} dispatch",
        f"{one_line(result.options.interleave)} interleave",
        *[f"{name} {one_line(packages.get(name))}" for name in ("jax", "equinox", "flax") if packages.get(name)],
        f"python {one_line(env.python)}" if env and not several else "",
    ]
    if result.options.processes > 1:
        facts.append(f"{result.options.processes} processes")
    if result.cluster is not None:
        c = result.cluster
        facts.append(
            f"cluster of {c.processes} processes × {c.devices_per_process} devices at {one_line(c.coordinator)}"
            + (f", {c.samples_per_variant} samples each" if c.samples_per_variant else "")
        )
    parts: list[Any] = [
        Hanging(one_line(result.scenario.title or result.scenario.id), style="bold"),
        Flow(assignments, lead="params: ", sep=", ", indent=len("params: ")),
        Flow([f for f in facts if f], sep=" · ", style="dim"),
    ]
    parts.extend(machine_line(env))
    if result.partial:
        parts.append(Hanging(f"PARTIAL RESULT: {inert(result.error or 'the run was stopped')}", style="bold yellow"))
    return Group(*parts, Text(""))


def machine_line(env: Environment | None) -> list[Any]:
    """The machine the run measured on and the scenario folder's commit (results stored before they
    were recorded show nothing here)."""
    if env is None or (env.machine is None and env.source is None):
        return []
    facts = []
    if env.source is not None:
        src = env.source
        where = ", ".join(x for x in (one_line(src.branch), "dirty" if src.dirty else "") if x)
        facts.append(f"commit {one_line(src.commit[:12])}" + (f" ({where})" if where else ""))
    m = env.machine
    if m is not None:
        facts.append(f"{m.cpu_count or '?'} × {one_line(m.cpu_model or 'CPU')}")
        if m.governor:
            facts.append(f"governor {one_line(m.governor)}")
        if m.boost is not None:
            facts.append("boost on" if m.boost else "boost off")
        if m.load_before and m.load_after:
            facts.append(f"load {m.load_before[0]:.2f} → {m.load_after[0]:.2f}")
        if m.others_cores is not None:
            facts.append(f"others used {m.others_cores:.2f} cores")
    return [Flow(facts, lead="machine: ", sep=" · ", indent=len("machine: "), style="dim")]


def shadowing_copy(path: str) -> list[Any]:
    """A line when the file that ran is a user's copy in place of a built-in of the same name: whoever
    saved it (an editor, a served explorer) changed what ``tuiperf run ID`` runs. Said by ``run`` as it
    ends, on this machine: a stored result's path says nothing of the folders where it is shown."""
    from tuiperf.catalog.folders import builtin_dir, is_builtin

    if not path or is_builtin(path) or not (builtin_dir() / Path(path).name).is_file():
        return []
    return [Hanging(f"ran your copy {one_line(path)}, which replaces the built-in of that name", style="yellow")]


def environments(result: RunResult) -> list[Any]:
    """Each Python environment of a run over several (the reference first), and each variant's ratio
    there against the reference environment, with the versions that differ."""
    if len(result.environments) < 2:
        return []
    lines: list[Any] = [Hanging("environments (the first is the reference)", style="bold")]
    for run in result.environments:
        env = run.env
        facts = [f"python {env.python}" if env else "", one_line(env.executable or run.python) if env else run.python]
        if env is not None:
            facts += [f"{name} {env.packages[name]}" for name in COMPARED_PACKAGES if env.packages.get(name)]
        lines.append(Hanging(one_line(run.name), style="bold"))
        lines.append(_pairs([one_line(f) for f in facts if f]))
        if run.error:
            lines.append(Hanging(f"⚠ {inert(run.error)}", indent=INDENT, style="yellow"))
    rows = changes(result)
    for other in result.environments[1:]:
        mine = [row for row in rows if row.environment == other.name]
        if not mine:
            continue
        title = f"{one_line(other.name)} against {one_line(result.environments[0].name)}: {inert(mine[0].versions)}"
        lines.append(Hanging(title, style="bold"))
        lines.extend(Hanging(f"• {inert(row.sentence(with_versions=False))}", indent=2) for row in mine)
    for name, change in compile_changes(result):
        lo, hi = change.ci95
        verdict = "within noise" if lo <= 1 <= hi else "undecided: one process each"
        lines.append(
            Hanging(
                f"• {one_line(change.variant)} compile (trace+lower+compile) in {one_line(name)}: "
                f"{format_ns(change.new_ms * 1e6)} against {format_ns(change.old_ms * 1e6)}, {change.ratio:.3f}× "
                f"[95 % CI {lo:.3f}–{hi:.3f}, {verdict}]",
                indent=2,
            )
        )
    lines.append(Text(""))
    return lines


def latency(result: RunResult, width: int, console: Console, where: str = "") -> list[Any]:
    """Medians with their CIs and ratios to the baseline; then the spread; failures and skips below."""
    baseline, ratios = against(result)
    main, spread = [], []
    for v in result.measured:
        s = v.sampling.stats
        assert s is not None
        lo, hi = s.ci95_median_ns
        row = ratios.get(v.name)
        ratio = ratio_with_interval(row.ratio, *row.ci95) if row else ("baseline" if v.name == baseline else "–")
        main.append(
            [
                one_line(v.name),
                format_ns(s.median_ns),
                f"±{100 * (hi - lo) / 2 / s.median_ns:.1f}%" if s.median_ns else "–",
                f"{s.n:,}",
                ratio,
                p_cell(row.p_value, comparison_finding(result, row)) if row else "–",
            ]
        )
        clusters = str(max(len(v.sampling.modes), 1))  # where they are is in the warnings
        spread.append(
            [
                one_line(v.name),
                format_ns(s.p10_ns),
                format_ns(s.p90_ns),
                format_ns(s.iqr_ns),
                f"{s.outliers:,}",
                clusters,
            ]
        )
    parts: list[Any] = []
    if main:
        headers = ["variant", "median", "±CI95", "n", f"× {one_line(baseline, 24)} [95% CI]", "p"]
        parts.append(grid(f"per-call latency{where}", headers, main, width, console))
        covered = covers.line(result)
        if covered:
            parts.append(Hanging(covered, indent=2, style="dim"))
        parts.append(Text(""))
        parts.append(
            grid(f"spread{where}", ["variant", "p10", "p90", "IQR", "outliers", "clusters"], spread, width, console)
        )
    for v in result.variants:
        if v.status == "failed":
            failure = v.failure
            failed_in = failure.phase if failure is not None else None
            phase = f" while {one_line(PHASES.get(failed_in or '', failed_in))}" if failed_in else ""
            error = failure.error if failure is not None else None
            parts.append(Hanging(f"✗ {one_line(v.name)} failed{phase}: {inert(error)}", indent=2, style="red"))
        elif v.skipped:
            parts.append(
                Hanging(
                    f"– {one_line(v.name)} skipped: {inert('; '.join(v.notes) or 'no reason given')}",
                    indent=2,
                    style="yellow",
                )
            )
    return parts


LOOP_NOTE = "↻ the program holds a loop, whose body XLA counts once: its FLOPs are not its work"


def stages(result: RunResult, width: int, console: Console, where: str = "") -> Any:
    rows = [
        [
            one_line(v.name),
            *[_ms(getattr(v.stages, key)) for key, _ in COMPILE_STAGES],
            "–" if v.program.flops is None else f"{v.program.flops:.3g}" + ("" if v.program.counts_work else " ↻"),
            "–" if v.program.param_count is None else f"{v.program.param_count:,}",
        ]
        for v in result.variants
        if v.ok
    ]
    headers = ["variant", *[label for _, label in COMPILE_STAGES], "FLOPs", "params"]
    table = grid(f"one-time stages and size{where}", headers, rows, width, console)
    notes = [inert(first_compile_note(result))]
    if any(not v.program.counts_work for v in result.variants if v.ok):
        notes.append(LOOP_NOTE)
    said = [Hanging(note, indent=2, style="dim") for note in notes if note]
    return Group(table, *said) if said else table


def compile_time(result: RunResult, width: int, console: Console, where: str = "") -> list[Any]:
    """``--measure compile``: each stage's median [95 % CI] over its repeats, the ratios of the total
    compile to the baseline's, the process's first-compile costs said apart, the persistent cache and
    where a longer compile pays off."""
    from tuiperf.results import compile_time as ct
    from tuiperf.results.model import REPEATED_STAGES

    rows = ct.stage_rows(result)
    if not rows:
        return []
    headers = ["variant", *[label for _, label in REPEATED_STAGES], "repeats"]
    title = f"compile time, repeated with caches cleared: median [95 % CI]{where}"
    parts: list[Any] = [Text(""), grid(title, headers, rows, width, console)]
    stopped = next((v.stages.stopped for v in result.variants if v.stages.stopped), "")
    notes = [f"repeats ended: {stopped}" if stopped else "", ct.first_compile_line(result)]
    parts.extend(Hanging(inert(note), indent=2, style="dim") for note in notes if note)
    parts.extend(program_sizes(result, width, console))
    base, found = ct.ratios(result, result.options.baseline)
    if found:
        parts.append(Hanging(f"compile (trace+lower+compile) against {one_line(base or '')} [95 % CI]", style="bold"))
        parts.append(_pairs([f"{one_line(r.name)} {ratio_with_interval(r.ratio, r.lo, r.hi)}" for r in found]))
        parts.extend(Hanging(f"· {inert(line)}", indent=2) for line in ct.gap_sentences(result, base))
    remedies = ct.remedies(result)
    if remedies:
        parts.append(Hanging("what the evidence names for compile time", style="bold"))
        parts.extend(Hanging(f"· {inert(line)}", indent=2) for line in remedies)
    parts.extend(trace_profiles(result, width, console))
    cache = ct.cache_lines(result)
    if cache:
        parts.append(Hanging("persistent compilation cache, private folder, cold then warm", style="bold"))
        parts.extend(Hanging(f"· {inert(line)}", indent=2) for line in cache)
    paid = ct.payoffs(result)
    if paid:
        parts.append(Hanging("does the longer compile pay off?", style="bold"))
        parts.extend(Hanging(f"· {inert(p.sentence())}", indent=2) for p in paid)
    return parts


def program_sizes(result: RunResult, width: int, console: Console) -> list[Any]:
    """``--measure compile``: each variant's program size as traced, lowered and compiled, and its loops."""
    from tuiperf.results import compile_time as ct

    rows = ct.size_rows(result)
    if not rows:
        return []
    headers = ["variant", "jaxpr equations", "HLO lowered", "HLO compiled", "while loops"]
    table = grid(
        "program size, counted once per variant", headers, [[one_line(r[0]), *r[1:]] for r in rows], width, console
    )
    note = (
        "jaxpr equations include those of nested jaxprs (scan, while and pjit bodies); HLO: instructions of "
        "every computation, fusions' included"
    )
    return [Text(""), table, Hanging(note, indent=2, style="dim")]


def trace_profiles(result: RunResult, width: int, console: Console) -> list[Any]:
    """``--measure compile``: where one trace's Python time goes, a table per variant: the functions with
    most own time, then the scenario file's own functions (marked ◆)."""
    from tuiperf.results import compile_time as ct

    found = ct.trace_profile_rows(result)
    if not found:
        return []
    parts: list[Any] = [Text(""), Hanging("tracing's Python profile: one trace, functions by own time", style="bold")]
    headers = ["function", "calls", "own", "cum."]
    for name in dict.fromkeys(name for name, _ in found):
        rows: list[list[Cell]] = [
            [
                ("◆ " if row.kind == "scenario" else "") + one_line(row.function),
                f"{row.ncalls:,.0f}",
                format_ns(row.tottime_us * 1e3),
                format_ns(row.cumtime_us * 1e3),
            ]
            for of, row in found
            if of == name
        ]
        parts.append(grid(one_line(name), headers, rows, width, console))
    notes = [ct.trace_profile_note(result)]
    if any(row.kind == "scenario" for _, row in found):
        notes.append("cum.: with the functions it calls; ◆ the scenario file's own functions, by cumulative time")
    return [*parts, *(Hanging(inert(note), indent=2, style="dim") for note in notes)]


def sweep_compile_grid(result: RunResult, width: int, console: Console) -> list[Any]:
    """A sweep with ``--measure compile``: each variant's compile (trace+lower+compile) median at every
    point, its log-log slope, and how it grows."""
    from tuiperf.results import compile_time as ct

    sweep = result.sweep
    if sweep is None or not ct.has_repeats(result):
        return []
    if sweep.grid:  # each cell's median; no slope over two parameters
        headers = ["variant", *[one_line(sweep.label(i)) for i in range(sweep.cell_count)]]
        rows = [
            [one_line(name), *["–" if m is None else ct.format_ms(m) for m in medians]]
            for name, medians in ct.sweep_medians(result).items()
        ]
        title = f"{one_line(sweep.title())}: compile (trace+lower+compile), median of repeats"
        parts: list[Any] = [grid(title, headers, rows, width, console)]
        sizes = ct.sweep_sizes(result)
        if sizes:
            rows = [[one_line(name), *[_count(n) for n in counts]] for name, counts in sizes.items()]
            title = f"{one_line(sweep.title())}: compiled program size, HLO instructions"
            parts.extend([Text(""), grid(title, headers, rows, width, console)])
        return [*parts, Text("")]
    slopes = ct.sweep_slopes(result)
    headers = ["variant", *[f"{one_line(sweep.parameter)}={one_line(v)}" for v in sweep.values], "log-log slope"]
    rows = [
        [
            one_line(name),
            *["–" if m is None else ct.format_ms(m) for m in medians],
            ct.slope_text(slopes.get(name)),
        ]
        for name, medians in ct.sweep_medians(result).items()
    ]
    title = f"sweep over {one_line(sweep.parameter)}: compile (trace+lower+compile), median of repeats"
    parts = [grid(title, headers, rows, width, console)]
    growth = ct.growth_sentence(sweep.parameter, slopes, ct.apart(result))
    if growth:
        parts.append(Hanging(inert(growth), indent=2))
    sizes, size_slopes = ct.sweep_sizes(result), ct.size_slopes(result)
    if sizes:
        rows = [
            [
                one_line(name),
                *["–" if n is None else f"{n:,}" for n in counts],
                ct.slope_text(size_slopes.get(name)),
            ]
            for name, counts in sizes.items()
        ]
        title = f"sweep over {one_line(sweep.parameter)}: compiled program size, HLO instructions"
        parts.extend([Text(""), grid(title, headers, rows, width, console)])
    parts.extend(Hanging(f"· {inert(line)}", indent=2) for line in ct.sweep_remedies(result))
    return [*parts, Text("")]


def _count(n: int | None) -> str:
    return "–" if n is None else f"{n:,}"


def memory(result: RunResult, width: int, console: Console, where: str = "") -> list[Any]:
    """XLA's memory figures per variant (and how each differs from the first), then the process's."""
    from tuiperf.results.memory import memory_rows, process_line

    rows = memory_rows(result)
    parts: list[Any] = []
    if rows:
        headers = ["variant", "arguments", "outputs", "temporaries", "donated", "code", "total", "vs first"]
        parts.extend(
            [Text(""), grid(f"memory per call, as XLA sizes the program{where}", headers, rows, width, console)]
        )
    line = process_line(result)
    if line:
        parts.append(Hanging(line))
    return parts


def breakdown(result: RunResult, width: int, console: Console, where: str = "") -> list[Any]:
    measured = [v for v in result.variants if v.breakdown is not None]
    if not measured:
        return []
    # The unit follows the calls that were split: a recompiling variant (seconds a call, no stage)
    # made it "s" and every other row a column of zeros.
    split = [v.breakdown.call_ns for v in measured if v.breakdown and any(v.breakdown.stages.values())]
    scale, unit = _unit(max(split or [v.breakdown.call_ns for v in measured if v.breakdown]))
    rows: list[list[str]] = []
    reasons: list[str] = []
    widest = {key: 0.0 for key, _, _ in BREAKDOWN_STAGES}
    constructed = False
    for v in measured:
        b = v.breakdown
        assert b is not None
        cells = []
        for key, _, _ in BREAKDOWN_STAGES:
            stage = b.stages.get(key)
            cells.append(stage_cell(stage, lambda ns: _in_unit(ns, scale)))
            constructed = constructed or (stage is not None and stage.by_construction)
            if stage is not None and stage.ci95_ns is not None:
                widest[key] = max(widest[key], (stage.ci95_ns[1] - stage.ci95_ns[0]) / 2)
        name = one_line(v.name)
        if not b.reliable:
            reasons.append(f"({len(reasons) + 1}) {name}: not a reliable split: {inert(b.reason)}")
            name += f" ({len(reasons)})"
        aa = "–" if b.resolution_ns is None else f"±{_in_unit(b.resolution_ns, scale)}"
        rows.append([name, *cells, _in_unit(b.residual_ns, scale), aa])
    rows.append(["± widest 95% CI", *[f"±{_in_unit(widest[key], scale)}" for key, _, _ in BREAKDOWN_STAGES], "", ""])
    headers = ["variant", *[label for _, label, _ in BREAKDOWN_STAGES], "residual", "A/A"]
    title = f"where one call's time goes, {unit} per call (differences of measured paths){where}"
    parts: list[Any] = [Text(""), grid(title, headers, rows, width, console)]
    notes = [BY_CONSTRUCTION_NOTE] if constructed else []
    notes.append(
        "< x: below what the method resolves at this size (the stage's CI, and for framework, jit dispatch and "
        "outputs the A/A pair: two compiles of one program differ by up to that much)"
    )
    parts.extend(Hanging(note, style="dim") for note in notes)
    parts.extend(Hanging(reason, style="yellow") for reason in reasons)
    parts.extend(gaps(result))
    return parts


def operations(result: RunResult, width: int, console: Console, where: str = "", top: int = 6) -> list[Any]:
    """Each variant's operations table (its top rows and what the trace does not attribute), then
    each variant's operations against the baseline's."""
    traced = [v for v in result.variants if v.program.ops is not None]
    if not traced:
        return []
    parts: list[Any] = []
    for v in traced:
        table = v.program.ops
        assert table is not None
        parts.append(Text(""))
        if not table.rows:
            why_none = inert(table.note or "none traced")
            parts.append(Hanging(f"operations of {one_line(v.name)}: {why_none}", style="dim"))
            continue
        shown = table.operations[:top]
        rest = table.operations[top:]
        rows = [ops_cells(row) for row in shown]
        if rest:
            rows.append([f"{len(rest)} more", "", "", "", "", _ns(sum(r.ns for r in rest)), "", _share(rest)])
        rows.extend(ops_cells(row) for row in table.rows if row.kind == NOT_ATTRIBUTED)
        title = f"operations of {one_line(v.name)}{where}: {inert(ops_summary(table))}"
        headers = ["operation", "kind", "shapes", "from", "runs", "time/call", "95% CI", "share"]
        parts.append(grid(title, headers, rows, width, console))
        if table.note:
            parts.append(Hanging(inert(table.note), style="dim"))
    baseline_name, _ = against(result)
    lines: list[Any] = []
    for pair in side_by_side(result, baseline_name):
        other = "" if pair.against == baseline_name else f" against {one_line(pair.against)}"
        lines.append(Hanging(f"• {one_line(pair.variant)}{other}: {inert(pair.words)}"))
    if lines and baseline_name is not None:
        parts.extend([Text(""), Hanging(f"operations against {one_line(baseline_name)}", style="bold"), *lines])
    return parts


def operations_across(result: RunResult) -> list[Any]:
    """Each variant's operations at a sweep's last point against its first."""
    pairs = across_sweep(result)
    if not pairs or result.sweep is None:
        return []
    title = (
        f"operations from {one_line(result.sweep.label(0))} to {one_line(result.sweep.label(len(result.points) - 1))}"
    )
    lines = [Hanging(f"• {one_line(p.variant)}: {inert(p.words)}") for p in pairs]
    return [Text(""), Hanging(title, style="bold"), *lines]


def _share(rows: Sequence[OpRow]) -> str:
    shares = [r.share for r in rows if r.share is not None]
    return f"{sum(shares):.0%}" if shares else "–"


def ops_cells(row: OpRow) -> list[str]:
    what = ", ".join(x for x in (row.kind, row.detail) if x)
    where_from = row.source + (f" via {row.via}" if row.via else "")
    interval = "–" if row.ci95_ns is None else f"±{format_ns((row.ci95_ns[1] - row.ci95_ns[0]) / 2)}"
    runs = "" if row.kind == NOT_ATTRIBUTED else f"{row.calls:g}"
    share = "–" if row.share is None else f"{row.share:.0%}"
    texts = [one_line(x) for x in (row.op, what, row.shapes, where_from)]
    return [*texts, runs, _ns(row.ns), interval, share]


def gaps(result: RunResult) -> list[Any]:
    """Each variant's gap to what it is read against (the baseline; in a run over several environments,
    the same variant in the reference environment), split by breakdown stage (the stages beyond noise)."""
    baseline_name, _ = against(result)
    if baseline_name is None:
        return []
    lines: list[Any] = []
    resampled: Resampled = {}  # each variant resampled once for all its pairs
    for name, against_name in pairs(result, baseline_name):
        v, base = result.variant(name), result.variant(against_name)
        if v is None or base is None or v.breakdown is None or base.breakdown is None:
            continue
        split = reconcile(v, base, resampled)
        if split is None or not split.gap_ns:
            continue
        lines.append(
            Hanging(f"{one_line(v.name)} − {one_line(base.name)} = {_signed(split.gap_ns)}: {inert(gap_words(split))}")
        )
    if lines:
        title = (
            "each gap, by stage" if len(result.environments) > 1 else f"the gap to {one_line(baseline_name)}, by stage"
        )
        lines[:0] = [Text(""), Hanging(title, style="bold")]
    return lines


def why(result: RunResult) -> list[Text]:
    """Why each variant is slower or faster than the baseline, one sentence each (core.verdict)."""
    baseline, _ = against(result)
    found = verdicts(result, baseline)
    if not found:
        return []
    return [
        Text(""),
        Text(f"why, against {one_line(baseline)}", style="bold"),
        *[Text(f"• {inert(sentence)}") for _, sentence in found],
    ]


def tried_table(result: RunResult, width: int, console: Console) -> list[Any]:
    """The remedies tuiperf tried itself, apart from the user's variants: each beside its original."""
    found = tried.rows(result)
    if not found:
        return []
    headers = ["variant", "remedy tried", "median", "remedied", "remedied / original [95% CI]", "outputs"]
    title = "remedies tuiperf tried (not your variants: measured in the same rounds as the original)"
    return [Text(""), grid(title, headers, [[one_line(cell) for cell in row] for row in found], width, console)]


def guard_notes(result: RunResult) -> list[Text]:
    return [Text(f"ℹ {inert(note)}", style="dim") for note in result.equivalence.notes]


def _in_unit(ns: float, scale: float) -> str:
    """``ns`` in the table's unit, 3 significant digits, nothing finer than 0.01 of the unit."""
    value = round(ns / scale, 2)
    return "0" if value == 0 else f"{value:.3g}"


def _signed(ns: float) -> str:
    return ("+" if ns > 0 else "−" if ns < 0 else "") + format_ns(abs(ns))


def _unit(ns: float) -> tuple[float, str]:
    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
        if ns >= scale:
            return scale, unit
    return 1.0, "ns"


def processes(result: RunResult) -> list[Any]:
    rows = [v for v in result.measured if len(v.sampling.process_medians_ns) > 1]
    if not rows:
        return []
    title = f"between {result.options.processes} measuring processes (median of each)"
    if result.cluster is not None:
        c = result.cluster
        title = (
            f"between the {c.processes} processes of the cluster ({c.devices_per_process} devices each, in lockstep; "
            f"the figures above are process {c.samples_of}'s): median of each"
        )
    lines: list[Any] = [Hanging(title, style="bold")]
    for v in rows:
        medians = v.sampling.process_medians_ns
        spread = max(medians) / min(medians) - 1 if min(medians) > 0 else float("inf")
        pairs = [", ".join(format_ns(m) for m in medians), f"slowest {100 * spread:.1f} % above fastest"]
        if v.sampling.slowest_share is not None:  # a cluster's: how long the slowest process keeps the others waiting
            pairs.append(f"the slowest process holds the others back {100 * v.sampling.slowest_share:.1f} % of a call")
            counts = ", ".join(f"process {i} in {n}" for i, n in enumerate(v.sampling.slowest_calls))
            pairs.append(f"slowest: {counts} calls")
        lines.append(Hanging(one_line(v.name), style="bold"))
        lines.append(_pairs(pairs))
    return lines


def sweep_grid(sweep: Sweep, width: int, console: Console) -> Any:
    from tuiperf.results import compile_time as ct

    headers = ["variant", *[f"{one_line(sweep.parameter)}={one_line(v)}" for v in sweep.values], "log-log slope"]
    rows = [
        [
            one_line(name),
            *[_ns(m) for m in medians],
            ct.slope_text(sweep.slopes.get(name)),  # a flat variant read "-0.00"
        ]
        for name, medians in sweep.medians_ns.items()
    ]
    return grid(f"sweep over {one_line(sweep.parameter)}: median per call", headers, rows, width, console)


def grid_of_cells(result: RunResult, width: int, console: Console) -> list[Any]:
    """A grid (two ``--sweep``): a table per variant, rows the first parameter, columns the second,
    each cell its time per call over its ratio to the baseline there [95 % CI]."""
    from tuiperf.results.grid import grid_tables, ratio_text, time_text

    parts: list[Any] = []
    for table in grid_tables(result):
        (row_name, row_values), (column_name, column_values) = table.rows, table.columns
        against = "" if table.is_baseline else f" · ratio to {one_line(table.baseline)} [95 % CI]"
        title = f"{one_line(table.variant)}: time per call{against}, {one_line(row_name)} × {one_line(column_name)}"
        if table.is_baseline:
            title += " (the baseline)"
        if not table.measured:  # skipped or failed at every cell: why is said with the failures below
            parts.extend([Hanging(f"{one_line(table.variant)}: not measured at any cell", style="bold"), Text("")])
            continue
        headers = [f"{one_line(row_name)} \\ {one_line(column_name)}", *(one_line(v) for v in column_values)]
        labels = [f"{one_line(row_name)}={one_line(v)}" for v in row_values]
        two_lines = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True)
        for i, text in enumerate(headers):
            two_lines.add_column(Text(text), justify="left" if i == 0 else "right", no_wrap=True)
        rows: list[list[Cell]] = []
        for label, cells in zip(labels, table.cells, strict=True):
            texts = [time_text(c) if table.is_baseline else f"{time_text(c)}\n{ratio_text(c)}" for c in cells]
            two_lines.add_row(Text(label), *(Text(t) for t in texts))
            rows.append([label, *(t.replace("\n", " · ") for t in texts)])
        natural = Measurement.get(console, console.options.update_width(100_000), two_lines).maximum
        if natural <= width:
            parts.extend([Group(Hanging(title, style="bold"), two_lines), Text("")])
        else:  # too wide: each row's cells as ``column value`` pairs (said as such)
            headers = ["", *(f"{one_line(column_name)}={one_line(v)}" for v in column_values)]
            parts.extend(
                [grid(title + " (one row per line: too wide for a table)", headers, rows, 0, console), Text("")]
            )
    return parts


def sweep_memory_grid(sweep: Sweep, width: int, console: Console) -> list[Any]:
    """Each variant's compiled program memory at each point (XLA's sizes: arguments, outputs, temporaries)."""
    if not sweep.memory_bytes:
        return []
    if len(sweep.grid) == 2:  # a grid: a table per variant, rows × columns as its times are
        rows_axis, columns_axis = sweep.grid
        parts: list[Any] = []
        for name, series in sweep.memory_bytes.items():
            headers = [
                f"{one_line(rows_axis.parameter)} \\ {one_line(columns_axis.parameter)}",
                *(one_line(v) for v in columns_axis.values),
            ]
            count = len(columns_axis.values)
            rows: list[list[Cell]] = [
                [
                    f"{one_line(rows_axis.parameter)}={one_line(value)}",
                    *(
                        format_bytes(series[r * count + c]) if r * count + c < len(series) else "–"
                        for c in range(count)
                    ),
                ]
                for r, value in enumerate(rows_axis.values)
            ]
            title = f"{one_line(name)}: program memory (per device), as XLA sizes it"
            parts.extend([grid(title, headers, rows, width, console), Text("")])
        return parts
    headers = ["variant", *[one_line(sweep.label(i)) for i in range(len(sweep.values))]]
    rows = [[one_line(name), *[format_bytes(b) for b in series]] for name, series in sweep.memory_bytes.items()]
    title = f"{one_line(sweep.title())}: program memory (per device), as XLA sizes it"
    return [grid(title, headers, rows, width, console), Text("")]


def crossover_lines(result: RunResult) -> list[Any]:
    """Does it matter at my size: where each variant's extra fixed cost falls under 10 % and 1 %."""
    from tuiperf.results.crossover import sentences

    found = sentences(result)
    if not found:
        return []
    fit = "" if result.sweep is not None and result.sweep.grid else " (fit: fixed + per-unit × size)"
    title = Text(f"does the extra fixed cost matter at your size?{fit}", style="bold")
    return [title, *[Hanging(f"· {line}", indent=2) for line in found], Text("")]


def profile_table(variant: VariantResult, top: int = 8) -> Table:
    table = Table(
        title=Text(f"Python profile of {one_line(variant.name)} (cProfile, per call)"),
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for column in ("function", "calls", "cumulative", "own"):
        table.add_column(
            column,
            justify="left" if column == "function" else "right",
            overflow="fold" if column == "function" else "ellipsis",
            no_wrap=column != "function",
        )
    for row in variant.profile.rows[:top]:
        table.add_row(
            Text(one_line(row.function)), f"{row.ncalls:.3g}", f"{row.cumtime_us:.1f} µs", f"{row.tottime_us:.1f} µs"
        )
    return table


def render(result: RunResult, width: int, console: Console, profiles: bool = False) -> Group:
    shown = result.shown
    where = ""
    if result.sweep is not None and shown is not result:
        where = f" at {one_line(result.sweep.label(len(result.points) - 1))}"
    parts: list[Any] = [header(result)]
    if result.sweep is not None and result.sweep.grid:
        parts.extend(grid_of_cells(result, width, console))
    elif result.sweep is not None:
        parts.extend([sweep_grid(result.sweep, width, console), Text("")])
    parts.extend(sweep_compile_grid(result, width, console))
    if result.sweep is not None:
        parts.extend(sweep_memory_grid(result.sweep, width, console))
        parts.extend(crossover_lines(result))
    parts.extend(environments(shown))
    # --measure compile: compile time is what was asked, so it leads; the call times follow it
    compiled = compile_time(shown, width, console, where)
    parts.extend([*compiled[1:], Text("")] if compiled else [])  # its leading blank line: the header's
    parts.extend(latency(shown, width, console, where))
    parts.extend(processes(shown))
    parts.extend([Text(""), stages(shown, width, console, where)])
    parts.extend(memory(shown, width, console, where))
    parts.extend(breakdown(shown, width, console, where))
    parts.extend(operations(shown, width, console, where))
    parts.extend(operations_across(result))
    parts.extend(why(shown))
    parts.extend(tried_table(shown, width, console))
    parts.extend(guard_notes(shown))
    if profiles:
        parts.extend(profile_table(v) for v in shown.variants if v.profile.rows)
    if result.warnings:
        parts.append(Text(""))
        parts.extend(Hanging(f"⚠ {inert(w)}", indent=2, style="yellow") for w in result.warnings)
    return Group(*parts)


def print_result(
    result: RunResult, console: Console | None = None, profiles: bool = False, width: int | None = None
) -> None:
    """Print ``result``; ``width`` overrides the console's (which is ``$COLUMNS``, else the terminal's,
    else 80)."""
    console = console or Console(width=width, highlight=False)
    print_trimmed(console, render(result, width or console.width, console, profiles))
