"""The command line's conventions: --version, help on every option, each shared flag declared once with one
meaning, options only where they mean something, exit statuses in the help."""

import argparse
import json

import factories
import pytest

from tuiperf.cli import build_parser, flags, main, parse_args
from tuiperf.common.version import __version__


def every_option():
    """(command path, action) for every visible option and positional of every command."""

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, [*path, name])
            elif action.help != argparse.SUPPRESS:
                yield " ".join(path) or "tuiperf", parser, action

    return list(walk(build_parser(), []))


def test_version(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0 and capsys.readouterr().out.strip() == f"tuiperf {__version__}"


def test_every_option_has_help_and_no_empty_default():
    for command, parser, action in every_option():
        if isinstance(action, argparse._HelpAction | argparse._VersionAction):
            continue
        text = parser._get_formatter()._expand_help(action) if action.help else ""
        where = f"{command} {'/'.join(action.option_strings) or action.dest}"
        assert text.strip(), f"{where}: no help"
        assert "(default )" not in text and "(default: )" not in text and text.count("(default") <= 1, where


def test_each_shared_flag_means_one_thing_everywhere():
    seen: dict[str, set] = {}
    for _, _, action in every_option():
        for flag in action.option_strings:
            seen.setdefault(flag, set()).add((type(action).__name__, action.type, action.metavar))
    assert seen["--width"] == {("_StoreAction", flags.columns, "COLUMNS")}
    assert seen["--json"] == {("_StoreTrueAction", None, None)}  # print JSON: list, devices, history, env list
    assert seen["--force"] == {("_StoreTrueAction", None, None)}
    helps = {a.help for _, _, a in every_option() if "--force" in a.option_strings}
    assert all(h.startswith("replace ") for h in helps), helps


def test_no_history_only_where_a_run_is_stored(capsys):
    stored = {c for c, _, a in every_option() if "--no-history" in a.option_strings}
    assert stored == {"tuiperf", "app", "serve", "run", "time"}  # serve: the app in a browser tab
    with pytest.raises(SystemExit) as stopped:
        parse_args(["show", "3", "--no-history"])
    assert stopped.value.code == 2 and "unrecognized arguments: --no-history" in capsys.readouterr().err


def test_the_app_takes_screenshots_before_or_after_the_command():
    assert parse_args(["app", "--screenshots", "shots"]).screenshots == "shots"
    assert parse_args(["--screenshots", "shots", "app"]).screenshots == "shots"
    assert parse_args(["--screenshots", "shots"]).screenshots == "shots"
    assert parse_args([]).screenshots is None  # the app picks its default folder, outside any checkout


def test_screenshot_sweeps_as_run_does():
    from tuiperf.cli.measure import request_from

    args = parse_args(["screenshot", "tiny", "--sweep", "n=1,2", "--out", "x.svg"])
    assert request_from(args).sweep == ("n", ["1", "2"])


def test_new_replaces_a_file_only_with_force(tmp_path, capsys):
    assert main(["new", "mine", "--dir", str(tmp_path)]) == 0
    (tmp_path / "mine.py").write_text("edited")
    assert main(["new", "mine", "--dir", str(tmp_path)]) == 2
    assert "pass --force to replace it" in capsys.readouterr().err
    assert main(["new", "mine", "--dir", str(tmp_path), "--force"]) == 0
    assert "Scenario(" in (tmp_path / "mine.py").read_text()


def test_compare_of_other_scenarios_is_any_scenario(tmp_path, capsys):
    from tuiperf.results import resultfile

    old, other = tmp_path / "old.json", tmp_path / "other.json"
    resultfile.save(factories.result({"v": factories.steady(1000)}), old)
    resultfile.save(factories.result({"v": factories.steady(1000)}, scenario="t"), other)
    assert main(["compare", str(old), str(other)]) == 2
    assert "pass --any-scenario" in capsys.readouterr().err
    assert main(["compare", str(old), str(other), "--any-scenario"]) == 0


@pytest.mark.slow
def test_run_writes_its_document_with_out_and_the_older_json(fixture_dir, tmp_path):
    base = ["run", "tiny", "--scenarios", fixture_dir, "--in-process", "--samples", "3", "--no-profile"]
    assert main([*base, "--variants", "jax.jit", "--out", str(tmp_path / "a.json"), "--no-history"]) == 0
    assert main([*base, "--variants", "jax.jit", "--json", str(tmp_path / "b.json"), "--no-history"]) == 0
    for name in ("a.json", "b.json"):
        assert json.loads((tmp_path / name).read_text())["scenario"]["id"] == "tiny"


def test_the_help_says_the_exit_statuses(capsys):
    for argv in (["--help"], ["run", "--help"], ["check", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        out = capsys.readouterr().out
        assert "exit status:" in out and "1    a variant failed" in out and "2    bad input" in out


def test_shell_completion_is_built_from_the_parser(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--print-completion", "bash"])
    script = capsys.readouterr().out
    assert stopped.value.code == 0 and "complete" in script
    assert "check" in script and "--any-scenario" in script and "--sweep-order" in script


def _entries():
    from tuiperf.contract.catalog import ParamSpec, ScenarioEntry, VariantEntry

    return [
        ScenarioEntry(
            id="floor",
            title="t",
            path="floor.py",
            params=[ParamSpec(name="size", kind="int", default=8), ParamSpec(name="depth", kind="int", default=2)],
            variants=[VariantEntry(name="jax.jit"), VariantEntry(name="aot")],
        ),
        ScenarioEntry(id="other", title="t", path="other.py"),
    ]


@pytest.mark.parametrize(
    ("kind", "line", "expected"),
    [
        ("ids", "tuiperf run ", ["floor", "other"]),
        ("variants", "tuiperf run floor --variants ", ["jax.jit", "aot"]),
        ("variants", "tuiperf --dispatch sync run --set size=3 floor --variants jax.jit,", ["jax.jit,aot"]),
        ("params", "tuiperf run floor --set ", ["size=", "depth="]),
        ("params", "tuiperf screenshot floor --set d", ["size=", "depth="]),
        ("params", "tuiperf run nope --set ", []),
        ("variants", "tuiperf run 'floor --variants ", []),  # an open quote: nothing to read yet
    ],
)
def test_completion_offers_the_catalogs_ids_and_the_named_scenarios_variants_and_parameters(kind, line, expected):
    from tuiperf.cli.completion import words

    assert words(kind, line, _entries(), build_parser) == expected


@pytest.mark.parametrize("shell", ["zsh", "tcsh", "fish"])
def test_every_shells_script_asks_tuiperf_for_the_words_with_its_own_name_for_the_line(shell, capsys):
    with pytest.raises(SystemExit):
        main(["--print-completion", shell])
    script = capsys.readouterr().out
    line = {"zsh": "$BUFFER", "tcsh": '"$COMMAND_LINE"', "fish": "(commandline)"}[shell]
    for kind in ("ids", "variants", "params"):
        assert f"tuiperf list --complete {kind} --line {line}" in script


@pytest.mark.slow
def test_bash_completes_a_scenarios_variants_and_parameters(tmp_path):
    """Driven as bash drives it: the script sourced, the words of a partial line set, its function called."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = r"""
source <(tuiperf --print-completion bash)
ask() { COMP_LINE="$1"; read -ra COMP_WORDS <<< "$1"; [[ "$1" == *" " ]] && COMP_WORDS+=(""); \
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_POINT=${#COMP_LINE}; COMPREPLY=(); _shtab_tuiperf; \
  echo "$1|${COMPREPLY[*]}"; }
ask "tuiperf run tiny-s"
ask "tuiperf --scenarios $HERE run tiny-sin --variants jit,"
ask "tuiperf run tiny-sin --set s"
"""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    env["HERE"] = str(Path(__file__).parent / "tui" / "scenarios")
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=120).stdout
    here = env["HERE"]
    assert out.splitlines() == [
        "tuiperf run tiny-s|",  # not a built-in's id, and no --scenarios named
        f"tuiperf --scenarios {here} run tiny-sin --variants jit,|jit,aot jit,broken",
        "tuiperf run tiny-sin --set s|",  # its folder not named: no such scenario
    ]
