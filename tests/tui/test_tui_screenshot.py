"""The headless screenshot function (``tuiperf screenshot``)."""

from __future__ import annotations

import pytest
from tui_helpers import HAS_CAIRO, FakeRunner

from tuiperf.common.errors import TuiperfError
from tuiperf.tui.screenshot import parse_size, take_screenshot


def test_take_screenshot_runs_and_saves(saved, scenario_dirs, tmp_path):
    runner = FakeRunner(saved)
    out = tmp_path / "sub" / "tiny.svg"
    outcome: dict = {}
    path = take_screenshot(
        runner,
        "tiny-sin",
        out,
        {"size": "16"},
        tab="stats",
        size=(100, 30),
        scenario_dirs=scenario_dirs,
        outcome=outcome,
    )
    assert path == out
    assert out.exists() and "<svg" in out.read_text()[:300]
    if HAS_CAIRO:
        assert outcome["png"] is not None and outcome["png"].exists()
    else:
        assert outcome["png"] is None
    assert runner.requests[0].params["size"] == 16
    assert outcome["result"].scenario.id == "tiny-sin"


def test_take_screenshot_unknown_scenario(saved, scenario_dirs, tmp_path):
    with pytest.raises(TuiperfError, match="nope"):
        take_screenshot(FakeRunner(saved), "nope", tmp_path / "x.svg", scenario_dirs=scenario_dirs, timeout_s=10)


def test_parse_size():
    assert parse_size("120x40") == (120, 40)
    with pytest.raises(TuiperfError):
        parse_size("big")
