"""A grid (two ``--sweep``) read as tables: one per variant, rows the first parameter's values, columns
the second's, each cell the variant's time per call and its ratio to the baseline at that cell.

The CLI report, the Markdown export and the app's heat map all draw from :func:`grid_tables`.
No numpy: the TUI uses it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tuiperf.common.units import format_ns, ratio_with_interval, sig3
from tuiperf.results.model import Comparison, RunResult, Scalar
from tuiperf.results.ratios import against


@dataclass
class GridCell:
    median_ns: float | None  # None: not measured at this cell (the variant failed, or the run stopped)
    ratio: Comparison | None = None  # against the baseline at this cell (None for the baseline itself)


@dataclass
class GridTable:
    variant: str
    baseline: str | None
    rows: tuple[str, list[Scalar]]  # the first parameter and its values
    columns: tuple[str, list[Scalar]]  # the second
    cells: list[list[GridCell]]  # [row][column]

    @property
    def is_baseline(self) -> bool:
        return self.variant == self.baseline

    @property
    def measured(self) -> bool:
        """Whether any cell has a time (a skipped or failed variant has none: said in a line, not a table)."""
        return any(cell.median_ns is not None for row in self.cells for cell in row)


def grid_tables(result: RunResult) -> list[GridTable]:
    """Each variant's table over a grid result's cells; empty for anything else."""
    sweep = result.sweep
    if sweep is None or len(sweep.grid) != 2:
        return []
    rows, columns = sweep.grid
    baseline = against(result.points[0], result.options.baseline)[0] if result.points else None
    points = result.points[: len(rows.values) * len(columns.values)]
    ratios = [against(point, baseline)[1] for point in points]  # each cell's ratios, once for every variant
    tables = []
    for name in sweep.medians_ns:
        cells = [[GridCell(None) for _ in columns.values] for _ in rows.values]
        for index, point in enumerate(points):
            row, column = divmod(index, len(columns.values))
            variant = point.variant(name)
            median = (
                variant.sampling.stats.median_ns if variant is not None and variant.sampling.stats is not None else None
            )
            ratio = ratios[index].get(name) if name != baseline else None
            cells[row][column] = GridCell(median, ratio if median is not None else None)
        tables.append(
            GridTable(name, baseline, (rows.parameter, rows.values), (columns.parameter, columns.values), cells)
        )
    return tables


def time_text(cell: GridCell) -> str:
    return "–" if cell.median_ns is None else format_ns(cell.median_ns)


def ratio_text(cell: GridCell, interval: bool = True) -> str:
    """``1.08× [1.05–1.11]`` (the 95 % interval), ``1.08×``; ``–`` without a ratio."""
    if cell.ratio is None:
        return "–"
    ratio, (lo, hi) = cell.ratio.ratio, cell.ratio.ci95
    return ratio_with_interval(ratio, lo, hi) if interval else f"{sig3(ratio)}×"
