"""The command line: exit status 2 and one line for user errors; JSON with the documented keys."""

import json
import os
import subprocess
import sys

import factories
import pytest

from tuiperf.cli import main


def tuiperf_process(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m tuiperf ARGS`` in a fresh process (its measuring process included), output captured."""
    return subprocess.run(
        [sys.executable, "-m", "tuiperf", *args], capture_output=True, text=True, timeout=120, env=env
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "nope"], "tuiperf: no scenario 'nope'"),
        (["run", "tiny", "--set", "size=abc"], "tuiperf: size: 'abc' is not an integer"),
        (["run", "tiny", "--set", "depth=3"], "tuiperf: unknown parameter 'depth'"),
        (["run", "tiny", "--device", "gpu:3"], "tuiperf: no device 'gpu:3'"),
        (["run", "tiny", "--sweep", "size"], "tuiperf: expected NAME=VALUE"),
        (["run", "tiny", "--env", "nope"], "tuiperf: no environment 'nope' (known: current"),
        (["run", "tiny", "--env", "current"], "tuiperf: --env measures in each environment's own process"),
    ],
)
def test_user_errors_exit_2_with_one_line(argv, message, fixture_dir, capsys):
    code = main([*argv[:2], "--scenarios", fixture_dir, "--in-process", *argv[2:]])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(message) and err.count("\n") == 1


@pytest.mark.slow
def test_run_writes_json_with_stable_keys(fixture_dir, tmp_path, capsys):
    out = tmp_path / "result.json"
    code = main(
        [
            "run",
            "tiny",
            "--scenarios",
            fixture_dir,
            "--in-process",
            "--dispatch",
            "sync",
            "--variants",
            "jax.jit,eqx.filter_jit",
            "--samples",
            "15",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    from tuiperf.results import resultfile

    doc = resultfile.load(out)  # validated against the typed model
    assert [v.name for v in doc.variants] == ["jax.jit", "eqx.filter_jit"]
    assert all(v.sampling.stats is not None and v.sampling.stats.n == 15 for v in doc.variants)
    raw = json.loads(out.read_text())
    one_time = {"trace", "lower", "compile", "first_call"}
    # --measure compile's: its repeats, the persistent cache, the program's size and tracing's profile
    repeated = {"repeated", "rounds", "stopped", "process_first_ms", "tiny_ms", "cache", "size", "trace_profile"}
    assert raw["schema_version"] == 3 and one_time | repeated == set(raw["variants"][0]["stages"])
    printed = capsys.readouterr().out
    assert "eqx.filter_jit" in printed and "median" in printed
    assert main(["run", "tiny", "--scenarios", fixture_dir, "--in-process", "--json", str(out)]) == 2
    assert "exists already" in capsys.readouterr().err  # never clobbered, and refused before the run


@pytest.mark.slow
def test_list_shows_broken_files(tmp_path, capsys):
    (tmp_path / "bad.py").write_text("x = (\n")
    assert main(["list", "--scenarios", str(tmp_path), "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["broken"][0]["line"] == 1 and "SyntaxError" in listing["broken"][0]["error"]
    assert "dispatch-floor" in {s["id"] for s in listing["scenarios"]}


def test_list_prints_the_cached_catalog_without_a_loader_where_no_file_changed(tmp_path, capsys, monkeypatch):
    """`tuiperf list` is what users run most to recall ids: from the catalog cache it starts no loader
    process (1.5 s of CPU before); --fresh imports every file again."""
    from tuiperf.catalog import cache
    from tuiperf.contract.catalog import Catalog, ScenarioEntry
    from tuiperf.processes.runner import ProcessRunner

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    cached = Catalog(scenarios=[ScenarioEntry(id="remembered", title="From the cache", path="r.py")])
    cache.store([str(tmp_path)], cached)
    loaded: list[object] = []

    def loader(self, scenario_dirs=None):
        loaded.append(scenario_dirs)
        return Catalog(scenarios=[ScenarioEntry(id="imported", title="Imported again", path="i.py")])

    monkeypatch.setattr(ProcessRunner, "catalog", loader)
    assert main(["list", "--scenarios", str(tmp_path), "--width", "100"]) == 0
    assert "remembered" in capsys.readouterr().out and loaded == []
    assert main(["list", "--scenarios", str(tmp_path), "--fresh", "--width", "100"]) == 0
    assert "imported" in capsys.readouterr().out and len(loaded) == 1
    (tmp_path / "new.py").write_text("")  # a file added: the cache no longer answers
    assert main(["list", "--scenarios", str(tmp_path), "--width", "100"]) == 0
    assert "imported" in capsys.readouterr().out and len(loaded) == 2


@pytest.mark.slow
def test_console_script_runs_in_a_fresh_process(fixture_dir):
    """The real entry point, worker process included: no traceback, exit 0."""
    done = tuiperf_process(
        "run", "tiny", "--scenarios", fixture_dir, "--variants", "jax.jit", "--samples", "10", "--no-profile"
    )
    assert done.returncode == 0, done.stderr
    assert "jax.jit" in done.stdout and "Traceback" not in done.stderr


@pytest.mark.slow
def test_device_choice_with_two_cpu_devices(fixture_dir, tmp_path):
    """JAX_NUM_CPU_DEVICES=2 gives two devices: the run happens on the one chosen, inputs included. In the
    measuring process the sampler is ten frames below its request loop: its calls are still made three
    frames deep (JAX records the calling stack's traceback on every call, so each frame costs), and a call
    with no array argument runs on the chosen device (the default-device scope reaches the sampling thread)."""
    out, depths = tmp_path / "result.json", tmp_path / "depths"
    env = {**os.environ, "JAX_NUM_CPU_DEVICES": "2", "TUIPERF_TEST_DEPTHS": str(depths)}
    listed = tuiperf_process("devices", "--json", env=env)
    assert [d["id"] for d in json.loads(listed.stdout)] == ["cpu:0", "cpu:1"]
    done = tuiperf_process(
        *("run", "call-site", "--scenarios", fixture_dir, "--variants", "depth,no-argument", "--samples", "100"),
        *("--no-profile", "--device", "cpu:1", "--json", str(out)),
        env=env,
    )
    assert done.returncode == 0, done.stderr
    from tuiperf.results import resultfile

    doc = resultfile.load(out)
    assert doc.device.id == "cpu:1" and doc.device.index == 1
    assert not any("inputs live on" in w for w in doc.warnings)
    assert [v.name for v in doc.variants if v.ok] == ["depth", "no-argument"], [v.failure for v in doc.variants]
    assert [int(line) for line in depths.read_text().split()].count(3) >= 100


def test_compare_flags_a_regression_only_beyond_the_threshold(tmp_path, capsys):
    from tuiperf.results import resultfile

    old, same, slower = tmp_path / "old.json", tmp_path / "same.json", tmp_path / "slower.json"
    resultfile.save(factories.result({"v": factories.steady(1000)}), old)
    resultfile.save(factories.result({"v": factories.steady(1000)}), same)
    resultfile.save(factories.result({"v": factories.steady(1300)}), slower)
    assert main(["compare", str(old), str(same), "--fail-above", "5"]) == 0
    assert main(["compare", str(old), str(slower), "--fail-above", "5"]) == 1
    assert "slower by more than 5 %: v" in capsys.readouterr().err
    assert main(["compare", str(old), str(slower), "--fail-above", "50"]) == 0


def test_compare_names_what_else_differs_and_refuses_other_scenarios(tmp_path, capsys):
    from tuiperf.results import resultfile

    old, new, other = tmp_path / "old.json", tmp_path / "new.json", tmp_path / "other.json"
    resultfile.save(factories.result({"v": factories.steady(1000)}, params={"batch": 1}), old)
    resultfile.save(
        factories.result(
            {"v": factories.steady(1000)}, params={"batch": 8}, dispatch="async", packages={"jax": "0.10.3"}
        ),
        new,
    )
    resultfile.save(factories.result({"v": factories.steady(1000)}, scenario="t"), other)
    assert main(["compare", str(old), str(new)]) == 0
    err = capsys.readouterr().err
    assert "parameter batch 1 → 8" in err and "dispatch sync → async" in err and "jax 0.10.2 → 0.10.3" in err
    assert main(["compare", str(old), str(other)]) == 2
    assert "different scenarios (s and t)" in capsys.readouterr().err
    assert main(["compare", str(old), str(other), "--any-scenario"]) == 0


def test_any_variant_can_be_the_baseline_with_a_confidence_interval():
    from tuiperf.results.ratios import against

    doc = factories.result({"a": factories.steady(1000), "b": factories.steady(2000), "c": factories.steady(4000)})
    base, rows = against(doc)
    assert base == "a" and rows["c"].ratio == pytest.approx(4.0, rel=0.01)
    base, rows = against(doc, "b")
    assert rows["a"].ratio == pytest.approx(0.5, rel=0.01) and rows["c"].ratio == pytest.approx(2.0, rel=0.01)
    lo, hi = rows["a"].ci95
    assert lo <= rows["a"].ratio <= hi  # the inverted interval still brackets the inverted ratio


def test_options_before_the_command_are_honoured(fixture_dir):
    from tuiperf.cli import parse_args
    from tuiperf.cli.measure import request_from

    args = parse_args(["--dispatch", "async", "--scenarios", "/a", "run", "tiny", "--scenarios", fixture_dir])
    assert args.dispatch == "async" and args.scenarios == ["/a", fixture_dir]
    assert parse_args(["run", "tiny", "--dispatch", "async"]).dispatch == "async"
    assert request_from(parse_args(["run", "tiny"])).settings.dispatch == "sync"  # the documented default
    assert parse_args(["--scenarios", "/x", "list"]).scenarios == ["/x"]
    app = parse_args(["--dispatch", "async", "mlp-closure-vs-argument", "--set", "batch=2"])
    assert (app.command, app.scenario, app.dispatch, app.set) == (
        "app",
        "mlp-closure-vs-argument",
        "async",
        ["batch=2"],
    )
    assert parse_args([]).command == "app" and parse_args([]).scenario is None


@pytest.mark.slow
def test_a_piped_report_keeps_every_median_with_its_unit(fixture_dir, tmp_path):
    """`tuiperf run ID | cat` at the default width: no number is cut."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tuiperf",
            "run",
            "tiny",
            "--scenarios",
            fixture_dir,
            "--samples",
            "30",
            "--no-profile",
            "--json",
            str(tmp_path / "r.json"),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert done.returncode == 0, done.stderr
    from tuiperf.common.units import format_ns
    from tuiperf.results import resultfile

    result = resultfile.load(tmp_path / "r.json")
    for v in result.measured:
        assert format_ns(v.sampling.stats.median_ns) in done.stdout, v.name
    assert "…" not in done.stdout and max(len(line) for line in done.stdout.splitlines()) <= 80


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--json", ""], "the output path is empty"),
        (["--json", "."], "is a folder"),
        (["--budget", "nan"], "budget: 'nan' is not a finite number"),
        (["--samples", "2000000"], "samples: 2000000 is above the maximum 1000000"),
        (["--timeout", "0"], "timeout: 0.0 is below the minimum"),
        (["--dispatch", "fast"], "dispatch: 'fast' is not one of the choices"),
        (["--set", "size=2**99999"], "is not an integer literal"),
        (["--variants", "a,,b"], "empty variant name"),
    ],
)
def test_bad_options_are_refused_before_anything_runs(argv, message, fixture_dir, capsys):
    code = main(["run", "tiny", "--scenarios", fixture_dir, "--in-process", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1


def test_show_prints_hostile_text_from_a_result_file_inert(tmp_path, capsys):
    """A result file someone else wrote: escape sequences and markup in it reach the terminal as text."""
    from factories import result, steady

    from tuiperf.cli import main
    from tuiperf.results import resultfile

    osc = "\x1b]52;c;ZWNobyBoYWNrZWQ=\x07"
    doc = result({f"jit{osc}": steady(1000.0), "[bold red]fake[/]": steady(2000.0)}, scenario="tiny")
    doc.warnings.append(f"clear the screen \x1b[2J{osc} [link=https://x]click[/link]")
    path = resultfile.save(doc, tmp_path / "theirs.json")
    assert main(["show", str(path), "--width", "120"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out  # no OSC 52 clipboard write, no clear screen
    assert "[bold red]fake[/]" in out and "[link=https://x]click[/link]" in out  # markup shown, not applied


@pytest.mark.parametrize("value", ["nan", "-1", "0"])
def test_a_timeout_that_is_no_timeout_is_refused_not_silently_dropped(value, fixture_dir, capsys):
    assert main(["run", "tiny", "--scenarios", fixture_dir, "--in-process", "--timeout", value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tuiperf: timeout: ") and "(allowed: number 0.001..604800)" in err  # `none`: no limit


@pytest.mark.slow
def test_a_scenarios_file_is_named_a_file_and_a_trace_folder_under_a_file_is_refused(fixture_dir, tmp_path, capsys):
    afile = tmp_path / "scenarios.py"
    afile.write_text("")
    assert main(["list", "--scenarios", str(afile)]) == 0
    assert "is a file, not a folder of scenario files" in " ".join(capsys.readouterr().out.split())
    code = main(["trace", "tiny", "--scenarios", fixture_dir, "--variant", "jax.jit", "--out", str(afile / "t")])
    err = capsys.readouterr().err
    assert code == 2 and "is a file, so no folder can be made under it" in err and err.count("\n") == 1


@pytest.mark.slow
def test_list_says_when_a_file_of_yours_replaces_a_built_in(tmp_path, capsys):
    from tuiperf.catalog.folders import builtin_dir

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "dispatch_floor.py").write_text((builtin_dir() / "dispatch_floor.py").read_text())
    assert main(["list", "--scenarios", str(mine), "--width", "300"]) == 0  # a path is longer than 80 columns
    out = " ".join(capsys.readouterr().out.split())
    assert "replaces the built-in dispatch-floor" in out and str(mine / "dispatch_floor.py") in out
