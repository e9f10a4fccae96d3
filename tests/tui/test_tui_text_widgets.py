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


class HiddenBlock(App):
    def compose(self):
        yield TextBlock("", id="hidden")

    def on_mount(self) -> None:
        self.query_one(TextBlock).display = False


@sync
async def test_text_shown_before_its_block_had_a_width_lays_out_nothing_for_as_many_lines():
    """GIVEN text shown in a block not laid out yet (a sweep's waiting caption on a tab never shown)
    WHEN the block is shown and given the same text again, then another of as many lines THEN the
    other is drawn in place (it laid the screen out: the extent of the first was never known)."""
    app = HiddenBlock()
    async with app.run_test(size=(40, 10)) as pilot:
        block = app.query_one(TextBlock)
        waiting = Text("first measuring\nsecond measuring")
        block.show_text(waiting)
        assert block.size.width == 0 and block.extent is None
        block.display = True
        await pilot.pause()
        updates: list[bool] = []
        update = block.update
        block.update = lambda content, *, layout=True: (updates.append(layout), update(content, layout=layout))  # type: ignore[method-assign]
        block.show_text(waiting)  # (the caption laid out again once its tab is)
        block.show_text(Text("first 1.0 µs\nsecond 2.0 µs"))
        await pilot.pause()
        assert updates == [False]
        assert [block.render_line(y).text.rstrip() for y in range(2)] == ["first 1.0 µs", "second 2.0 µs"]


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


SAMPLE = Text.assemble(
    ("Per call: ", "bold"),
    ("██ ", "#cc79a7"),
    ("framework ", "dim"),
    ("a long sentence that wraps " * 6, "bold #56b4e9 on #303030"),  # (a background shows trailing spaces)
    "\n",
    ("second paragraph ", "italic"),
    ("x" * 30, "red on #202020"),
    "\n\nafter a blank line",
)


class Blocks(App):
    """The same text in blocks styled as the app's: wrapped with padding, cut with an ellipsis, as wide
    as the text."""

    CSS = """
    #wrapped { padding: 0 1; background: $panel; }
    #cut { text-wrap: nowrap; text-overflow: ellipsis; }
    #auto { width: auto; }
    """

    def __init__(self, way: str) -> None:
        super().__init__()
        self.way = way

    def compose(self):
        for name in ("wrapped", "cut", "auto"):
            yield TextBlock("", id=name)

    async def show_sample(self) -> None:
        for block in self.query(TextBlock):
            if self.way == "Static":
                block.show(SAMPLE)  # Textual lays it out and renders it at the paint
            else:
                block.show_text(SAMPLE)


async def drawn(way: str, monkeypatch) -> tuple[str, int]:  # type: ignore[no-untyped-def]
    """The screen with the sample shown one way, and how many times Textual rendered a block's content."""
    import re

    rendered: list[None] = []
    render_content = TextBlock._render_content

    def counted(self):  # type: ignore[no-untyped-def]
        rendered.append(None)
        return render_content(self)

    monkeypatch.setattr(TextBlock, "_render_content", counted)
    app = Blocks(way)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()  # every block laid out (a width to wrap to)
        rendered.clear()
        await app.show_sample()
        await pilot.pause()
        await pilot.pause()
        screen = re.sub(r"terminal-\d+", "", app.export_screenshot())
    # Each text run with its style written out: the two ways number Rich's CSS classes differently
    styles = dict(re.findall(r"\.(-r\d+) \{([^}]*)\}", screen))
    screen = re.sub(r'class="(-r\d+)"', lambda m: f'style="{styles[m.group(1)].strip()}"', screen)
    return re.sub(r"\.-r\d+ \{[^}]*\}", "", screen), len(rendered)


@sync
async def test_text_shown_wrapped_once_draws_what_textual_draws_without_rendering_it_again(monkeypatch):
    """GIVEN text in blocks that wrap it, cut it with an ellipsis and are as wide as it WHEN shown with
    show_text THEN the screen is Textual's own for that text (CSS classes aside), and Textual rendered
    no block's content: the lines wrapped to know the block's height are the ones drawn (Textual
    rendered the whole text again at the paint, the Breakdown's bars 7 ms of a 22 ms frame)."""
    textual, rendered_by_textual = await drawn("Static", monkeypatch)
    ours, rendered = await drawn("show_text", monkeypatch)
    assert ours == textual
    assert rendered_by_textual == 3 and rendered == 0


def test_the_breakdowns_legend_breaks_between_its_items_not_inside_one():
    """At 80 columns (NO_COLOR) the legend wrapped at its spaces: "… ░░ compute   ▚▚" on one line and
    "outputs" alone on the next."""
    from tuiperf.tui.widgets.breakdown import legend_lines

    lines = [line.plain.rstrip() for line in legend_lines(75, monochrome=True)]
    assert lines == [
        "Per call: ██ framework   ▓▓ jit dispatch   ▒▒ launch   ░░ compute",
        "          ▚▚ outputs",
    ]
    [coloured] = legend_lines(200, monochrome=False)
    assert [coloured.plain[span.start : span.end] for span in coloured.spans] == ["██ "] * 5  # not the labels
    assert [line.plain for line in legend_lines(200, monochrome=True)] == [
        "Per call: ██ framework   ▓▓ jit dispatch   ▒▒ launch   ░░ compute   ▚▚ outputs"
    ]


def test_the_breakdowns_process_memory_line_is_wrapped_to_the_tab():
    """At 80 columns the line ran past the tab's edge: "… host 278 MiB resident, device allocator fig"."""
    import msgspec
    from factories import result

    from tuiperf.results.model import ProcessMemory
    from tuiperf.tui.widgets.breakdown import memory_lines

    run = msgspec.structs.replace(result({"a": [1000.0] * 20}), memory=ProcessMemory(host_rss_bytes=278 << 20))
    lines = [line.plain for line in memory_lines(run, 60)]
    assert lines == [
        "measuring process after sampling: host 278 MiB resident,",
        "device allocator figures: none on the CPU",
    ]
