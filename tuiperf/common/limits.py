"""How much one run may measure: the command line, the app's dialog and the measuring side refuse more,
and the result file's reader accepts all of it (so whatever was measured can be read back)."""

from __future__ import annotations

MAX_SWEEP_VALUES = 1_000  # values of one swept parameter (and names in a list of variants)
MAX_GRID_CELLS = 1_000  # cells of a grid (two swept parameters): each is set up, compiled and sampled
MAX_GRID_AXES = 2  # a grid sweeps two parameters
MAX_POINTS = max(MAX_SWEEP_VALUES, MAX_GRID_CELLS)  # points a sweep's result holds
