"""The exported script runs the verified scenario source and nothing else: a result's texts enter it
as literals only, and no path a result names is ever read."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import factories
import msgspec
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


def run_script(text: str, tmp_path) -> subprocess.CompletedProcess:
    """The script, run by this Python with tuiperf made unimportable (it must not need it)."""
    path = tmp_path / "repro.py"
    path.write_text(text)
    packages = [f"tuiperf.{p}" for p in ("common", "api", "results", "catalog", "contract", "measuring")]
    block = f"import sys; sys.modules.update(dict.fromkeys({['tuiperf', *packages]!r})); sys.argv = ['repro', '0.02']; "
    block += f"exec(compile(open({str(path)!r}).read(), 'repro', 'exec'), {{'__name__': '__main__'}})"
    return subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=300)


def two_environment_result():
    """A run of tiny in the environments current and B: each variant once per environment, qualified."""
    from tuiperf.results.environments import qualified

    samples = {
        qualified(v, e): factories.steady(m)
        for e in ("current", "B")
        for v, m in (("jax.jit", 1e3), ("eqx.filter_jit", 3e3))
    }
    run = factories.result(samples, scenario="tiny", params={"size": 4})
    run.variants = [msgspec.structs.replace(v, environment=v.name.rpartition(" @ ")[2]) for v in run.variants]
    run.scenario.source_sha256 = file_sha256(TINY)
    return run


@pytest.mark.slow
def test_the_script_of_a_two_environment_run_times_each_variant_once_beside_both_stored_medians(fixture_dir, tmp_path):
    done = run_script(script(two_environment_result(), scenario_files([fixture_dir])), tmp_path)
    assert done.returncode == 0, done.stderr  # KeyError: 'jax.jit @ current' before
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[2:]}
    assert set(rows) == {"jax.jit", "eqx.filter_jit"}
    assert rows["jax.jit"].endswith("1 µs @ current · 1 µs @ B")
    assert rows["eqx.filter_jit"].endswith("3 µs @ current · 3 µs @ B")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("params", "variant", "said"),
    [
        ({"size": 4}, "nope", "the stored variant nope is not one the scenario defines: not run"),
        ({"size": "four"}, "jax.jit", "the stored parameter size='four' is not an integer: not run"),
        ({"size": [4]}, "jax.jit", "the stored parameter size=[4] is not an integer: not run"),
        ({"size": 10**9}, "jax.jit", "the stored parameter size=1000000000 is outside 1..4096: not run"),
        ({"op": "tan"}, "jax.jit", "the stored parameter op='tan' is not one of the choices: not run"),
        ({"evil": 1}, "jax.jit", "the stored parameter evil=1 is not a parameter of the scenario: not run"),
    ],
)
def test_the_script_refuses_in_one_line_what_the_scenario_does_not_take(params, variant, said, fixture_dir, tmp_path):
    run = factories.result({variant: factories.steady(1000.0)}, scenario="tiny", params=params)
    run.scenario.source_sha256 = file_sha256(TINY)
    done = run_script(script(run, scenario_files([fixture_dir])), tmp_path)
    assert (done.returncode, done.stderr.strip()) == (1, said)
