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
    svg = out.read_text()  # every character in its own cell: aligned whatever font the renderer has
    assert "textLength" not in svg and "font-family: DejaVu Sans Mono, Fira Code, monospace;" in svg
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


def test_every_character_of_a_screenshot_stands_in_its_own_cell():
    from tuiperf.tui.svg_text import SANS_FONT, aligned

    run = '<text class="t-r1" x="12.2" y="20" textLength="85.4" clip-path="url(#l0)">a&#160;⣀⣿&amp;bℹ</text>'
    placed = aligned(f"<svg>{run}</svg>")
    assert placed == (
        '<svg><text class="t-r1" x="12.2 24.4 61.0 73.2" y="20" clip-path="url(#l0)">a\xa0&amp;b</text>'
        f'<text class="t-r1" x="36.6 48.8 85.4" y="20" clip-path="url(#l0)"{SANS_FONT}>⣀⣿ℹ</text></svg>'
    )


def test_the_png_font_has_every_glyph_the_app_draws():
    """PNG screenshots (cairosvg: no font fallback) drew "ℹ" as a box: DejaVu Sans Mono lacks it. Every
    character in tuiperf's sources is in the font asked for, but the control pictures ``inert`` puts in
    place of control characters (␛, ␇, …): no font on a Debian machine has those."""
    import shutil
    import subprocess
    from pathlib import Path

    import tuiperf
    from tuiperf.tui.svg_text import in_sans

    if shutil.which("fc-list") is None:
        pytest.skip("fontconfig's fc-list is not installed")
    families = subprocess.run(["fc-list", ":", "family"], capture_output=True, text=True).stdout
    if "DejaVu Sans Mono" not in families:
        pytest.skip("the DejaVu fonts are not installed (Debian: fonts-dejavu-core)")
    drawn = {c for f in Path(tuiperf.__file__).parent.rglob("*.py") for c in f.read_text(encoding="utf-8")}
    missing = []
    for char in sorted(c for c in drawn if ord(c) > 127 and not "\u2400" <= c <= "\u243f"):
        font = "DejaVu Sans" if in_sans(char) else "DejaVu Sans Mono"
        having = subprocess.run(["fc-list", f":charset={ord(char):x}", "family"], capture_output=True, text=True)
        if font not in having.stdout.split("\n") and not any(
            font in line.split(",") for line in having.stdout.split("\n")
        ):
            missing.append(f"{char} U+{ord(char):04X} not in {font}")
    assert missing == []


def test_a_screenshot_counts_devices_listed_after_a_short_run_ends(saved, scenario_dirs, tmp_path, monkeypatch):
    """The device list comes from a process that imports JAX; a short run can end first, and the
    header said "0 devices" in every README picture. Here the list comes only once the picture is
    being taken (or after 5 s, which is what the screenshot must wait for)."""
    import threading

    from tuiperf.tui.app import TuiperfApp

    taking = threading.Event()
    save = TuiperfApp.save_screenshot

    def saving(self, *args, **kwargs):
        taking.set()
        return save(self, *args, **kwargs)

    monkeypatch.setattr(TuiperfApp, "save_screenshot", saving)

    class SlowDevices(FakeRunner):
        def cached_catalog(self, scenario_dirs=None):  # the list at once, as a real runner's cache gives it
            return self.catalog(scenario_dirs)

        def devices(self):
            taking.wait(5)
            return super().devices()

    out = tmp_path / "tiny.svg"
    take_screenshot(SlowDevices(saved), "tiny-sin", out, {"size": "16"}, size=(160, 40), scenario_dirs=scenario_dirs)
    header = out.read_text().replace("&#160;", " ").replace("\xa0", " ")
    assert "· 1 device" in header and "0 devices" not in header


def test_the_screenshot_command_honours_scenarios(saved, scenario_dirs, tmp_path, monkeypatch):
    """`tuiperf screenshot ID --scenarios DIR` lists and runs ID from DIR (it once said "Unknown scenario")."""
    from tuiperf.cli import main, measure

    class Recording(FakeRunner):
        def __init__(self) -> None:
            super().__init__(saved)
            self.listed: list[object] = []

        def catalog(self, scenario_dirs=None):
            self.listed.append(list(scenario_dirs or []))
            return super().catalog(scenario_dirs)

        def close(self) -> None:
            pass

    runner = Recording()
    monkeypatch.setattr(measure, "make_runner", lambda args: runner)
    out = tmp_path / "shot.svg"
    assert main(["screenshot", "tiny-sin", "--scenarios", scenario_dirs[0], "--out", str(out), "--size", "100x30"]) == 0
    assert out.exists()
    assert runner.listed and all(dirs == scenario_dirs for dirs in runner.listed)
    assert [r.scenario_dirs for r in runner.requests] == [scenario_dirs]


def test_a_device_named_by_its_platform_is_run_on(saved, scenario_dirs, tmp_path):
    """`tuiperf screenshot ID --device gpu` (or `cpu`, or an index), as `tuiperf run` takes it: the device
    picker lists ids (``cpu:0``), and setting it to ``gpu`` raised inside the app, so the run never
    started and the screenshot waited out its 600 s (found getting the GPU check ready)."""
    runner = FakeRunner(saved)
    listed = runner.devices()
    out = tmp_path / "tiny.svg"
    take_screenshot(runner, "tiny-sin", out, {"size": "16"}, scenario_dirs=scenario_dirs, device="cpu", timeout_s=20)
    assert [r.device for r in runner.requests] in (["cpu"], [listed[0].id])
