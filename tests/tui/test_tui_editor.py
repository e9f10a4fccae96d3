"""Writing scenarios in the app: edit and save, errors at their line with the last good version kept,
new scenarios from templates, built-ins copied instead of changed, outside edits noticed."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tui_helpers import FakeRunner, ready, record_notifications, sync, wait_until

from tuiperf.catalog import folders as catalog_module
from tuiperf.catalog.folders import assemble, discover, scenario_dirs
from tuiperf.contract.catalog import LoadError
from tuiperf.measuring.loading import describe_file
from tuiperf.tui.app import TuiperfApp
from tuiperf.tui.screens.editor import EditorScreen

MINE = textwrap.dedent(
    """
    from tuiperf import Bench, Int, Scenario

    scenario = Scenario(title="Mine", question="Does the editor work?", params=dict(size=Int(8, min=1, max=64)))


    @scenario.variant("jit")
    def _(p, ctx):
        return Bench(abs, -1)
    """
).lstrip()


class FileRunner(FakeRunner):
    """Describes the scenario files as they are now, in this process; measures nothing (the saved run)."""

    def catalog(self, scenario_dirs_=None):
        dirs = scenario_dirs(scenario_dirs_ or [])
        files, broken = discover(dirs)
        described = []
        for path in files:
            answer = describe_file(path)
            (broken.append(answer) if isinstance(answer, LoadError) else described.append(answer))
        return assemble([str(d) for d in dirs], described, broken)


@pytest.fixture
def folders(tmp_path, monkeypatch):
    """A built-in folder holding one scenario, the user's folder, and a --scenarios folder with mine.py."""
    builtin, user, mine = tmp_path / "builtin", tmp_path / "user", tmp_path / "mine"
    for folder in (builtin, user, mine):
        folder.mkdir()
    (builtin / "shipped.py").write_text(MINE.replace('title="Mine"', 'title="Shipped"'))
    (mine / "mine.py").write_text(MINE)
    monkeypatch.setattr(catalog_module, "builtin_dir", lambda: builtin)
    monkeypatch.setenv("TUIPERF_USER_SCENARIOS", str(user))
    return builtin, user, mine


def make(saved, folders, tmp_path):
    runner = FileRunner(saved)
    return runner, TuiperfApp(runner, scenario_dirs=[str(folders[2])], screenshots_dir=tmp_path / "shots")


async def save(pilot, editor: EditorScreen, text: str, expect: str) -> None:
    if editor.source.text != text:  # setting the text moves the cursor to the start
        editor.source.text = text
    await pilot.press("ctrl+s")
    await wait_until(pilot, lambda: expect in str(editor.query_one("#editor-status").render()), what=expect)


@sync
async def test_a_saved_default_shows_in_the_form_and_typed_values_stay(saved, folders, tmp_path):
    _, app = make(saved, folders, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot, "mine")
        await pilot.press("e")
        editor = app.screen
        assert isinstance(editor, EditorScreen) and editor.path == folders[2] / "mine.py"
        await save(pilot, editor, MINE.replace("Int(8,", "Int(16,").replace('"Mine"', '"Mine, renamed"'), "✓ saved")
        assert (folders[2] / "mine.py").read_text().count("Int(16,") == 1
        await pilot.press("escape")
        await wait_until(pilot, lambda: main.setup.form.raw_values().get("size") == "16", what="the new default")
        assert main.setup.scenario.title == "Mine, renamed"


@sync
async def test_a_syntax_error_points_at_its_line_and_the_last_good_version_still_runs(saved, folders, tmp_path):
    runner, app = make(saved, folders, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot, "mine")
        await pilot.press("e")
        editor = app.screen
        broken = MINE.replace("def _(p, ctx):", "def _(p, ctx:")
        line = broken.splitlines().index("def _(p, ctx:") + 1
        editor.source.text = broken
        editor.source.move_cursor((2, 5))  # where the user is typing, not the broken line
        await save(pilot, editor, broken, f"mine.py:{line}")  # the line in the message
        assert "last good version" in str(editor.query_one("#editor-status").render())
        assert editor.source.cursor_location == (2, 5) and line - 1 != 2  # the cursor stays where it was
        await pilot.press("escape")  # saved: leaves without asking
        entry = main.setup.scenario
        assert entry is not None and entry.last_good.line == line and entry.path != str(folders[2] / "mine.py")
        main.action_run()
        await main.runs.wait_for_end(30)
        assert runner.requests[-1].scenario_path == entry.path  # the copy of the last good source runs
        assert Path(entry.path).read_text() == MINE
        await pilot.press("e")
        await save(pilot, app.screen, MINE, "✓ saved")
        await pilot.press("escape")
        assert main.setup.scenario.last_good is None and main.setup.scenario.path == str(folders[2] / "mine.py")


@sync
async def test_leaving_with_unsaved_changes_asks_first(saved, folders, tmp_path):
    _, app = make(saved, folders, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, "mine")
        await pilot.press("e")
        editor = app.screen
        editor.source.text = MINE + "\n# more\n"
        await pilot.press("escape")
        assert type(app.screen).__name__ == "ConfirmScreen"
        await pilot.press("n")
        assert app.screen is editor
        await pilot.press("escape", "y")
        assert type(app.screen).__name__ == "MainScreen" and (folders[2] / "mine.py").read_text() == MINE


@sync
async def test_n_creates_a_scenario_from_a_template_and_opens_it(saved, folders, tmp_path):
    _, app = make(saved, folders, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        main = await ready(pilot, "mine")
        await pilot.press("escape", "n")
        assert type(app.screen).__name__ == "TemplateScreen"
        await pilot.press(*"Bad Name", "enter")
        assert "not a scenario name" in str(app.screen.query_one("#new-name-error").render())
        app.screen.query_one("#new-name").value = "my-step"
        app.screen.query_one("#new-template").highlighted = 2
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, EditorScreen), what="the editor on the new file")
        assert app.screen.path == folders[2] / "my_step.py" and "Step(" in app.screen.source.text
        await pilot.press("escape")
        assert main.setup.scenario.id == "my-step" and main.setup.scenario.origin == "user"


@sync
async def test_saving_a_builtin_makes_a_shadowing_copy_that_can_be_reverted(saved, folders, tmp_path):
    builtin, user, _ = folders
    _, app = make(saved, folders, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot, "shipped")
        await pilot.press("e")
        editor = app.screen
        editor.source.text = editor.source.text.replace('"Shipped"', '"Shipped, my way"')
        await pilot.press("ctrl+s")
        assert type(app.screen).__name__ == "ConfirmScreen"
        await pilot.press("y")
        await wait_until(pilot, lambda: "✓ saved" in str(editor.query_one("#editor-status").render()), what="saved")
        assert "Shipped, my way" in (user / "shipped.py").read_text()
        assert '"Shipped"' in (builtin / "shipped.py").read_text()  # the built-in is untouched
        await pilot.press("escape")
        entry = main.setup.scenario
        assert entry.origin == "shadows built-in" and entry.title == "Shipped, my way"
        main.action_revert_builtin()
        await pilot.press("y")
        await wait_until(pilot, lambda: main.setup.scenario.origin == "built-in", what="the built-in again")
        assert not (user / "shipped.py").exists() and list(user.glob("shipped.py.*.bak"))


@sync
async def test_files_changed_outside_the_app_refresh_the_list(saved, folders, tmp_path):
    _, app = make(saved, folders, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = await ready(pilot, "mine")
        (folders[2] / "other.py").write_text(MINE.replace('"Mine"', '"Other"'))
        await wait_until(pilot, lambda: any(s.id == "other" for s in main.catalog.scenarios), what="new file")
        (folders[2] / "other.py").unlink()
        await wait_until(pilot, lambda: all(s.id != "other" for s in main.catalog.scenarios), what="removed")


@sync
async def test_a_file_too_large_to_edit_is_refused_saying_why(saved, folders, tmp_path):
    (folders[2] / "mine.py").write_text(MINE + "#" * (300 * 1024) + "\n")
    _, app = make(saved, folders, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, "mine")
        told = record_notifications(app)
        await pilot.press("e")
        await pilot.pause()
        assert not isinstance(app.screen, EditorScreen)
        assert any("too large to edit here" in n for n in told) and app.last_error is None  # not a failed run


@sync
async def test_a_file_deleted_while_open_is_saved_back_and_not_called_built_in(saved, folders, tmp_path):
    _, app = make(saved, folders, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, "mine")
        await pilot.press("e")
        editor = app.screen
        (folders[2] / "mine.py").unlink()
        await save(pilot, editor, MINE.replace("Int(8,", "Int(12,"), "✓ saved")
        assert "Int(12," in (folders[2] / "mine.py").read_text()
        assert not (folders[1] / "mine.py").exists()  # no copy offered as if it were a built-in


ESCAPES = "\x1b]0;owned\x07\x1b[2J\x9b2J\u202e"


@sync
async def test_a_scenario_files_control_characters_are_shown_as_stand_ins_and_saved_back_as_they_were(
    saved, folders, tmp_path
):
    from drawn import held, on_screen

    path = folders[2] / "mine.py"
    hostile = MINE.replace("from tuiperf import", f"# a comment {ESCAPES} here\nfrom tuiperf import")
    path.write_text(hostile)
    _, app = make(saved, folders, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, "mine")
        await pilot.press("e")
        editor = app.screen
        assert isinstance(editor, EditorScreen)
        await pilot.pause()
        assert on_screen(app) == {} and held(editor) == {}  # nothing raw reaches the terminal
        assert "# a comment ⟨ESC⟩]0;owned⟨BEL⟩⟨ESC⟩[2J⟨U+009B⟩2J⟨U+202E⟩ here" in editor.source.text
        assert "control characters" in str(editor.query_one("#editor-status").render())
        await pilot.press("ctrl+s")  # unedited: the same bytes
        await wait_until(pilot, lambda: not editor.waiting_for_reload, what="the reload")
        assert path.read_bytes() == hostile.encode()
        await save(pilot, editor, editor.source.text.replace("Int(8,", "Int(16,"), "✓ saved")  # edited elsewhere
        assert path.read_text() == hostile.replace("Int(8,", "Int(16,")  # its control characters kept
        await save(pilot, editor, editor.source.text.replace("⟨ESC⟩]0;owned⟨BEL⟩", ""), "✓ saved")
        assert path.read_text() == hostile.replace("Int(8,", "Int(16,").replace("\x1b]0;owned\x07", "")


@sync
async def test_n_with_a_list_filter_active_clears_it_and_opens_the_new_file(saved, folders, tmp_path):
    _, app = make(saved, folders, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        main = await ready(pilot, "mine")
        main.query_one("#scenario-filter").value = "mine"  # hides the scenario about to be made
        await pilot.press("escape", "n")
        assert type(app.screen).__name__ == "TemplateScreen"
        app.screen.query_one("#new-name").value = "my-step"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, EditorScreen), what="the editor on the new file")
        assert app.screen.path == folders[2] / "my_step.py"
        await pilot.press("escape")
        assert main.query_one("#scenario-filter").value == ""
        assert main.setup.scenario.id == "my-step"
