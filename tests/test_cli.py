"""The command line: exit status 2 and one line for user errors; JSON with the documented keys."""

import json
import subprocess
import sys

import pytest

from tuiperf.cli import main

TOP_KEYS = {"schema_version", "scenario", "params", "device", "env", "variants", "comparisons", "warnings"}
VARIANT_KEYS = {
    "name",
    "ok",
    "error",
    "samples_ns",
    "stats",
    "stages_ms",
    "breakdown_ns",
    "flops",
    "retraces",
    "warnings",
}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "nope"], "tuiperf: no scenario 'nope'"),
        (["run", "tiny", "--set", "size=abc"], "tuiperf: size: 'abc' is not an integer"),
        (["run", "tiny", "--set", "depth=3"], "tuiperf: unknown parameter 'depth'"),
        (["run", "tiny", "--device", "gpu:3"], "tuiperf: no device 'gpu:3'"),
        (["run", "tiny", "--sweep", "size"], "tuiperf: expected NAME=VALUE"),
    ],
)
def test_user_errors_exit_2_with_one_line(argv, message, fixture_dir, capsys):
    code = main([*argv[:2], "--scenarios", fixture_dir, "--in-process", *argv[2:]])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(message) and err.count("\n") == 1


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
    doc = json.loads(out.read_text())
    assert set(doc) >= TOP_KEYS and all(set(v) >= VARIANT_KEYS for v in doc["variants"])
    assert {"median_ns", "p10_ns", "p90_ns", "ci95_median_ns"} <= set(doc["variants"][0]["stats"])
    assert {"trace", "lower", "compile", "first_call"} == set(doc["variants"][0]["stages_ms"])
    printed = capsys.readouterr().out
    assert "eqx.filter_jit" in printed and "median" in printed


def test_list_shows_broken_files(tmp_path, capsys):
    (tmp_path / "bad.py").write_text("x = (\n")
    assert main(["list", "--scenarios", str(tmp_path), "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["broken"][0]["line"] == 1 and "SyntaxError" in listing["broken"][0]["error"]
    assert "dispatch-floor" in {s["id"] for s in listing["scenarios"]}


def test_console_script_runs_in_a_fresh_process(fixture_dir):
    """The real entry point, worker process included: no traceback, exit 0."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tuiperf",
            "run",
            "tiny",
            "--scenarios",
            fixture_dir,
            "--variants",
            "jax.jit",
            "--samples",
            "10",
            "--no-profile",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "jax.jit" in done.stdout and "Traceback" not in done.stderr


def test_device_choice_with_two_cpu_devices(fixture_dir, tmp_path):
    """JAX_NUM_CPU_DEVICES=2 gives two devices: the run happens on the one chosen, inputs included."""
    import os

    out = tmp_path / "result.json"
    env = {**os.environ, "JAX_NUM_CPU_DEVICES": "2"}
    listed = subprocess.run(
        [sys.executable, "-m", "tuiperf", "devices", "--json"], capture_output=True, text=True, timeout=120, env=env
    )
    assert [d["id"] for d in json.loads(listed.stdout)] == ["cpu:0", "cpu:1"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tuiperf",
            "run",
            "tiny",
            "--scenarios",
            fixture_dir,
            "--variants",
            "jax.jit",
            "--samples",
            "5",
            "--no-profile",
            "--device",
            "cpu:1",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    assert doc["device"]["id"] == "cpu:1" and doc["device"]["index"] == 1
    assert not any("inputs live on" in w for w in doc["warnings"])


def test_compare_flags_a_regression_only_beyond_the_threshold(tmp_path, capsys):
    from tuiperf.core import results

    def doc(scale):
        samples = [scale * (1000 + i % 17) for i in range(400)]  # deterministic, tight
        return {
            "schema_version": 1,
            "scenario": {"id": "s"},
            "env": {"dispatch": "sync"},
            "variants": [results.variant_entry("v", samples_ns=samples)],
        }

    old, same, slower = tmp_path / "old.json", tmp_path / "same.json", tmp_path / "slower.json"
    results.save(doc(1.0), old), results.save(doc(1.0), same), results.save(doc(1.3), slower)
    assert main(["compare", str(old), str(same), "--fail-above", "5"]) == 0
    assert main(["compare", str(old), str(slower), "--fail-above", "5"]) == 1
    assert "slower by more than 5 %: v" in capsys.readouterr().err
    assert main(["compare", str(old), str(slower), "--fail-above", "50"]) == 0


def test_any_variant_can_be_the_baseline_with_a_confidence_interval():
    from tuiperf.core import results
    from tuiperf.core.ratios import against

    variants = [
        results.variant_entry(name, samples_ns=[scale * (1000 + i % 13) for i in range(300)])
        for name, scale in (("a", 1.0), ("b", 2.0), ("c", 4.0))
    ]
    doc = {"variants": variants, "comparisons": results.comparisons(variants)}
    base, rows = against(doc)
    assert base == "a" and rows["c"]["ratio"] == pytest.approx(4.0, rel=0.01)
    base, rows = against(doc, "b")
    assert rows["a"]["ratio"] == pytest.approx(0.5, rel=0.01) and rows["c"]["ratio"] == pytest.approx(2.0, rel=0.01)
    lo, hi = rows["a"]["ci95"]
    assert lo <= rows["a"]["ratio"] <= hi  # the inverted interval still brackets the inverted ratio
