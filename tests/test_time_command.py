"""`tuiperf time`: statements as the variants of a scenario written for them, and run's exports."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from tuiperf.cli import main
from tuiperf.cli.timing import scenario_source, variant_names
from tuiperf.common.errors import ParamError


def test_variant_names_are_the_statements_where_they_can_be() -> None:
    assert variant_names(["f(x)", "jax.jit( f )(x)", "g(x, y)", "f(x)", "h(" + "x" * 50 + ")"]) == [
        "f(x)",
        "jax.jit(f)(x)",
        "s3",  # a comma
        "s4",  # taken
        "s5",  # too long
    ]


def test_the_written_scenario_times_each_statement_in_the_setups_namespace() -> None:
    """Executed here without JAX: the setup and statements are plain Python."""
    source = scenario_source(["total(x)", "y = total(x) * 2", "'[bold]x'"], ["x = list(range(4))", "total = sum"])
    names: dict[str, object] = {}
    exec(compile(source, "<written>", "exec"), names)
    scenario = names["scenario"]
    assert scenario.id == "time" and list(scenario.variants) == ["total(x)", "y=total(x)*2", "'[bold]x'"]
    assert scenario.variants["y=total(x)*2"].doc == "y = total(x) * 2"
    ctx = scenario.setup_fn(None)
    calls = [scenario.variants[name].build(None, ctx) for name in scenario.variants]
    assert [bench.fn(*bench.args) for bench in calls] == [6, None, "[bold]x"]
    assert calls[0].fn is sum and calls[0].args == ([0, 1, 2, 3],)  # a call of names: timed as Bench(f, x)
    assert calls[1].fn.__name__ == "__tuiperf_statement_1" and calls[1].args == ()  # else: in a function


def test_a_statement_that_is_not_python_is_said_before_anything_runs() -> None:
    with pytest.raises(ParamError, match="statement 2: not Python"):
        scenario_source(["f(x)", "f(x"], [])
    with pytest.raises(ParamError, match="--setup: not Python"):
        scenario_source(["f(x)"], ["import"])
    with pytest.raises(ParamError, match="twice"):
        scenario_source(["f(x)", "f(x)"], [])


@pytest.mark.slow
def test_time_measures_statements_and_run_writes_markdown_and_csv_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    md, samples = tmp_path / "r.md", tmp_path / "r.csv"
    code = main(
        [
            "time",
            "jnp.sin(x)",
            "f(x)",
            "-s",
            "import jax, jax.numpy as jnp",
            "-s",
            "x = jnp.ones(3); f = jax.jit(jnp.sin)",
            *("--in-process", "--samples", "15", "--no-profile", "--no-history"),
            *("--export-markdown", str(md), "--export-csv", str(samples)),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "tuiperf time" in out and "jnp.sin(x)" in out and "f(x)" in out and "baseline" in out
    assert "jnp.sin(x)" in md.read_text() and "f(x)" in md.read_text()
    rows = list(csv.DictReader(io.StringIO(samples.read_text())))
    assert {row["variant"] for row in rows} == {"jnp.sin(x)", "f(x)"}
    assert len(rows) == 30


def test_the_ipython_magic_runs_a_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    from tuiperf.cli import ipython

    registered: dict[str, object] = {}

    class Shell:
        def register_magic_function(self, fn: object, magic_kind: str, magic_name: str) -> None:
            registered[f"{magic_kind}:{magic_name}"] = fn

    ipython.load_ipython_extension(Shell())
    magic = registered["line:tuiperf"]
    assert magic is ipython.tuiperf_magic
    assert ipython.tuiperf_magic("time --help") == 0 and "STATEMENT" in capsys.readouterr().out
    assert ipython.tuiperf_magic("time 'f(x' -s 'x = 1'") == 2
    assert "tuiperf: statement 1: not Python" in capsys.readouterr().err
