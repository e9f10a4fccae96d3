"""A run over several Python environments, as lines for the Statistics and Breakdown tabs: each
environment (its Python, the versions that differ from the reference), each variant's ratio against
the same variant in the reference environment, and which stage moved between them. No Textual here.
"""

from __future__ import annotations

from itertools import groupby

from rich.text import Text

from tuiperf.common.text import one_line
from tuiperf.common.units import how_much
from tuiperf.results.covers import CALIBRATE_HINT
from tuiperf.results.environments import (
    COMPARED_PACKAGES,
    ONE_PROCESS_WORDS,
    base_name,
    changes,
    qualified,
    version_changes,
)
from tuiperf.results.findings import p_cell
from tuiperf.results.model import RunResult
from tuiperf.results.reconcile import Reconciliation, reconcile
from tuiperf.results.verdict import gap_words, signed
from tuiperf.tui.text_table import fitted

NAME_WIDTH = 40


def several(result: RunResult | None) -> bool:
    return result is not None and len(result.environments) > 1


def environment_lines(result: RunResult, width: int = 0) -> list[Text]:
    """Each environment, then each other environment's variants against the reference's: the ratio of
    medians with its 95 % CI and p-value, under the versions that differ. Empty for a run in one."""
    if not several(result):
        return []
    runs = result.environments
    reference = runs[0]
    lines = [Text("Python environments (the first is the reference)", style="bold")]
    name_w = min(max(len(run.name) for run in runs), 20)
    for run in runs:
        env = run.env
        python = f"Python {env.python}" if env is not None else "Python ?"
        where = one_line(env.executable if env is not None and env.executable else run.python)
        lines.append(Text.assemble((one_line(run.name, name_w).ljust(name_w), "bold"), f"  {python}  ", (where, "dim")))
        indent = " " * (name_w + 2)
        if run is reference:
            packages = env.packages if env is not None else {}
            listed = [f"{n} {one_line(packages[n])}" for n in COMPARED_PACKAGES if packages.get(n)]
            lines += _flow(listed or ["library versions not recorded"], indent, " · ", width)
        else:
            differ = version_changes(reference.env, env)
            said = ["differs: " + differ[0], *differ[1:]] if differ else ["the same versions"]
            lines += _flow(said, indent, "; ", width)
        if run.error:
            lines.append(Text(indent + "⚠ " + one_line(run.error, 300), style="bold yellow"))
    rows = changes(result)
    for environment, group in groupby(rows, key=lambda row: row.environment):
        items = list(group)
        versions = "; ".join(items[0].changes) or "the same versions"
        lines += [
            Text(""),
            Text(f"{one_line(environment)} against {one_line(reference.name)}: {versions}", style="bold"),
        ]
        header = [Text(h, style="bold") for h in ("variant", "ratio", "95% CI", "p", "verdict")]
        table = [header]
        for row in items:
            lo, hi = row.ci95
            words = (
                how_much(row.ratio)
                if row.finding
                else "no different"
                if lo <= 1 <= hi
                else f"{how_much(row.ratio)}, undecided (one process each)"
            )
            cells = [one_line(row.variant, NAME_WIDTH), f"{row.ratio:.3f}×", f"{lo:.3f} – {hi:.3f}"]
            table.append([Text(c) for c in [*cells, p_cell(row.p_value, row.finding), words]])
        lines += fitted(table, "lrrrl", width)
        if any(row.one_process for row in items):
            lines.append(Text(f"95 % CIs: {ONE_PROCESS_WORDS}; {CALIBRATE_HINT}", style="dim"))
    missing = _not_compared(result, {(row.variant, row.environment) for row in rows})
    if missing:
        lines += [Text(""), Text("not compared (no result in both): " + ", ".join(missing), style="dim")]
    return lines


def _flow(items: list[str], indent: str, sep: str, width: int) -> list[Text]:
    """``items`` joined by ``sep``, a line breaking only between items, each line after ``indent``."""
    lines, line = [], ""
    for item in items:
        if line and width and len(indent) + len(line) + len(sep) + len(item) > width:
            lines.append(Text(indent + line))
            line = ""
        line = f"{line}{sep}{item}" if line else item
    return [*lines, Text(indent + line)]


def _not_compared(result: RunResult, compared: set[tuple[str, str]]) -> list[str]:
    reference = result.environments[0].name
    return [
        one_line(v.name)
        for v in result.shown.variants
        if v.environment not in (None, reference) and (base_name(v), v.environment) not in compared
    ]


def environment_splits(result: RunResult) -> list[Reconciliation]:
    """For each variant with a breakdown in the reference environment and in another: the gap
    between the two (``variant @ other`` − ``variant @ reference``) split by stage. Pure Python
    resampling: call it off the UI thread."""
    if not several(result):
        return []
    shown = result.shown
    reference = result.environments[0].name
    splits = []
    for v in shown.measured:
        if v.environment in (None, reference) or v.breakdown is None:
            continue
        there = shown.variant(qualified(base_name(v), reference))
        if there is None or there.breakdown is None:
            continue
        split = reconcile(v, there)
        if split is not None:
            splits.append(split)
    return splits


def split_lines(result: RunResult, splits: list[Reconciliation]) -> list[Text]:
    """Which stage moved between environments, one line per variant (empty when none has a breakdown
    in both)."""
    if not several(result):
        return []
    reference = result.environments[0].name
    lines = [Text(""), Text(f"between environments, by stage (against {one_line(reference)})", style="bold")]
    if not splits:
        return [*lines, Text("no variant has a breakdown in both environments", style="dim")]
    for split in splits:
        lines.append(
            Text.assemble(
                (one_line(split.variant), "bold"),
                f" − {one_line(split.baseline)} = {signed(split.gap_ns)}: {gap_words(split)}",
            )
        )
    return lines
