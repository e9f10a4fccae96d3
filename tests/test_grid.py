"""Two ``--sweep`` make a grid: measured cell by cell (interleaved or one after another), then shown
as a table per variant in the report and the Markdown, every cell kept in every export, the history
and compare, and the exported script re-times every cell."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import factories
import pytest

from tuiperf.catalog.folders import file_sha256, scenario_files
from tuiperf.cli import main
from tuiperf.results import resultfile
from tuiperf.results.export import export
from tuiperf.results.history import History
from tuiperf.tui.view import view_of

TINY = Path(__file__).parent / "fixtures" / "scenarios" / "tiny.py"
CELLS = [(n, s) for n in (1, 4, 16) for s in (1, 64)]


def grid(medians=None, rows=("n_args", (1, 4, 16)), columns=("size", (1, 64)), **fields):
    count = len(rows[1]) * len(columns[1])
    medians = medians or {
        "jit": [1000.0 + 10 * i for i in range(count)],
        "eager": [5000.0 + 1000 * i for i in range(count)],
    }
    return factories.grid(medians, rows=rows, columns=columns, scenario="dispatch-floor", **fields)


@pytest.mark.slow
@pytest.mark.parametrize("order", ["interleaved", "sequential"])
def test_two_sweeps_measure_every_cell_of_the_grid(order, fixture_dir, tmp_path, capsys):
    out = tmp_path / "grid.json"
    argv = ["run", "tiny", "--scenarios", fixture_dir, "--in-process", "--no-history", "--dispatch", "sync"]
    argv += ["--variants", "jax.jit,eqx.filter_jit", "--samples", "5", "--budget", "0.05", "--no-profile"]
    argv += ["--sweep", "size=1,64", "--sweep", "scale=1,2,3", "--sweep-order", order, "--out", str(out)]
    assert main([*argv, "--width", "80"]) == 0
    text = capsys.readouterr().out
    assert "eqx.filter_jit: time per call · ratio to jax.jit [95 % CI], size × scale" in text
    assert "size \\ scale      1.0      2.0      3.0" in text  # jax.jit's table: times only
    assert "jax.jit: program memory (per device), as XLA sizes it" in text  # a table per variant too
    assert all(len(line) <= 80 for line in text.splitlines())
    run = resultfile.load(out)
    assert [a.parameter for a in run.sweep.grid] == ["size", "scale"] and run.sweep.cell_count == 6
    assert [(p.params["size"], p.params["scale"]) for p in run.points] == [
        (s, c) for s in (1, 64) for c in (1.0, 2.0, 3.0)
    ]
    assert all(len(m) == 6 and None not in m for m in run.sweep.medians_ns.values())
    assert all(len(p.variants) == 2 for p in run.points)
    document = json.loads(out.read_text())  # --out holds every cell
    assert [p["params"]["scale"] for p in document["points"]] == [1.0, 2.0, 3.0] * 2
    if order == "sequential":
        assert run.sweep.anchor_ns  # the first cell measured again, as a sequential sweep does


@pytest.mark.parametrize(
    ("sweeps", "message"),
    [
        (["size=1,2", "scale=1,2", "op=sin"], "tuiperf: 3 --sweep options; a run sweeps one parameter, or two"),
        (["size=1,2", "size=4,8"], "tuiperf: size is swept twice; a grid sweeps two different parameters"),
        (
            ["size=" + ",".join(map(str, range(1, 101))), "scale=" + ",".join(str(i / 10) for i in range(11))],
            "tuiperf: a grid over size × scale has 1100 cells (100 × 11); at most 1000",
        ),
        (["size=1,2", "scale=1,abc"], "tuiperf: scale: 'abc' is not a number"),
        (["size=1,2", "depth=1,2"], "tuiperf: cannot sweep unknown parameter 'depth'"),
    ],
)
def test_a_grid_that_cannot_run_is_one_line_and_exit_2(sweeps, message, fixture_dir, capsys):
    argv = ["run", "tiny", "--scenarios", fixture_dir, "--in-process", "--no-history"]
    code = main([*argv, *[a for s in sweeps for a in ("--sweep", s)]])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(message) and err.count("\n") == 1, err


def test_the_history_marks_a_grid_with_its_cells(tmp_path, capsys):
    path = tmp_path / "h.sqlite"
    with History(path) as history:
        history.add(grid())
    with History(path, readonly=True) as history:
        [run] = history.list()
    assert run.label == "grid over n_args × size (6 cells)" and run.params == ""
    assert [value for value, _ in run.points][:2] == ["n_args=1, size=1", "n_args=1, size=64"]
    assert main(["--history", str(path), "history", "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert "grid over n_args × size (6 cells)" in out
    assert "n_args=16, size=64: jit 1.05 µs · eager 10.0 µs" in out


def test_compare_of_two_grids_matches_cells_and_names_those_on_one_side(tmp_path):
    from tuiperf.results.compare import compare_runs

    old = grid()
    new = grid({"jit": [2000.0] * 6, "eager": [5000.0] * 6}, rows=("n_args", (4, 16, 64)), columns=("size", (1, 64)))
    compared = compare_runs(old, new)
    points = list(dict.fromkeys(row.point for row in compared.rows))
    assert points == ["n_args=4, size=1", "n_args=4, size=64", "n_args=16, size=1", "n_args=16, size=64"]
    jit_at = {row.point: row for row in compared.rows if row.variant == "jit"}
    assert jit_at["n_args=4, size=1"].ratio == pytest.approx(2000 / 1020, rel=0.01)
    lo, hi = jit_at["n_args=4, size=1"].ci95
    assert lo < jit_at["n_args=4, size=1"].ratio < hi
    assert "n_args=1, size=1; n_args=1, size=64: measured in the old run only" in compared.differences
    assert "n_args=64, size=1; n_args=64, size=64: measured in the new run only" in compared.differences


def test_every_export_holds_every_cell(tmp_path):
    run = grid()
    back = resultfile.decode(export(run, "json").encode(), where="export")
    assert [(p.params["n_args"], p.params["size"]) for p in back.points] == CELLS
    assert [a.parameter for a in back.sweep.grid] == ["n_args", "size"]
    rows = list(csv.DictReader(io.StringIO(export(run, "csv"))))
    assert list(dict.fromkeys(r["point"] for r in rows)) == [f"n_args={n}, size={s}" for n, s in CELLS]
    text = export(run, "markdown")
    assert "Grid over `n_args` × `size` (6 cells): `n_args` = 1, 4, 16; `size` = 1, 64;" in text
    assert "### `eager`: time per call, ratio to `jit` [95% CI]" in text
    assert "| `n_args` \\\\ `size` | 1 | 64 |" in text
    assert "| `n_args=16` | 1.04 µs | 1.05 µs |" in text  # the baseline's table: times
    eager = text.split("### `eager`")[1]
    assert "| `n_args=16` | 9.00 µs · 8.65× \\[8.65–8.66\\] | 10.0 µs · 9.52× \\[9.51–9.53\\] |" in eager
    assert "### At `n_args=16, size=64`" in text and text.count("### At `") == 6
    assert "matter at your size? Not answered for a grid" in text


@pytest.mark.slow
def test_the_exported_script_retimes_every_cell(fixture_dir, tmp_path):
    run = factories.grid(
        {"jax.jit": [1000.0, 1100.0, 1200.0, 1300.0]},
        rows=("size", (4, 16)),
        columns=("scale", (1.0, 2.0)),
        scenario="tiny",
    )
    run.scenario.source_sha256 = file_sha256(TINY)
    script = tmp_path / "repro.py"
    script.write_text(export(run, "script", scenario_files=scenario_files([fixture_dir])))
    done = subprocess.run([sys.executable, str(script), "0.02"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    at = [line for line in done.stdout.splitlines() if line.startswith("at ")]
    assert at == ["at size=4 scale=1.0", "at size=4 scale=2.0", "at size=16 scale=1.0", "at size=16 scale=2.0"]


def test_the_app_header_and_text_report_name_the_grid(tmp_path, capsys):
    view = view_of(grid(devices=4))
    assert view.header == (
        "dispatch-floor · cpu:0 · 4 devices · sync dispatch · grid over n_args × size (6 cells) · at n_args=16, size=64"
    )
    assert view.note == "(n_args=16, size=64)"
    path = resultfile.save(grid(), tmp_path / "g.json")
    assert main(["show", str(path), "--width", "80"]) == 0
    out = capsys.readouterr().out
    assert "params: n_args=1, 4, 16 (swept), size=1, 64 (swept)" in out
    assert "eager: time per call · ratio to jit [95 % CI], n_args × size" in out
    assert "per-call latency at n_args=16, size=64" in out
    assert "not answered for a grid" in out


def test_a_grid_of_hostile_names_reaches_every_output_as_data(tmp_path, capsys):
    from test_hostile_outputs import raw_controls

    hostile = "p\x1b]0;owned\x07[bold]|x"
    run = factories.grid(
        {"jit": [1000.0] * 4, hostile: [2000.0] * 4}, rows=(hostile, ("a\x1b[2J", "b")), columns=("size", (1, 2))
    )
    path = resultfile.save(run, tmp_path / "g.json")
    assert main(["show", str(path), "--width", "80"]) == 0
    out = capsys.readouterr().out
    assert not raw_controls(out) and "[bold]" in out  # printed as text, never applied as markup
    for fmt in ("markdown", "csv"):
        assert not raw_controls(export(run, fmt))
    history = tmp_path / "h.sqlite"
    with History(history) as stored:
        stored.add(run)
    assert main(["--history", str(history), "history", "--width", "200"]) == 0
    assert not raw_controls(capsys.readouterr().out)
    view = view_of(run)
    assert not raw_controls(view.header) and not any(raw_controls(f"{t.variant}{t.rows}{t.columns}") for t in view.grid)


def test_a_grid_too_wide_for_the_terminal_says_so_and_keeps_every_cell(tmp_path, capsys):
    columns = ("size", (1, 16, 256, 4096, 65536))
    run = grid(
        {"jit": [1000.0] * 10, "eager": [5000.0 + 100 * i for i in range(10)]}, rows=("n_args", (1, 4)), columns=columns
    )
    path = resultfile.save(run, tmp_path / "wide.json")
    assert main(["show", str(path), "--width", "80"]) == 0
    out = capsys.readouterr().out
    assert "eager: time per call · ratio to jit [95 % CI], n_args × size (one row per line:" in out
    assert "size=65536 5.90 µs · 5.90× [" in out and all(len(line) <= 80 for line in out.splitlines())


def test_a_variant_skipped_at_every_cell_is_one_line_not_a_table_of_dashes(tmp_path, capsys):
    """A variant skipped (or failed) everywhere printed a table whose every cell was "–" over "–"."""
    from tuiperf.results.grid import grid_tables

    run = grid()
    for point in run.points:
        point.variants.append(factories.variant("optional", status="skipped", notes=["needs a GPU"]))
    run.sweep.medians_ns["optional"] = [None] * len(run.points)
    assert [t.measured for t in grid_tables(run)] == [True, True, False]
    path = resultfile.save(run, tmp_path / "g.json")
    assert main(["show", str(path), "--width", "80"]) == 0
    out = capsys.readouterr().out
    assert "optional: not measured at any cell" in out and "optional: time per call" not in out
    markdown = export(run, "markdown")
    assert "### `optional`: not measured at any cell" in markdown and "### `optional`: time per call" not in markdown
