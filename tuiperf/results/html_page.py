"""``tuiperf export RUN --format html``: one self-contained page for a CI artifact — the run's medians
with their 95 % intervals, and the scenario's medians per git commit from the history with the
commits where a step was detected (:mod:`tuiperf.results.by_commit`). A run measured with ``--measure
compile`` also gives its compile times (trace + lower + compile, repeated) the same way: in the run, at
each point of a sweep, and by commit, always under headings of their own (never among the calls').

Self-contained: inline SVG and CSS, no script, no font, image or style sheet fetched, so it opens
offline and in a CI artifact viewer alike. Every text from a result (names, parameters, notes) is data:
escaped, never markup. Pure: no numpy (built in the UI process too).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tuiperf.common.text import inert
from tuiperf.common.units import counted, format_ns, how_much, interval_words, ratio_with_interval
from tuiperf.results.findings import holds_one
from tuiperf.results.model import REPEATED_STAGES, Comparison, RunResult, StageSeries
from tuiperf.results.ratios import against

if TYPE_CHECKING:
    from tuiperf.results.by_commit import Commit

WIDTH, HEIGHT = 720, 240
LEFT, RIGHT, TOP, BOTTOM = 80, 20, 20, 56  # room for the y ticks and the rotated commit labels

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #1b1b1b; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { padding: 0.2em 0.8em; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
code { font-family: ui-monospace, monospace; }
svg { display: block; margin: 0.5em 0 1.5em; }
.muted { color: #666; }
.step { color: #b00020; font-weight: bold; }
"""


def page(result: RunResult, commits: Sequence[Commit] = ()) -> str:
    """The page for ``result``, with ``commits`` (its scenario's runs by commit; none: that section
    says why it is missing)."""
    title = f"tuiperf: {result.scenario.title or result.scenario.id}"
    body = [f"<h1>{_e(title)}</h1>", _facts(result), *_sweep(result), *_sweep_compile(result)]
    body += [*_this_run(result.shown, result), *_tried(result.shown), *_compile(result.shown, result)]
    body += _by_commit(result.scenario.id, commits)
    body += _by_commit_compile(commits)
    body.append(f'<p class="muted">Measured with tuiperf {_e(result.tool.version)}; every figure comes from a run.</p>')
    head = f'<meta charset="utf-8"><title>{_e(title)}</title><style>{STYLE}</style>'
    return f'<!DOCTYPE html>\n<html lang="en"><head>{head}</head><body>\n' + "\n".join(body) + "\n</body></html>\n"


def _e(text: object) -> str:
    """Text as HTML data: escaped, and each control character a visible stand-in (a page that is
    printed with `cat` stays inert too)."""
    return html.escape(inert(text), quote=True)


def _facts(result: RunResult) -> str:
    values = dict(result.params)  # a sweep's stored params hold the scenario's default for what it swept
    sweep = result.sweep
    if sweep is not None:
        axes = [(a.parameter, list(a.values)) for a in sweep.grid] or [(sweep.parameter, list(sweep.values))]
        values.update({name: ", ".join(map(str, swept)) + " (swept)" for name, swept in axes})
    params = " ".join(f"{k}={v}" for k, v in values.items()) or "defaults"
    facts = [f"scenario <code>{_e(result.scenario.id)}</code>", _e(params), f"device {_e(result.device.id)}"]
    facts.append(f"{_e(result.options.dispatch)} dispatch")
    source = result.env.source if result.env is not None else None
    if source is not None:
        dirty = ", changes not committed" if source.dirty else ""
        facts.append(f"commit <code>{_e(source.commit[:12])}</code> ({_e(source.branch)}{dirty})")
    facts.append(_e(result.started_at))
    return f'<p class="muted">{" · ".join(facts)}</p>'


def _sweep(result: RunResult) -> list[str]:
    """A sweep's or a grid's medians point by point, one plot a variant, with their 95 % intervals."""
    sweep = result.sweep
    if sweep is None or not result.points:
        return []
    parts = [f"<h2>{_e(sweep.title())}</h2>"]
    names = list(dict.fromkeys(v.name for point in result.points for v in point.measured))
    for name in names:
        points = []
        for index, point in enumerate(result.points):
            v = point.variant(name)
            stats = v.sampling.stats if v is not None and v.ok else None
            if stats is not None:
                low, high = stats.ci95_median_ns
                points.append((sweep.label(index), stats.median_ns, low, high, False))
        if points:
            parts.append(f"<h3><code>{_e(name)}</code></h3>")
            parts.append(_plot(f"{name}: median per point, 95 % intervals", points, "point", joined=not sweep.grid))
    return parts


def _this_run(result: RunResult, whole: RunResult) -> list[str]:
    """``result``: the run, or a sweep's last point (``whole`` the sweep)."""
    heading = "This run" if whole.sweep is None else f"At {whole.sweep.label(len(whole.points) - 1)}"
    measured = [v for v in result.measured if v.sampling.stats is not None]
    if not measured:
        return [f"<h2>{_e(heading)}</h2>", "<p>No variant was measured.</p>"]
    baseline, ratios = against(result)
    rows = []
    points: list[tuple[str, float, float, float, bool]] = []
    for v in measured:
        stats = v.sampling.stats
        assert stats is not None
        low, high = stats.ci95_median_ns
        versus = "baseline" if v.name == baseline else _versus(ratios.get(v.name))
        rows.append([v.name, format_ns(stats.median_ns), f"{format_ns(low)} – {format_ns(high)}", versus])
        points.append((v.name, stats.median_ns, low, high, False))
    return [
        f"<h2>{_e(heading)}</h2>",
        _table(["variant", "median", "95% interval", f"against {baseline or '–'}"], rows),
        _plot("median per call, 95 % intervals", points, "this run's variants", joined=False),
    ]


def _tried(result: RunResult) -> list[str]:
    """The remedies tuiperf tried itself, apart from the user's variants (the report's and Markdown's table)."""
    from tuiperf.results import tried

    rows = [list(row) for row in tried.rows(result)]
    if not rows:
        return []
    headers = ["variant", "remedy tried", "median", "remedied", "remedied / original [95% CI]", "outputs"]
    return [
        "<h2>Remedies tuiperf tried</h2>",
        '<p class="muted">Built by tuiperf, not your variants; sampled in the same rounds as the original.</p>',
        _table(headers, rows),
    ]


def _ms(series: StageSeries) -> tuple[float, float, float]:
    """A repeated stage's (median, low, high) in ns, as the plots and ``format_ns`` take them."""
    return series.median_ms * 1e6, series.ci95_ms[0] * 1e6, series.ci95_ms[1] * 1e6


def _stage_text(series: StageSeries | None) -> str:
    if series is None:
        return "–"
    median, low, high = _ms(series)
    return f"{format_ns(median)} [{format_ns(low)} – {format_ns(high)}]"


def _compile(result: RunResult, whole: RunResult) -> list[str]:
    """``--measure compile``: each variant's stages repeated with JAX's caches cleared, median [95 % CI],
    its compile against the baseline's, a plot of the total (trace + lower + compile), the programs'
    sizes, and what the report says of them (where the gap is, the persistent cache, the pay-off);
    ``result``: the run, or a sweep's last point."""
    from tuiperf.results import compile_time as ct

    repeated = [v for v in result.variants if v.ok and v.stages.total is not None]
    if not repeated:
        return []
    base, found = ct.ratios(result, result.options.baseline)
    against_base = {r.name: ratio_with_interval(r.ratio, r.lo, r.hi) for r in found}  # as the report gives it
    rows, points = [], []
    for v in repeated:
        rows.append([v.name, *(_stage_text(v.stages.repeated.get(key)) for key, _ in REPEATED_STAGES)])
        rows[-1] += [str(v.stages.rounds), "baseline" if v.name == base else against_base.get(v.name, "–")]
        assert v.stages.total is not None
        points.append((v.name, *_ms(v.stages.total), False))
    at = f" at {whole.sweep.label(len(whole.points) - 1)}" if whole.sweep is not None else ""
    first = ct.first_compile_line(result)
    parts = [
        f"<h2>Compile time{_e(at)}</h2>",
        '<p class="muted">Each stage repeated with JAX\'s caches cleared, variants in turn: median [95 % interval].'
        f" A compile time, not a time per call.{_e(' ' + first[:1].upper() + first[1:] + '.' if first else '')}</p>",
        _table(["variant", *(label for _, label in REPEATED_STAGES), "repeats", f"against {base or '–'}"], rows),
        _plot("compile time (trace + lower + compile), 95 % intervals", points, "this run's variants", joined=False),
    ]
    sizes = ct.size_rows(result)
    if sizes:
        parts += [
            "<h3>Program size</h3>",
            _table(["variant", "jaxpr equations", "HLO lowered", "HLO compiled", "while loops"], sizes),
        ]
    said = [
        ("Where the compile gap is", [*ct.gap_sentences(result, base), *ct.remedies(result)]),
        ("Persistent compilation cache, private folder, cold then warm", ct.cache_lines(result)),
        ("Does the longer compile pay off?", [p.sentence() for p in ct.payoffs(result)]),
    ]
    for title, items in said:
        if items:
            parts += [f"<h3>{_e(title)}</h3>", "<ul>" + "".join(f"<li>{_e(line)}</li>" for line in items) + "</ul>"]
    return parts


def _sweep_compile(result: RunResult) -> list[str]:
    """A sweep's or a grid's compile times (trace + lower + compile) point by point, one plot a variant."""
    sweep = result.sweep
    if sweep is None or not sweep.compile_ms or not result.points:
        return []
    parts = [f"<h2>Compile time, {_e(sweep.title())}</h2>"]
    for name in sweep.compile_ms:
        points = []
        for index, point in enumerate(result.points):
            v = point.variant(name)
            total = v.stages.total if v is not None and v.ok else None
            if total is not None:
                points.append((sweep.label(index), *_ms(total), False))
        if points:
            parts.append(f"<h3><code>{_e(name)}</code>: compile time</h3>")
            label = f"{name}: compile time (trace + lower + compile) per point, 95 % intervals"
            parts.append(_plot(label, points, "point", joined=not sweep.grid))
    return parts


def _versus(row: Comparison | None) -> str:
    if row is None:
        return "–"
    lo, hi = row.ci95
    words = "no different" if holds_one(row.ci95) else how_much(row.ratio)
    return f"{words} ({interval_words(row.ratio, lo, hi)})"


def _by_commit(scenario: str, commits: Sequence[Commit]) -> list[str]:
    parts = ["<h2>By commit</h2>"]
    if not commits:
        parts.append(
            f'<p class="muted">No run of <code>{_e(scenario)}</code> with a git commit in the history: runs '
            "record the commit of their scenario's folder when it is a git repository.</p>"
        )
        return parts
    steps = sum(1 for c in commits for m in c.variants.values() if m.step is not None)
    parts.append(
        f"<p>{counted(len(commits), 'commit')}, oldest first; {steps or 'no'} step{'s' * (steps != 1)} beyond the 95 % "
        "intervals (a commit's interval wholly above or below the previous one's). * marks changes not "
        "committed.</p>"
    )
    parts += _commit_plots(commits, "call")
    parts.append(_commit_table(commits, "call"))
    return parts


def _commit_plots(commits: Sequence[Commit], measure: str) -> list[str]:
    """A plot per variant across the commits (``measure`` "call": its medians per call; "compile": its
    compile times), each with its 95 % intervals and steps."""
    parts = []
    figures = [c.variants if measure == "call" else c.compile for c in commits]
    heading, what = ("", "median per commit") if measure == "call" else (": compile time", "compile time per commit")
    for name in dict.fromkeys(name for f in figures for name in f):
        points = [
            (c.label, m.median_ns, m.low_ns, m.high_ns, m.step is not None)
            for c, f in zip(commits, figures, strict=True)
            if (m := f.get(name)) is not None
        ]
        heading, what = (
            ("", "median per commit") if measure == "call" else (": compile time", "compile time per commit")
        )
        parts.append(f"<h3><code>{_e(name)}</code>{heading}</h3>")
        parts.append(_plot(f"{name}: {what}, 95 % intervals", points, "commit"))
    return parts


def _by_commit_compile(commits: Sequence[Commit]) -> list[str]:
    """The runs that measured compile time, by commit: each variant's compile time per commit, steps marked."""
    if not any(c.compile for c in commits):
        return []
    parts = [
        "<h2>Compile time by commit</h2>",
        '<p class="muted">Trace + lower + compile, repeated with JAX\'s caches cleared, from the runs measured '
        "with <code>--measure compile</code>; a step: a commit's interval wholly above or below the previous "
        "one's.</p>",
    ]
    parts += _commit_plots(commits, "compile")
    parts.append(_commit_table(commits, "compile"))
    return parts


def _commit_table(commits: Sequence[Commit], measure: str) -> str:
    """Each commit's variants (``measure`` "call": medians per call; "compile": compile times), steps marked."""
    rows = []
    for c in commits:
        for name, m in c.series(measure).items():
            step = "" if m.step is None else f"{'▲' if m.step > 1 else '▼'} {(m.step - 1) * 100:+.1f} %"
            interval = f"{format_ns(m.low_ns)} – {format_ns(m.high_ns)}"
            rows.append([c.label, c.branch, name, format_ns(m.median_ns), interval, step])
    figure = "compile" if measure == "compile" else "median"
    return _table(["commit", "branch", "variant", figure, "95% interval", "step"], rows, step_column=5)


def _table(headers: list[str], rows: list[list[str]], step_column: int | None = None) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            marked = ' class="step"' if i == step_column and cell else ""
            cells.append(f"<td{marked}>{_e(cell)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _plot(label: str, points: Sequence[tuple[str, float, float, float, bool]], axis: str, joined: bool = True) -> str:
    """An SVG of medians (dots, ``joined`` in order: a series over commits) with their intervals (bars)
    over ``points`` (label, median, low, high, stepped): a stepped point is drawn as a red triangle."""
    lows = [p[2] for p in points]
    highs = [p[3] for p in points]
    floor, ceiling = min(lows), max(highs)
    pad = max((ceiling - floor) * 0.1, ceiling * 0.05, 1.0)  # a flat series is drawn flat, not magnified
    floor, ceiling = max(0.0, floor - pad), ceiling + pad
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (inner_w * (i + 0.5) / len(points))

    def y(ns: float) -> float:
        return TOP + inner_h * (1 - (ns - floor) / (ceiling - floor))

    svg = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" role="img" '
        f'aria-label="{_e(label)}" font-size="11" font-family="system-ui, sans-serif">',
        f"<title>{_e(label)}</title>",
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + inner_h}" stroke="#999"/>',
        f'<line x1="{LEFT}" y1="{TOP + inner_h}" x2="{WIDTH - RIGHT}" y2="{TOP + inner_h}" stroke="#999"/>',
    ]
    for tick in _ticks(floor, ceiling):
        svg.append(f'<line x1="{LEFT - 4}" y1="{y(tick):.1f}" x2="{WIDTH - RIGHT}" y2="{y(tick):.1f}" stroke="#eee"/>')
        svg.append(f'<text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{_e(format_ns(tick))}</text>')
    path = " ".join(f"{x(i):.1f},{y(p[1]):.1f}" for i, p in enumerate(points))
    if joined:
        svg.append(f'<polyline points="{path}" fill="none" stroke="#4a6fa5" stroke-width="1.5"/>')
    for i, (name, median, low, high, stepped) in enumerate(points):
        cx, cy = x(i), y(median)
        tip = f"{name}: {format_ns(median)} [{format_ns(low)} – {format_ns(high)}]" + (" — a step" if stepped else "")
        svg.append(f'<g class="point"><title>{_e(tip)}</title>')
        svg.append(f'<line x1="{cx:.1f}" y1="{y(low):.1f}" x2="{cx:.1f}" y2="{y(high):.1f}" stroke="#4a6fa5"/>')
        if stepped:
            corners = f"{cx:.1f},{cy - 7:.1f} {cx - 6:.1f},{cy + 5:.1f} {cx + 6:.1f},{cy + 5:.1f}"
            svg.append(f'<polygon class="step" points="{corners}" fill="#b00020"/>')
        else:
            svg.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="#4a6fa5"/>')
        svg.append("</g>")
        label_y = TOP + inner_h + 12
        svg.append(
            f'<text x="{cx:.1f}" y="{label_y}" text-anchor="end" transform="rotate(-30 {cx:.1f} {label_y})">'
            f"{_e(name[:14])}</text>"
        )
    svg.append(f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 4}" text-anchor="end" fill="#666">{_e(axis)}</text>')
    svg.append("</svg>")
    return "\n".join(svg)


def _ticks(floor: float, ceiling: float, count: int = 4) -> list[float]:
    """Round values between ``floor`` and ``ceiling`` for the y axis."""
    span = ceiling - floor
    if span <= 0:
        return [floor]
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.ceil(floor / step) * step
    return [first + i * step for i in range(count + 1) if first + i * step <= ceiling]
