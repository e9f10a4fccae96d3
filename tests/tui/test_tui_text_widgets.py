"""The text-drawn tables and blocks: aligned columns, a grid whose header stays put while its rows
scroll both ways, and a block that lays the screen out only when its size may have changed."""

from __future__ import annotations

from rich.text import Text
from textual.app import App
from tui_helpers import sync

from tuiperf.tui.text_table import columns
from tuiperf.tui.widgets.text_block import TextBlock
from tuiperf.tui.widgets.text_grid import TextGrid


def test_columns_align_left_and_right_and_keep_each_cell_a_run_of_its_own():
    rows = [
        [Text("variant"), Text("median"), Text("note")],
        [Text("jit", style="bold"), Text("7.83 µs"), Text("—")],
        [Text("a longer name"), Text("—"), Text("done")],
    ]
    lines = columns(rows, "lrl")
    assert [line.plain for line in lines] == [
        "variant         median  note",
        "jit            7.83 µs  —",
        "a longer name        —  done",
    ]
    assert lines[1].spans[0].start == 0 and lines[1].spans[0].end == 3  # the cell's own style, not its padding
    # Each cell renders as segments tagged with its column, so an SVG export cannot merge two cells.
    segments = [s for s in lines[2].render(_console()) if s.text.strip()]
    assert [(s.text.strip(), s.style.meta["column"]) for s in segments] == [("a longer name", 0), ("—", 1), ("done", 2)]


def _console():
    from rich.console import Console

    return Console(width=80)


class OneGrid(App):
    CSS = "TextGrid { height: 4; width: 20; scrollbar-size: 0 0; }"

    def compose(self):
        yield TextGrid(["name", "n"], "lr")


@sync
async def test_the_grid_header_stays_put_while_its_rows_scroll_both_ways():
    app = OneGrid()
    async with app.run_test(size=(40, 10)) as pilot:
        grid = app.query_one(TextGrid)
        grid.set_rows([(f"k{i}", [Text(f"row {i} " + "x" * 20), Text(str(i))]) for i in range(6)])
        await pilot.pause()
        assert grid.row_count == 6 and grid.get_row("k2") == ["row 2 " + "x" * 20, "2"]
        assert grid.get_cell("k5", "n") == "5"
        lines = [grid.render_line(y).text for y in range(4)]
        assert lines == [" name" + " " * 15, " row 0 xxxxxxxxxxxxx", " row 1 xxxxxxxxxxxxx", " row 2 xxxxxxxxxxxxx"]
        grid.scroll_to(x=10, y=3, animate=False)  # as far as it goes: 30 columns and 7 lines in 20 x 4
        await pilot.pause()
        lines = [grid.render_line(y).text for y in range(4)]
        assert lines == [" " * 19 + "n", "x" * 17 + "  3", "x" * 17 + "  4", "x" * 17 + "  5"]


class OneBlock(App):
    def compose(self):
        yield TextBlock("")


@sync
async def test_a_text_block_redraws_only_changes_and_lays_out_only_for_a_new_size():
    app = OneBlock()
    async with app.run_test(size=(40, 10)) as pilot:
        block = app.query_one(TextBlock)
        updates: list[bool] = []
        update = block.update
        block.update = lambda content, *, layout=True: (updates.append(layout), update(content, layout=layout))  # type: ignore[method-assign]
        block.show(Text("one"), extent=1)
        block.show(Text("one"), extent=1)  # the same: nothing to do
        block.show(Text("two"), extent=1)  # same size: redrawn in place
        block.show(Text("three\nlines"), extent=2)  # a new size: laid out
        block.show(Text("four"), key="same key")
        block.show(Text("five"), key="same key")  # the key decides
        await pilot.pause()
        assert updates == [True, False, True, True]
        assert str(block.render()) == "four"


@sync
async def test_the_grid_draws_under_no_color(monkeypatch):
    """NO_COLOR's monochrome filter needs a style on every segment: an unstyled one stopped the app."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = OneGrid()
    async with app.run_test(size=(40, 10)) as pilot:
        grid = app.query_one(TextGrid)
        grid.set_rows([(f"k{i}", [Text(f"row {i}"), Text(str(i), style="bold")]) for i in range(3)])
        await pilot.pause()
        screen = app.export_screenshot()
        assert "row&#160;1" in screen and grid.render_line(2).text.startswith(" row 1")
