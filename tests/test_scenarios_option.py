"""Every command that takes ``--scenarios DIR`` finds scenarios in DIR (``screenshot`` once ignored it;
its test is in tests/tui/test_tui_screenshot.py). The scenario ``tiny`` exists only in the fixture folder."""

from __future__ import annotations

import json

import pytest

from tuiperf.cli import main


@pytest.fixture(autouse=True)
def no_env_folders(monkeypatch):
    monkeypatch.delenv("TUIPERF_SCENARIOS", raising=False)


@pytest.mark.slow
def test_list(fixture_dir, capsys):
    assert main(["list", "--scenarios", fixture_dir, "--json"]) == 0
    assert "tiny" in [s["id"] for s in json.loads(capsys.readouterr().out)["scenarios"]]


def test_run(fixture_dir, capsys):
    argv = ["run", "tiny", "--scenarios", fixture_dir, "--in-process", "--variants", "jax.jit", "--samples", "5"]
    assert main([*argv, "--no-profile", "--no-history"]) == 0
    assert "jax.jit" in capsys.readouterr().out


def test_trace(fixture_dir, tmp_path, capsys):
    argv = ["trace", "tiny", "--scenarios", fixture_dir, "--variant", "jax.jit", "--calls", "2"]
    assert main([*argv, "--out", str(tmp_path / "traces")]) == 0
    assert str(tmp_path / "traces") in capsys.readouterr().out


def test_new_writes_into_the_folder(tmp_path, capsys):
    assert main(["new", "my-probe", "--scenarios", str(tmp_path)]) == 0
    assert (tmp_path / "my_probe.py").exists()


def test_app_opens_with_the_folder(fixture_dir, monkeypatch):
    import tuiperf.tui.app

    seen: dict[str, object] = {}
    monkeypatch.setattr(tuiperf.tui.app, "main", lambda **kwargs: seen.update(kwargs))
    assert main(["tiny", "--scenarios", fixture_dir, "--no-history"]) == 0
    assert list(seen["scenario_dirs"]) == [fixture_dir] and seen["scenario"] == "tiny"  # type: ignore[call-overload]
