"""A few snapshots of key screens, rendered from a saved result (no live timing in them)."""

from __future__ import annotations

from tui_helpers import FakeRunner, ready

from tuiperf.tui.app import TuiperfApp


def _app(saved, tmp_path):
    return TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)


def _show(saved, key: str, tab: str):
    async def run_before(pilot) -> None:
        app = pilot.app
        main = await ready(pilot)
        main.show_result(saved[key])
        main.action_show_tab(tab)
        app.query_one("#tabs Tabs").focus()
        await pilot.pause(0.2)
        await pilot.wait_for_scheduled_animations()
        await app.plots_settled()
        await pilot.pause()

    return run_before


def test_snapshot_histogram_wide(snap_compare, saved, tmp_path):
    assert snap_compare(_app(saved, tmp_path), terminal_size=(130, 40), run_before=_show(saved, "result", "histogram"))


def test_snapshot_statistics_wide(snap_compare, saved, tmp_path):
    assert snap_compare(_app(saved, tmp_path), terminal_size=(130, 40), run_before=_show(saved, "result", "stats"))


def test_snapshot_sweep_narrow(snap_compare, saved, tmp_path):
    assert snap_compare(_app(saved, tmp_path), terminal_size=(80, 24), run_before=_show(saved, "sweep", "sweep"))
