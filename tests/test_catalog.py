"""GIVEN scenario folders with good and broken files WHEN loading THEN each broken one is reported alone."""

from pathlib import Path

import pytest

from tuiperf.catalog.folders import builtin_dir
from tuiperf.common.errors import ScenarioError, UnknownScenario
from tuiperf.measuring.loading import load_catalog

GOOD = """
from tuiperf import Scenario, Bench, Int
scenario = Scenario(title="Good", question="q", params=dict(n=Int(1, min=1)))
@scenario.variant("a")
def a(p, ctx):
    return Bench(abs, -1)
"""


def write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(text)


def test_broken_files_are_reported_with_file_line_and_message(tmp_path):
    write(tmp_path, "good.py", GOOD)
    write(tmp_path, "syntax.py", "x = (\n")
    write(tmp_path, "imports.py", "import not_a_real_module_xyz\n")
    write(
        tmp_path,
        "declares.py",
        "from tuiperf import Scenario, Int\n\n"
        "scenario = Scenario(title='t', question='q',\n    params=dict(n=Int(0, min=1)))\n",
    )
    write(tmp_path, "novariants.py", "from tuiperf import Scenario\nscenario = Scenario(title='t', question='q')\n")
    write(tmp_path, "noscenario.py", "x = 1\n")
    write(tmp_path, "_helper.py", "raise RuntimeError('never imported')\n")
    catalog = load_catalog([str(tmp_path)])
    assert "good" in catalog.scenarios
    broken = {Path(b.path).name: b for b in catalog.broken}
    assert set(broken) == {"syntax.py", "imports.py", "declares.py", "novariants.py", "noscenario.py"}
    assert broken["syntax.py"].line == 1 and "SyntaxError" in broken["syntax.py"].error
    assert broken["imports.py"].line == 1 and "ModuleNotFoundError" in broken["imports.py"].error
    assert broken["declares.py"].line == 3 and "n: default 0 is below the minimum 1" in broken["declares.py"].error
    assert "declares no variants" in broken["novariants.py"].error
    assert "must define `scenario = Scenario(...)`" in broken["noscenario.py"].error
    with pytest.raises(ScenarioError, match=r"syntax\.py:1"):
        catalog.get("syntax")
    with pytest.raises(UnknownScenario, match=r"known: .*good"):
        catalog.get("missing")


def test_environment_variable_adds_folders(tmp_path, monkeypatch):
    write(tmp_path, "from_env.py", GOOD)
    monkeypatch.setenv("TUIPERF_SCENARIOS", str(tmp_path))
    assert "from-env" in load_catalog().scenarios


def test_builtin_scenarios_all_load():
    catalog = load_catalog()
    assert builtin_dir().name in ("scenarios", "builtin_scenarios")
    assert not catalog.broken, [str(b) for b in catalog.broken]
    assert "dispatch-floor" in catalog.scenarios
