"""Toasts short and out of dialogs' way; what `s` and `t` write goes outside the current folder."""

from __future__ import annotations

from textual.widgets._toast import Toast  # the class the toasts are drawn with (not exported)
from tui_helpers import FakeRunner, ready, record_notifications, sync, wait_until

from tuiperf.tui.app import TOAST_S, TuiperfApp
from tuiperf.tui.output_folders import path_lines
from tuiperf.tui.screens.confirm import ConfirmScreen


def test_the_default_output_folder_is_in_the_users_documents(monkeypatch, tmp_path):
    """Run from a checkout, `s` wrote into its tracked screenshots/ and `t` into traces/."""
    monkeypatch.setenv("XDG_DOCUMENTS_DIR", str(tmp_path))
    app = TuiperfApp(FakeRunner({}), scenario_dirs=[])
    assert app.screenshots_dir == tmp_path / "tuiperf" / "screenshots"


def test_the_command_line_leaves_the_folder_to_the_app_unless_given():
    from tuiperf.cli import parse_args

    assert parse_args([]).screenshots is None
    assert parse_args(["--screenshots", "shots"]).screenshots == "shots"


@sync
async def test_s_writes_into_the_documents_folder_and_names_both_files(saved, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DOCUMENTS_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[])
    told = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("s")
        await wait_until(pilot, lambda: any(t.startswith("Saved:") for t in told), what="the Saved toast")
    folder = tmp_path / "tuiperf" / "screenshots"
    (svg,) = folder.glob("*.svg")
    assert not (tmp_path / "screenshots").exists()
    saying = next(t for t in told if t.startswith("Saved:"))
    if svg.with_suffix(".png").exists():
        assert saying == f"Saved: {svg.name} and {svg.with_suffix('.png').name} in\n{path_lines(folder, 56)}"
    else:
        assert saying == f"Saved: {svg.name} (no PNG: cairosvg is missing) in\n{path_lines(folder, 56)}"


def test_toasts_stay_a_few_seconds_whatever_the_caller_asked(monkeypatch):
    from textual.app import App

    asked: list[tuple[str, float | None]] = []
    monkeypatch.setattr(App, "notify", lambda self, message, **kw: asked.append((kw["severity"], kw["timeout"])))
    app = TuiperfApp(FakeRunner({}), scenario_dirs=[])
    app.notify("a long message", timeout=15)
    app.notify("an error", severity="error", timeout=15)
    app.notify("a default one")
    app.notify("a short one", timeout=2)
    assert asked == [
        ("information", TOAST_S["other"]),
        ("error", TOAST_S["error"]),
        ("information", TOAST_S["other"]),
        ("information", 2),
    ]


@sync
async def test_a_toast_never_follows_into_a_dialog(saved, tmp_path):
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.notify("Wrote a file")
        await wait_until(pilot, lambda: app._notifications, what="the toast")
        app.push_screen(ConfirmScreen("Replace it?", "Replace"))
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert not app._notifications  # Textual keeps no public list
        assert list(app.screen.query(Toast)) == []


def test_the_export_dialog_never_stacks_suffixes():
    """A typed exp10.markdown became exp10.markdown.md when the format was chosen."""
    from tuiperf.tui.screens.export import with_format_suffix

    assert with_format_suffix("exp10.markdown", "markdown") == "exp10.md"
    assert with_format_suffix("exp10.md", "csv") == "exp10.csv"
    assert with_format_suffix("exp10", "json") == "exp10.json"
    assert with_format_suffix("notes.txt", "csv") == "notes.txt"  # the user's own extension
    assert with_format_suffix("exp10.md", "ops-csv") == "exp10-ops.csv"  # the operations tables' rows
    assert with_format_suffix("exp10-ops.csv", "markdown") == "exp10.md"
    assert with_format_suffix("./out.d/exp10", "script") == "./out.d/exp10.py"


@sync
async def test_x_writes_into_the_documents_folder_beside_screenshots_and_says_where(saved, tmp_path, monkeypatch):
    """Export wrote into the current directory (an untracked file in the user's git clone), where
    screenshots and traces went to the documents folder."""
    monkeypatch.setenv("XDG_DOCUMENTS_DIR", str(tmp_path / "docs"))
    monkeypatch.chdir(tmp_path)
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[])
    async with app.run_test(size=(100, 30)) as pilot:
        main = await ready(pilot)
        main.show_result(saved["result"])
        await pilot.pause()
        await pilot.press("x")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ExportScreen", what="the export dialog")
        folder = tmp_path / "docs" / "tuiperf" / "exports"
        assert str(folder) in str(app.screen.query_one("#export-where").render())  # the dialog says where
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is main, what="the dialog closed")
        await wait_until(pilot, lambda: list(folder.glob("*.md")), timeout=5, what="the export written")
        (written,) = folder.glob("tiny-sin-*.md")
        assert "| `jit` |" in written.read_text()
        assert list(tmp_path.glob("*.md")) == []  # nothing in the current folder
        await pilot.press("x")  # the user chooses another place by editing the path
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ExportScreen", what="the export dialog")
        app.screen.query_one("#export-path").value = str(tmp_path / "mine" / "r.md")
        (tmp_path / "mine").mkdir()
        await pilot.press("enter")
        await wait_until(pilot, (tmp_path / "mine" / "r.md").exists, timeout=5, what="the chosen file")


def test_a_path_in_a_toast_breaks_after_a_slash_never_inside_a_name():
    """Toasts (40 columns of text) wrapped a file's name mid-word."""
    from tuiperf.tui.output_folders import toast_text_width

    path = "/home/someone/Documents/tuiperf/exports/mlp-closure-vs-argument-20261207-140102.md"
    width = toast_text_width(80)
    lines = path_lines(path, width).splitlines()
    assert "".join(lines) == path
    assert lines[-1] == "mlp-closure-vs-argument-20261207-140102.md"  # the name whole, on its own line
    assert all(len(line) <= width for line in lines) and all(line.endswith("/") for line in lines[:-1])
    long_name = "x" * 60
    assert path_lines(f"/tmp/{long_name}", width).splitlines() == ["/tmp/", long_name]  # cannot fit: left whole


@sync
async def test_a_toast_draws_a_long_path_without_breaking_a_name(saved, tmp_path):
    from drawn import screen_cells

    from tuiperf.tui.output_folders import toast_text_width

    name = "mlp-closure-vs-argument-20261207-140102.md"
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await ready(pilot)
        app.notify(
            f"Wrote\n{path_lines('/home/someone/Documents/tuiperf/exports/' + name, toast_text_width(80))}",
            title="Exported",
        )
        drawn: list[str] = []

        def shown() -> bool:
            drawn[:] = ["".join(cell[0] for cell in row) for row in screen_cells(app)]
            return any("Exported" in line for line in drawn)

        await wait_until(pilot, shown, timeout=5, what="the toast")
        assert any(name in line for line in drawn), "\n".join(drawn)
