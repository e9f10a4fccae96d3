"""What is measured can be read back, and a file's declared sizes cost nothing: the reader accepts every
sweep and grid the command line and the measuring side allow (one limit, ``common/limits.py``), and
refuses a sweep whose parts do not line up (a grid declaring 3,000 × 3,000 cells over 4 points, a
sweep with more points than values, an empty axis, a crossover without its size) with one line, before
any view draws it."""

from __future__ import annotations

import json

import factories
import msgspec
import pytest

from tuiperf.api import params
from tuiperf.cli import main
from tuiperf.common import limits
from tuiperf.common.errors import ParamError, TuiperfError
from tuiperf.results import grid as grid_module
from tuiperf.results import resultfile


def test_one_limit_for_the_command_line_the_measuring_side_and_the_reader():
    assert params.MAX_LIST == limits.MAX_SWEEP_VALUES and params.MAX_CELLS == limits.MAX_GRID_CELLS
    assert resultfile.MAX_POINTS == limits.MAX_POINTS >= max(params.MAX_LIST, params.MAX_CELLS)


def repeated(result, count: int):
    """``result`` (a sweep or grid) with ``count`` points, each its first (cheap to build and to walk)."""
    sweep = result.sweep
    series = {name: [1.0] * count for name in sweep.medians_ns}
    shape = msgspec.structs.replace(sweep, values=[sweep.values[0]] * count, medians_ns=series, memory_bytes={})
    return msgspec.structs.replace(result, points=[result.points[0]] * count, sweep=shape)


def test_the_reader_accepts_the_longest_sweep_and_the_largest_grid_tuiperf_measures():
    sweep = factories.sweep({"a": [1.0, 2.0]}, values=(1, 2))
    sweep.sweep.values = list(range(params.MAX_LIST))
    longest = repeated(sweep, params.MAX_LIST)
    longest.sweep.values = list(range(params.MAX_LIST))
    resultfile.check_limits(longest)
    resultfile.check_sweep(longest)
    grid = factories.grid({"a": [1.0, 2.0]}, rows=("r", (1, 2)), columns=("c", (1,)))
    largest = repeated(grid, params.MAX_CELLS)
    largest.sweep.grid[0].values = list(range(params.MAX_CELLS // 10))
    largest.sweep.grid[1].values = list(range(10))
    resultfile.check_limits(largest)
    resultfile.check_sweep(largest)


@pytest.mark.slow
def test_a_600_value_sweep_is_stored_shown_and_exported(tmp_path, capsys):
    n = 600
    values = list(range(1, n + 1))
    run = factories.sweep({"jit": [1000.0 + i for i in values], "eager": [3000.0 + i for i in values]}, values=values)
    path = resultfile.save(run, tmp_path / "long.json")
    back = resultfile.load(path)
    assert len(back.points) == n and back.sweep.values == values
    assert main(["show", str(path), "--width", "100"]) == 0
    assert "n_args=600" in capsys.readouterr().out
    assert main(["export", str(path), "--format", "markdown"]) == 0
    assert capsys.readouterr().out.count("### At `") == n
    assert main(["export", str(path), "--format", "csv"]) == 0
    assert capsys.readouterr().out.endswith(",600,eager,299,3578.4,1\n")


def _grid_doc() -> dict:
    run = factories.grid({"jit": [1.0, 2.0, 3.0, 4.0], "eager": [2.0, 3.0, 4.0, 5.0]}, ("r", (1, 2)), ("c", (1, 2)))
    return msgspec.to_builtins(run)


def _sweep_doc() -> dict:
    return msgspec.to_builtins(factories.sweep({"jit": [1.0, 2.0, 3.0], "eager": [2.0, 3.0, 4.0]}))


def _crossing_doc() -> dict:
    return msgspec.to_builtins(factories.crossing_sweep())


def huge_grid(doc):
    doc["sweep"]["grid"][0]["values"] = list(range(3000))
    doc["sweep"]["grid"][1]["values"] = list(range(3000))


def empty_axis(doc):
    doc["sweep"]["grid"][1]["values"] = []


def one_axis(doc):
    del doc["sweep"]["grid"][1]


def three_axes(doc):
    doc["sweep"]["grid"].append({"parameter": "z", "values": [1]})


def more_points_than_cells(doc):
    doc["sweep"]["grid"][1]["values"] = [1]


def more_points_than_values(doc):
    doc["sweep"]["values"] = doc["sweep"]["values"][:1]


def no_values(doc):
    doc["sweep"]["values"] = []


def short_medians(doc):
    doc["sweep"]["medians_ns"]["jit"] = [1.0]


def point_is_a_sweep(doc):
    doc["points"][1]["sweep"] = doc["sweep"]


def crossover_at_null(doc):
    for crossover in doc["sweep"]["crossovers"]:
        crossover["at"] = None


def crossover_without_interval(doc):
    for crossover in doc["sweep"]["crossovers"]:
        crossover["at_ci95"] = None


def crossover_somewhere_else(doc):
    doc["sweep"]["crossovers"][0]["where"] = "sideways"


CRAFTED = [
    (_grid_doc, huge_grid, "$.sweep.grid declares 9,000,000 cells (3,000 × 3,000); a grid has at most 1,000"),
    (_grid_doc, empty_axis, "$.sweep.grid[1].values is empty"),
    (_grid_doc, one_axis, "$.sweep.grid has 1 axes; a grid has 2"),
    (_grid_doc, three_axes, "$.sweep.grid has 3 axes; a grid has 2"),
    (_grid_doc, more_points_than_cells, "$.points has 4 entries, more than the grid's 2 cells (2 × 1)"),
    (_sweep_doc, more_points_than_values, "$.sweep.values has 1 entries for 3 points"),
    (_sweep_doc, no_values, "$.sweep.values has 0 entries for 3 points"),
    (_sweep_doc, short_medians, "$.sweep.medians_ns['jit'] has 1 entries for 3 points"),
    (_sweep_doc, point_is_a_sweep, "$.points[1] is a sweep itself"),
    (_crossing_doc, crossover_at_null, "$.sweep.crossovers[0].at is null where 'inside' needs a size"),
    (_crossing_doc, crossover_without_interval, "$.sweep.crossovers[0].at_ci95 is null where 'inside'"),
    (_crossing_doc, crossover_somewhere_else, "Invalid enum value 'sideways' - at `$.sweep.crossovers[0].where`"),
]
IDS = [craft.__name__ for _, craft, _ in CRAFTED]


def crafted_file(tmp_path, build, craft):
    doc = build()
    craft(doc)
    path = tmp_path / f"{craft.__name__}.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(("build", "craft", "message"), CRAFTED, ids=IDS)
def test_a_crafted_sweep_is_refused_by_the_reader_in_one_line(tmp_path, build, craft, message):
    path = crafted_file(tmp_path, build, craft)
    with pytest.raises(TuiperfError) as info:
        resultfile.load(path)
    text = str(info.value)
    assert message in text and str(path) in text and "\n" not in text, text


@pytest.mark.parametrize(("build", "craft", "message"), CRAFTED, ids=IDS)
@pytest.mark.parametrize("command", [["show"], ["export", "--format", "markdown"]], ids=["show", "export"])
def test_a_crafted_sweep_is_one_line_and_exit_2_through_the_cli(tmp_path, capsys, build, craft, message, command):
    path = crafted_file(tmp_path, build, craft)
    code = main([command[0], str(path), *command[1:]])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err, err


def test_a_grid_declaring_millions_of_cells_builds_none_of_them(tmp_path, capsys, monkeypatch):
    built = [0]
    cell = grid_module.GridCell

    def counting(*args, **kwargs):
        built[0] += 1
        return cell(*args, **kwargs)

    monkeypatch.setattr(grid_module, "GridCell", counting)
    path = crafted_file(tmp_path, _grid_doc, huge_grid)
    for command in (["show"], ["export", "--format", "markdown"], ["export", "--format", "csv"]):
        assert main([command[0], str(path), *command[1:]]) == 2
    assert main(["compare", str(path), str(path)]) == 2
    assert built[0] == 0
    capsys.readouterr()
    intact = crafted_file(tmp_path, _grid_doc, lambda doc: None)  # the counting itself works
    assert main(["show", str(intact), "--width", "100"]) == 0 and built[0] > 0


def test_a_request_sweeping_more_values_than_the_command_line_allows_is_refused():
    with pytest.raises(ParamError, match="sweep over size has 1001 values; at most 1000"):
        params.check_grid([("size", list(range(1001)))])
