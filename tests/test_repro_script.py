"""The exported script runs the verified scenario source and nothing else: a result's texts enter it
as literals only, and no path a result names is ever read."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import factories
import pytest

from tuiperf.catalog.folders import file_sha256, scenario_files
from tuiperf.common.errors import TuiperfError
from tuiperf.results.repro import script

TINY = Path(__file__).parent / "fixtures" / "scenarios" / "tiny.py"


def tiny_result():
    run = factories.result(
        {"jit": factories.steady(1000.0), "eager": factories.steady(3000.0)}, scenario="tiny", params={"size": 4}
    )
    run.env.packages["flax"] = "0.12.8"
    return run


def code_shape(text: str) -> str:
    """The script's syntax tree with every constant's value blanked: what it does, not what it says."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant):
            node.value = None
    return ast.dump(tree)


def test_hostile_texts_in_a_result_change_no_code_of_the_script(fixture_dir):
    benign = tiny_result()
    benign.scenario.source_sha256 = file_sha256(TINY)
    hostile = factories.hostile(benign)
    hostile.scenario.source_sha256 = benign.scenario.source_sha256  # the same verified source
    hostile.scenario.id = "tiny"  # found by id first; its other texts stay hostile
    good, bad = script(benign, scenario_files([fixture_dir])), script(hostile, scenario_files([fixture_dir]))
    assert code_shape(bad) == code_shape(good)
    assert "os.system" not in good and bad.count("os.system") == bad.count("pwned")  # only inside literals
    assert not any((ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0 for c in bad)


def test_the_source_is_written_out_as_reviewable_python_and_rechecked(fixture_dir):
    benign = tiny_result()
    benign.scenario.source_sha256 = file_sha256(TINY)
    text = script(benign, scenario_files([fixture_dir]))
    source = TINY.read_text()
    assert f"SOURCE = r'''{source}'''" in text  # line for line as the file reads
    namespace: dict = {}
    constants = text[: text.index("\n# ---- a stand-in")]
    exec(compile(constants, "script", "exec"), namespace)
    assert namespace["SOURCE"] == source and namespace["SOURCE_SHA256"] == benign.scenario.source_sha256


@pytest.mark.parametrize("recorded", [None, "", "0" * 63, "../../etc/passwd"])
def test_a_result_without_a_verifiable_hash_gets_no_script_and_no_file_is_read(recorded, tmp_path, monkeypatch):
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)  # reading it would hang the export
    run = tiny_result()
    run.scenario.path, run.scenario.source_sha256 = str(fifo), recorded
    opened: list[str] = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda path, *a, **k: opened.append(str(path)) or real_open(path, *a, **k))
    with pytest.raises(TuiperfError, match="records no SHA-256 of its scenario file"):
        script(run, scenario_files([str(tmp_path)]))
    assert str(fifo) not in opened


def test_a_path_named_by_the_result_is_never_read_even_with_a_hash(tmp_path):
    secret = tmp_path / "environ.py"
    secret.write_text("TOKEN = 'secret'\n")
    run = tiny_result()
    run.scenario.path, run.scenario.source_sha256 = str(secret), file_sha256(secret)
    with pytest.raises(TuiperfError, match="no scenario file here has the SHA-256"):
        script(run, scenario_files())  # the file is not in a scenario folder: its content never reaches a script
