"""Result files: the schema matches the model, old files are upgraded, bad files are one line, saves
never clobber and never leave half a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import factories
import msgspec
import pytest

from tuiperf.common.errors import TuiperfError
from tuiperf.results import resultfile
from tuiperf.results.model import SCHEMA_VERSION, RunResult

ROOT = Path(__file__).resolve().parent.parent
V1 = Path(__file__).parent / "fixtures" / "results"


def test_committed_schema_matches_the_model():
    """Fails when the model changes without `python scripts/gen_schema.py`."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_schema.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},  # this checkout's model, not an installed tuiperf's
    )
    assert done.returncode == 0, done.stderr


def test_a_result_round_trips_through_a_file(tmp_path):
    result = factories.result({"a": factories.steady(1000), "b": factories.steady(2500)}, params={"n": 3})
    path = resultfile.save(result, tmp_path / "r.json")
    loaded = resultfile.load(path)
    assert loaded == result
    assert loaded.variant("b").sampling.stats.median_ns == pytest.approx(2500, rel=1e-3)
    assert json.loads(path.read_text())["schema_version"] == SCHEMA_VERSION


def test_version_1_files_are_upgraded():
    result = resultfile.load(V1 / "v1_tiny_sin_result.json")
    assert [(v.name, v.status) for v in result.variants] == [("jit", "ok"), ("aot", "ok"), ("broken", "failed")]
    jit = result.variant("jit")
    assert jit.sampling.stats is not None and jit.sampling.stats.median_ns == pytest.approx(8446.0)
    assert jit.breakdown is not None and set(jit.breakdown.stages) == {
        "framework",
        "jit_dispatch",
        "launch",
        "compute",
    }
    assert result.env is not None and result.env.packages["jax"] == "0.10.2"
    sweep = resultfile.load(V1 / "v1_tiny_sin_sweep.json")
    assert sweep.sweep is not None and sweep.sweep.values == [8, 256, 4096]
    assert [p.params["size"] for p in sweep.points] == [8, 256, 4096]
    assert sweep.variants == [] and sweep.shown is sweep.points[-1]


def test_older_documents_load_with_the_options_they_meant():
    # a document from before an option existed means what tuiperf did then, not a new run's default
    before = resultfile.load(V1 / "v2_tiny_sweep_before_settings_table.json")  # written with options.more
    for run in (before, *before.points):
        assert (run.options.timeout_s, run.options.sweep_order, run.options.samples) == (5.0, "interleaved", 5)
        assert (run.options.profile, run.options.variants, run.options.dispatch) == (False, ["jax.jit"], "sync")
    assert resultfile.decode(resultfile.encode(before)) == before
    no_sweep_order = resultfile.load(V1 / "two-environments.json")  # written before --sweep-order
    assert (no_sweep_order.options.sweep_order, no_sweep_order.options.timeout_s) == ("sequential", 60.0)
    v1 = resultfile.load(V1 / "v1_tiny_sin_sweep.json")  # before --timeout and --sweep-order
    for run in (v1, *v1.points):
        assert (run.options.timeout_s, run.options.sweep_order, run.options.samples) == (None, "sequential", 20)
    bare = resultfile.decode(b'{"schema_version": 2, "scenario": {"id": "s"}, "device": {"id": "c"}}')
    assert (bare.options.timeout_s, bare.options.sweep_order, bare.options.budget_s) == (None, "sequential", 3.0)


OLDER = sorted(p for p in V1.glob("*.json") if json.loads(p.read_text())["schema_version"] < SCHEMA_VERSION)


@pytest.mark.parametrize("path", OLDER, ids=lambda p: p.stem)
def test_older_files_are_shown_as_the_tuiperf_that_wrote_their_version_showed_them(path, capsys):
    """``tuiperf show`` of each version-1 and version-2 file prints what it printed before results were
    stored in parts (fixtures/results/shown/, printed by that tuiperf: medians, failures, stages,
    breakdowns, profiles, warnings)."""
    from tuiperf.cli import main

    assert main(["show", str(path), "--width", "120", "--profiles"]) == 0
    assert capsys.readouterr().out == (V1 / "shown" / f"{path.stem}.txt").read_text()


def test_older_files_of_both_versions_are_held_as_fixtures():
    assert {json.loads(p.read_text())["schema_version"] for p in OLDER} == {1, 2}


def test_the_schema_gives_what_an_absent_option_meant():
    schema = json.loads((ROOT / "tuiperf" / "results" / "result.schema.json").read_text())
    stored = schema["$defs"]["RunOptions"]["properties"]
    assert (stored["timeout_s"]["default"], stored["sweep_order"]["default"]) == (None, "sequential")
    assert stored["budget_s"]["default"] == 3.0 and "more" not in stored


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not a JSON result document"),
        (b"\xff\xfe{", "not a JSON result document"),
        (b"[1, 2]", "a JSON list, not an object"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"schema_version": 99}', "unsupported schema_version 99"),
        (b'{"schema_version": 2}', "Object missing required field `scenario`"),
        (
            b'{"schema_version": 2, "scenario": {"id": "s"}, "device": {"id": "c"}, "variants": [{"name": 3}]}',
            "Expected `str`, got `int` - at `$.variants[0].name`",
        ),
    ],
)
def test_a_bad_file_is_one_line_naming_the_problem(tmp_path, data, message):
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    with pytest.raises(TuiperfError) as info:
        resultfile.load(path)
    assert message in str(info.value) and str(path) in str(info.value) and "\n" not in str(info.value)


def test_saving_refuses_to_replace_a_file_unless_forced(tmp_path):
    path = tmp_path / "r.json"
    first = factories.result({"a": factories.steady(1000)})
    resultfile.save(first, path)
    with pytest.raises(TuiperfError, match="exists already"):
        resultfile.save(factories.result({"a": factories.steady(2000)}), path)
    assert resultfile.load(path) == first
    resultfile.save(factories.result({"a": factories.steady(2000)}), path, force=True)
    assert resultfile.load(path).variant("a").sampling.stats.median_ns == pytest.approx(2000, rel=1e-3)


def test_saving_into_a_folder_or_nowhere_is_refused_before_writing(tmp_path):
    with pytest.raises(TuiperfError, match="is a folder"):
        resultfile.save(factories.result({"a": [1.0]}), tmp_path)
    with pytest.raises(TuiperfError, match="empty"):
        resultfile.save(factories.result({"a": [1.0]}), "")


KILL_DURING_SAVE = r"""
import os, signal, sys, threading
sys.path.insert(0, {tests!r})
import factories
from tuiperf.results import resultfile
big = factories.result({{f"v{{i}}": list(range(200_000)) for i in range(10)}})
threading.Timer(0.05, lambda: os.kill(os.getpid(), signal.SIGKILL)).start()
resultfile.save(big, {path!r}, force=True)
"""


@pytest.mark.slow
def test_a_process_killed_while_saving_leaves_the_old_file(tmp_path):
    path = tmp_path / "r.json"
    old = factories.result({"a": factories.steady(1000)})
    resultfile.save(old, path)
    script = KILL_DURING_SAVE.format(tests=str(Path(__file__).parent), path=str(path))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert done.returncode == -9
    assert resultfile.load(path) == old
    leftovers = [p for p in os.listdir(tmp_path) if p != "r.json"]
    assert all(p.startswith(".r.json.") for p in leftovers)  # at most a temporary file, never a torn result


def test_the_document_is_typed_everywhere():
    result = factories.result({"a": factories.steady(1000)})
    assert isinstance(msgspec.json.decode(resultfile.encode(result), type=RunResult), RunResult)
