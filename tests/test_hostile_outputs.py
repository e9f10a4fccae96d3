"""A result whose every text is hostile reaches every output as data: no raw control character, no
markup applied, no Markdown or CSV structure broken, and no traceback."""

from __future__ import annotations

import csv
import io
import re

import factories
import msgspec
import pytest

from tuiperf.cli import main
from tuiperf.results import document, resultfile
from tuiperf.results.model import CompileStagesMs, ProfileRow

# C0 controls but newline and tab, DEL, C1 controls, the bidi overrides and line separators.
RAW = {chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]} | set(
    "\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def raw_controls(text: str) -> list[str]:
    return sorted({repr(c) for c in text if c in RAW})


def rich_result():
    """Every kind of text a result holds: measured, failed (with its phase), skipped, a breakdown
    that is not reliable, a profile, notes, warnings, a mismatch, a crash."""
    ok = factories.variant(
        "jit",
        samples=factories.steady(1000.0),
        stages=CompileStagesMs(trace=1.0),
        breakdown=msgspec.structs.replace(
            factories.breakdown(
                {
                    "call": 1000.0,
                    "jit": 900.0,
                    "flat_jit": 800.0,
                    "flat_leaves": 700.0,
                    "noop_jit": 300.0,
                    "noop_execute": 200.0,
                },
                reliable=False,
            ),
            reason="a stage is negative",
        ),
        profile=[ProfileRow(function="f (x.py:1)", ncalls=1.0, cumtime_us=1.0, tottime_us=1.0)],
        notes=["a note"],
    )
    other = factories.variant("eager", samples=factories.steady(2000.0), warnings=["noisy"])
    failed = factories.variant("bad", status="failed", error="boom", failed_phase="compile")
    skipped = factories.variant("skip", status="skipped", notes=["no flax"])
    run = document.run_result(
        factories.header(scenario="tiny", params={"size": 8, "kind": "a"}),
        [ok, other, failed, skipped],
        duration_s=1.0,
        warnings=["unfair"],
        error="stopped",
    )
    run.partial = True
    run.equivalence.mismatches = []
    return run


@pytest.fixture
def hostile_file(tmp_path):
    return resultfile.save(factories.hostile(rich_result()), tmp_path / "theirs.json")


@pytest.mark.parametrize("width", ["200", "40"])
def test_show_and_compare_print_every_hostile_text_inert(hostile_file, width, capsys):
    assert main(["show", str(hostile_file), "--width", width, "--profiles"]) == 0
    assert main(["compare", str(hostile_file), str(hostile_file), "--width", width]) == 0
    out, err = capsys.readouterr()
    assert raw_controls(out + err) == []
    assert "[link=file:///etc/passwd]x[/link]" in out  # markup shown as text, not parsed


def test_a_baseline_or_sweep_parameter_named_like_markup_is_printed_not_parsed(tmp_path, capsys):
    doc = factories.result({"[/]": factories.steady(1000.0), "b": factories.steady(2000.0)}, scenario="tiny")
    path = resultfile.save(doc, tmp_path / "r.json")
    assert main(["show", str(path), "--width", "200", "--profiles"]) == 0
    assert "× [/]" in capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["markdown", "csv", "json"])
def test_exports_to_the_terminal_carry_no_raw_control(hostile_file, fmt, capsys):
    assert main(["export", str(hostile_file), "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert raw_controls(out) == []
    if fmt == "json":  # the same document, with the invisible characters escaped
        assert resultfile.decode(out) == resultfile.load(hostile_file)


def test_markdown_keeps_its_tables_and_code_spans_whole(hostile_file):
    from tuiperf.results.export import markdown

    text = markdown(resultfile.load(hostile_file))
    for line in text.splitlines():
        if line.startswith("|"):
            cells = line.count("|") - line.count("\\|")
            assert cells in (3, 5, 7, 9, 10), line  # 2, 4, 6, 8 or 9 columns: none broken by a name
    assert "\n```" not in text  # no code block opened
    prose = re.sub(r"\\.", "", text)  # escaped characters are text
    prose = re.sub(r"(`+).*?\1", "", prose)  # outside code spans, no link, emphasis or tag is made
    for ours in ("**Partial result**", "_Measured", "run._", "**", "XLA_FLAGS", "< 1e-6", "_†", "program)._"):
        prose = prose.replace(ours, "")
    assert not re.search(r"[\[\]<>*_`]", prose)


def test_csv_names_are_data_not_formulas(hostile_file, capsys):
    from tuiperf.results.export import samples_csv

    doc = resultfile.load(hostile_file)
    doc.variants[0] = msgspec.structs.replace(doc.variants[0], name='=HYPERLINK("http://x")')
    rows = list(csv.reader(io.StringIO(samples_csv(doc))))
    names = {row[2] for row in rows[1:]}
    assert all(not n.startswith(("=", "+", "-", "@")) for n in names)
    assert '\'=HYPERLINK("http://x")' in names


def test_history_lists_a_hostile_row_inert_and_whole_when_piped(tmp_path, capsys):
    from tuiperf.results.history import History

    path = tmp_path / "h.sqlite"
    long_value = "v" * 70
    plain = factories.result({"jit": factories.steady(1000.0)}, scenario="tiny", params={"p": long_value})
    with History(path) as history:
        history.add(factories.hostile(rich_result()))
        history.add(plain)
    assert main(["--history", str(path), "history"]) == 0
    out = capsys.readouterr().out
    assert raw_controls(out) == []
    # piped: nothing cut; a value longer than the line continues on the next one, indented
    assert long_value in re.sub(r"\n +", "", out) and "…" not in out


def test_compare_with_statistics_but_no_samples_names_the_variant_instead_of_a_traceback(tmp_path, capsys):
    old = factories.result({"jit": factories.steady(1000.0), "eager": factories.steady(2000.0)}, scenario="tiny")
    new = factories.result({"jit": factories.steady(1100.0), "eager": factories.steady(2000.0)}, scenario="tiny")
    kept = new.variants[0]
    new.variants[0] = msgspec.structs.replace(kept, sampling=msgspec.structs.replace(kept.sampling, samples_ns=[]))
    paths = [resultfile.save(doc, tmp_path / f"{i}.json") for i, doc in enumerate((old, new))]
    assert main(["compare", *map(str, paths)]) == 0
    out, err = capsys.readouterr()
    assert "eager" in out and "jit: no samples stored" in err


def test_markdown_prints_each_warning_once_and_every_point_of_a_sweep():
    from tuiperf.results.export import markdown

    points = [factories.result({"a": factories.steady(m)}, params={"n": n}) for n, m in ((1, 1000.0), (8, 4000.0))]
    points[0].variants[0].warnings.append("noisy")
    points[0].warnings.append("a: noisy")
    sweep = document.sweep_result("n", [1, 8], points, factories.header(params={"n": 1}), duration_s=2.0)
    text = markdown(sweep)
    assert text.count("noisy") == 1
    assert "### At `n=1`" in text and "### At `n=8`" in text and "| `a` | 1.00 µs |" in text
    assert "| `a` | 4.00 µs |" in text
    single = factories.result({"a": factories.steady(1000.0)})
    single.variants[0].warnings.append("noisy")
    single.warnings.append("a: noisy")
    assert markdown(single).count("noisy") == 1


@pytest.mark.parametrize(
    "data",
    [
        b'{"schema_version": 2, "scenario": {"id": "\xff\xfe"}}',
        b'{"schema_version": 1, "variants": [[1]]}',
        b'{"schema_version": 1, "env": {"jax": 1}, "runs": [3]}',
        b'{"schema_version": 1, "variants": [{"stages_ms": [1]}]}',
    ],
)
def test_a_malformed_file_is_one_error_line(data, tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    assert main(["show", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tuiperf: ") and err.count("\n") == 1


@pytest.mark.parametrize(
    "grow, message",
    [
        (
            lambda d: d["variants"].extend([dict(d["variants"][0], name=f"v{i}") for i in range(300)]),
            "$.variants has more than 200 entries",
        ),
        (lambda d: d["variants"][0].update(name="x" * 2_000), "$.variants[0].name has more than 1,000 characters"),
        (lambda d: d["warnings"].append("w" * 200_000), "$.warnings[0] has more than 100,000 characters"),
    ],
)
def test_a_document_beyond_what_a_real_result_reaches_is_refused_at_once(grow, message, tmp_path, capsys):
    import json

    import msgspec

    doc = msgspec.to_builtins(factories.result({"jit": factories.steady(1000.0)}))
    doc["warnings"] = []
    grow(doc)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc))
    assert main(["show", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("width", ["200", "40"])
def test_a_hostile_run_over_several_environments_is_printed_and_exported_inert(width, tmp_path, capsys):
    from pathlib import Path

    two = resultfile.load(Path(__file__).parent / "fixtures" / "results" / "two-environments.json")
    path = resultfile.save(factories.hostile(two), tmp_path / "theirs.json")
    assert main(["show", str(path), "--width", width]) == 0
    assert main(["export", str(path), "--format", "markdown"]) == 0
    out, err = capsys.readouterr()
    assert raw_controls(out + err) == []
    assert "[link=file:///etc/passwd]x[/link]" in out and "environments (the first is the reference)" in out


def test_markdown_writes_tuiperfs_own_backticked_words_as_code_and_escapes_the_rest():
    """'run `tuiperf calibrate`' showed literal backticks on GitHub: each backtick was escaped."""
    from tuiperf.results.export import markdown

    single = factories.result({"a": factories.steady(1000.0)})
    single.warnings.append("a: retry with `--samples 400` or *more*")
    single.warnings.append("b: an unpaired ` and <b>")
    text = markdown(single)
    assert "retry with `--samples 400` or \\*more\\*" in text
    assert "an unpaired \\` and \\<b\\>" in text
    assert "\\`" not in text.replace("unpaired \\`", "")
