"""`tuiperf new` templates run as written, and a user's copy of a built-in shadows it visibly."""

import shutil

import pytest

from tuiperf.catalog.folders import builtin_dir
from tuiperf.catalog.templates import TEMPLATES, new_scenario
from tuiperf.cli import main
from tuiperf.common.errors import ParamError, TuiperfError
from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.measuring.inprocess import InProcessRunner
from tuiperf.measuring.loading import load_catalog

TINY = {"plain-jax": {"size": "8"}, "eqx-vs-flax": {"width": "4", "batch": "2"}, "training-step": {"width": "4"}}


def test_every_template_has_tiny_sizes_here():
    assert {t.name for t in TEMPLATES} == set(TINY)


@pytest.mark.slow
@pytest.mark.parametrize("template", sorted(TINY))
def test_a_new_scenario_runs_with_every_variant_ok_and_the_guard_quiet(tmp_path, template):
    path = new_scenario("mine", tmp_path, template)
    assert path == tmp_path / "mine.py" and 'title="Mine"' in path.read_text()
    doc = InProcessRunner([str(tmp_path)]).run(
        RunRequest(
            scenario="mine", params=TINY[template], settings=RunSettings(samples=5, profile=False, dispatch="sync")
        )
    )
    assert [v.name for v in doc.variants if not v.ok] == [] and len(doc.variants) == 2
    assert doc.equivalence.mismatches == [] and len(doc.equivalence.checked) == 2


def test_new_never_overwrites_and_checks_the_name(tmp_path):
    new_scenario("mine", tmp_path)
    with pytest.raises(TuiperfError, match="exists already"):
        new_scenario("mine", tmp_path)
    with pytest.raises(ParamError, match="not a scenario name"):
        new_scenario("My Scenario", tmp_path)
    with pytest.raises(ParamError, match="no template 'nope'"):
        new_scenario("other", tmp_path, "nope")


def test_tuiperf_new_prints_the_path_in_the_user_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TUIPERF_USER_SCENARIOS", str(tmp_path / "mine"))
    assert main(["new", "my-step", "--template", "training-step"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "mine" / "my_step.py")
    assert main(["new", "my-step"]) == 2 and "exists already" in capsys.readouterr().err


def test_a_user_copy_of_a_builtin_shadows_it_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("TUIPERF_USER_SCENARIOS", str(tmp_path))
    copy = tmp_path / "dispatch_floor.py"
    shutil.copy(builtin_dir() / "dispatch_floor.py", copy)
    described = load_catalog().describe()
    entry = described.scenario("dispatch-floor")
    assert entry is not None and entry.origin == "shadows built-in" and entry.path == str(copy)
    assert entry.shadows == str(builtin_dir() / "dispatch_floor.py") and described.broken == []
    others = [s.origin for s in described.scenarios if s.id != "dispatch-floor"]
    assert others and set(others) == {"built-in"}


def test_tuiperf_new_writes_into_the_first_folder_of_tuiperf_scenarios(tmp_path, monkeypatch, capsys):
    import os

    monkeypatch.setenv("TUIPERF_USER_SCENARIOS", str(tmp_path / "mine"))
    monkeypatch.setenv("TUIPERF_SCENARIOS", os.pathsep.join(["", str(tmp_path / "first"), str(tmp_path / "second")]))
    assert main(["new", "my-mlp"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "first" / "my_mlp.py")
    assert main(["--scenarios", str(tmp_path / "flag"), "new", "other"]) == 0  # a --scenarios folder comes first
    assert capsys.readouterr().out.strip() == str(tmp_path / "flag" / "other.py")
