"""`tuiperf check FILE`: what a run would find, from a loader process and the smallest run; exit 0/1/2."""

import os
import sys
from pathlib import Path

import pytest
from test_scenarios import TINY

from tuiperf.catalog.folders import builtin_dir
from tuiperf.cli import main
from tuiperf.cli.check import BAD_INPUT, FAILS, FINE, check_file
from tuiperf.measuring.inprocess import InProcessRunner
from tuiperf.measuring.loading import describe_file

FIXTURES = Path(__file__).parent / "fixtures"
ONE_FAILS = FIXTURES / "check" / "one_fails.py"
BROKEN = {  # every broken-file case of test_catalog, and the ones scenario authors met (issue 40)
    "syntax.py": ("x = (\n", "SyntaxError"),
    "imports.py": ("import not_a_real_module_xyz\n", "ModuleNotFoundError"),
    "declares.py": (
        "from tuiperf import Scenario, Int\nscenario = Scenario('t', 'q', params=dict(n=Int(0, min=1)))\n",
        "n: default 0 is below the minimum 1",
    ),
    "novariants.py": ("from tuiperf import Scenario\nscenario = Scenario('t', 'q')\n", "declares no variants"),
    "noscenario.py": ("x = 1\n", "must define `scenario = Scenario(...)`"),
    "spaces.py": (
        "from tuiperf import Scenario\nscenario = Scenario('t', 'q')\n@scenario.variant('a b')\ndef _(p, c): ...\n",
        "without spaces or commas",
    ),
    "misspelt.py": (
        "from tuiperf import Scenario\nscenario = Scenario('t', 'q', param={})\n",
        "unexpected keyword argument 'param'",
    ),
}


@pytest.fixture(scope="module")
def runner():
    return InProcessRunner()


def check(path, runner, values=None):
    return check_file(Path(path), describe_file, runner, values)


# Two built-ins here: every built-in's smallest run of every variant is tests/test_scenarios.py's job,
# which `check` repeats (eight took a fifth of this file's time).
@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["dispatch-floor", "training-step"])
def test_builtins_check_fine(runner, scenario, capsys):
    path = builtin_dir() / f"{scenario.replace('-', '_')}.py"
    assert check(path, runner, TINY[scenario]) == FINE
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith(f"{scenario}: ") and "fine: a run would measure every variant" in out
    assert "FAILED" not in out


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_file_that_does_not_load_is_bad_input_with_its_reason(tmp_path, runner, name, capsys):
    text, reason = BROKEN[name]
    (tmp_path / name).write_text(text)
    assert check(tmp_path / name, runner) == BAD_INPUT
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and f"{name}" in out and "does not load" in out and reason in out


def test_a_failing_variant_is_named_and_the_others_still_checked(runner, capsys):
    assert check(ONE_FAILS, runner) == FAILS
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"one-fails: One variant fails ({ONE_FAILS.resolve()})"
    assert lines[1] == "  ok       fine"
    assert lines[2].startswith("  FAILED   fails (compile): one_fails.py:18: TypeError:")
    assert lines[3] == "  skipped  skips: this variant needs a library that is not installed"
    assert lines[-1] == "FAILED: a run would report the failures above"


@pytest.mark.slow
def test_the_guard_finding_an_unfair_pair_fails_the_check(runner, capsys):
    assert check(FIXTURES / "scenarios" / "unfair.py", runner) == FAILS
    out = capsys.readouterr().out
    assert "guard: diagonal differs from dense in" in out


def test_a_setup_that_raises_fails_the_check(tmp_path, runner, capsys):
    path = tmp_path / "setup_raises.py"
    path.write_text(
        "from tuiperf import Bench, Scenario\nscenario = Scenario('t', 'q')\n"
        "@scenario.setup\ndef build(p):\n    raise RuntimeError('no data here')\n"
        "@scenario.variant('a')\ndef _(p, ctx):\n    return Bench(abs, -1)\n"
    )
    assert check(path, runner) == FAILS
    out = capsys.readouterr().out
    assert "FAILED: " in out and "setup failed" in out and "no data here" in out


@pytest.mark.slow
def test_the_command_uses_disposable_processes_and_exits_0_1_2(tmp_path, capsys):
    """End to end through the loader and a measuring process: a failing variant, a file that kills its
    loader, a missing file, a bad parameter value."""
    assert main(["check", str(ONE_FAILS)]) == FAILS
    assert "  FAILED   fails (compile)" in capsys.readouterr().out
    assert main(["check", str(FIXTURES / "hostile" / "exits_os.py")]) == BAD_INPUT
    out = capsys.readouterr().out
    assert "exits_os.py: does not load: exited with status" in out and out.count("\n") == 1
    assert main(["check", str(tmp_path / "missing.py")]) == BAD_INPUT
    assert "missing.py: no such scenario file" in capsys.readouterr().err
    first = Path(__file__).parent.parent / "docs" / "examples" / "first_scenario.py"
    assert main(["check", str(first), "--set", "size=0"]) == BAD_INPUT
    assert "size" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="SIGSEGV as the loader reports it on Linux")
def test_a_file_that_crashes_its_loader_is_one_line(capsys):
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    assert main(["check", str(FIXTURES / "hostile" / "segfaults.py")]) == BAD_INPUT
    assert "segfaults.py: does not load: was killed by SIGSEGV at import" in capsys.readouterr().out


def test_the_guards_agreement_counts_the_variants_other_than_its_reference(capsys):
    """`tuiperf check docs/examples/first_scenario.py` said "guard: 2 equivalent variants agree with jit"
    of jit and eager: jit counted as agreeing with itself."""
    import msgspec
    from factories import result

    from tuiperf.cli.check import report
    from tuiperf.results.model import Equivalence

    run = result({"jit": [1000.0] * 20, "eager": [6000.0] * 20})
    run = msgspec.structs.replace(run, equivalence=Equivalence(reference="jit", checked=["jit", "eager"]))
    report(run)
    assert "guard: 1 other variant agrees with jit\n" in capsys.readouterr().out
    run = msgspec.structs.replace(run, equivalence=Equivalence(reference="jit", checked=["jit", "eager", "aot"]))
    report(run)
    assert "guard: 2 other variants agree with jit\n" in capsys.readouterr().out
