"""Text output that pipes cleanly: `tuiperf list | cat`, `run`, `show`, `compare` and `history` keep
every line within the width they claim ($COLUMNS or --width), end no line in a space, and break
lines only between items (never inside a name, a version or a figure), continuing with an indent."""

from __future__ import annotations

from pathlib import Path

import factories
import pytest
from rich.cells import cell_len

from tuiperf.cli import main
from tuiperf.cli.wrap import flow, hang

RESULTS = Path(__file__).parent / "fixtures" / "results"
LONG_PARAMS = {f"parameter_{i}": f"value_{i}" for i in range(12)}
PACKAGES = {"jax": "0.10.2", "equinox": "0.13.8", "flax": "0.12.8"}


def assert_clean(out: str, width: int) -> list[str]:
    lines = out.splitlines()
    assert lines, "nothing was printed"
    too_wide = [line for line in lines if cell_len(line) > width]
    trailing = [line for line in lines if line != line.rstrip()]
    assert too_wide == [] and trailing == []
    return lines


def test_flow_breaks_only_between_items_and_indents_what_follows():
    items = [f"name_{i}=value_{i}" for i in range(8)]
    lines = [line.plain for line in flow(items, 40, lead="  params:   ", indent=12)]
    assert lines[0].startswith("  params:   name_0=value_0")
    assert all(line.startswith(" " * 12) and line[12] != " " for line in lines[1:])
    assert " ".join(" ".join(lines).split()) == "params: " + " ".join(items)  # nothing lost
    facts = ["device cpu:0 (cpu)", "sync dispatch", "jax 0.10.2", "equinox 0.13.8", "flax 0.12.8"]
    lines = [line.plain for line in flow(facts, 36, sep=" · ")]
    assert all(any(fact in line for line in lines) for fact in facts)  # never `equinox` / `0.13.8`
    assert lines[0].endswith(" ·")  # the separator stays with the line it closes


def test_hang_keeps_figures_with_their_units_and_folds_only_a_word_wider_than_the_line():
    text = "jit: imprecise: 95 % CI of the median reaches ±9 % of the median, max 15.0 µs"
    for width in range(24, 60):
        lines = [line.plain for line in hang(text, width, indent=2)]
        assert all(cell_len(line) <= width and line == line.rstrip() for line in lines)
        assert all(not line.lstrip().startswith(("%", "µs")) for line in lines)
    # loop-compile's cache line at 100 columns read "… took 0.073 s" then "  , under jax_persistent…"
    cache = "· unrolled: no hit — nothing written: XLA's backend compile took 0.073 s, under the threshold"
    for width in range(24, 90):
        assert not any(line.plain.lstrip().startswith(",") for line in hang(cache, width, indent=2))
    word = "x" * 50
    lines = [line.plain for line in hang(f"a {word} b", 20, indent=4)]
    assert "".join(lines).replace(" ", "") == f"a{word}b"
    assert all(cell_len(line) <= 20 for line in lines)


@pytest.mark.slow
@pytest.mark.parametrize("width", [40, 80])
def test_piped_list(width, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["list"]) == 0
    lines = assert_clean(capsys.readouterr().out, width)
    assert not any(line.startswith("flax_kernel_size") for line in lines)  # a continuation is indented
    assert any("flax_kernel_size=tuple" in line for line in lines)
    assert any("nnx-preflattened" in line for line in lines)


@pytest.mark.parametrize("width", [40, 80])
def test_piped_show_of_a_sweep_and_of_hostile_names(width, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["show", str(RESULTS / "v1_tiny_sin_sweep.json")]) == 0
    lines = assert_clean(capsys.readouterr().out, width)
    assert any("equinox 0.13.8" in line for line in lines)
    from tuiperf.results import resultfile

    long_name = "a-variant-name-wider-than-any-terminal-" * 3
    doc = factories.result(
        {"jit": factories.steady(1000), long_name: factories.steady(2000)}, params=LONG_PARAMS, packages=PACKAGES
    )
    doc.warnings.append("a warning with a path /" + "very/" * 30 + "long.py and words after it")
    path = resultfile.save(doc, tmp_path / "r.json")
    assert main(["show", str(path), "--width", str(width)]) == 0
    lines = assert_clean(capsys.readouterr().out, width)
    assert all(any(f"{k}={v}" in line for line in lines) for k, v in LONG_PARAMS.items())


@pytest.mark.slow
def test_piped_run(fixture_dir, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "60")
    argv = ["run", "tiny", "--scenarios", fixture_dir, "--in-process", "--samples", "15", "--no-profile"]
    assert main([*argv, "--set", "size=8"]) in (0, 1)  # 1 when a variant of the fixture fails
    lines = assert_clean(capsys.readouterr().out, 60)
    assert lines[1].startswith("params: ") and "jax.jit" in "\n".join(lines)


@pytest.mark.parametrize("width", [40, 80])
def test_piped_compare(width, tmp_path, monkeypatch, capsys):
    from tuiperf.results import resultfile

    monkeypatch.setenv("COLUMNS", str(width))
    samples = {f"variant-{i}-with-a-long-name": factories.steady(1000 * (i + 1)) for i in range(3)}
    old = resultfile.save(factories.result(samples, params={"batch": 1}), tmp_path / "old.json")
    new = resultfile.save(factories.result(samples, params={"batch": 8}), tmp_path / "new.json")
    assert main(["compare", str(old), str(new)]) == 0
    captured = capsys.readouterr()
    assert_clean(captured.out, width)
    assert_clean(captured.err, width)


@pytest.mark.parametrize("width", [40, 80, 300])
def test_piped_history_cuts_nothing(width, tmp_path, monkeypatch, capsys):
    from tuiperf.common.units import format_ns
    from tuiperf.results.history import record

    db = tmp_path / "h.sqlite"
    samples = {f"framework-variant-{i}": factories.steady(1000 * (i + 1)) for i in range(7)}
    doc = factories.result(samples, params=LONG_PARAMS, scenario="training-step")
    record(doc, db)
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["history", "--history", str(db)]) == 0
    out = capsys.readouterr().out
    lines = assert_clean(out, width)
    assert "…" not in out
    assert all(any(f"{k}={v}" in line for line in lines) for k, v in LONG_PARAMS.items())
    for v in doc.measured:
        assert any(f"{v.name} {format_ns(v.sampling.stats.median_ns)}" in line for line in lines), v.name
