"""Text that reads the same in a terminal, a pipe and a pasted issue.

Every line fits the width the output claims (``--width``, else ``$COLUMNS``, else the terminal's,
else 80). Long lines wrap with a hanging indent, so a continuation never starts at column 0 and reads
as part of the line above; lists wrap *between* their items, so a name or a figure (``equinox 0.13.8``,
``12.3 µs``) is never split unless it alone is wider than a line (then it is folded: nothing is cut).
Rich pads table cells and titles to their column's width: :class:`Trimmed` drops those trailing spaces.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text

from tuiperf.common.errors import TuiperfError

MIN_WIDTH = 20
# A word with its leading spaces; a unit after a number stays with it ("12.6 µs", "9 %", "3 MiB"), and
# so does the punctuation after the unit ("0.073 s, under": the comma began the next line).
_WORD = re.compile(r"\s*\S+(?: (?:%|[µnm]?s|[KMGT]?i?B|×)(?=[\s,;:.)\]]|$))*[,;:.)\]]*")


def checked_width(width: int | None) -> int | None:
    """``--width`` as given (None: the console decides), refused when too narrow to lay anything out."""
    if width is not None and width < MIN_WIDTH:
        raise TuiperfError(f"--width must be at least {MIN_WIDTH} columns, got {width}")
    return width


def _text(value: Text | str) -> Text:
    text = Text(value) if isinstance(value, str) else value.copy()
    text.expand_tabs(4)
    return text


def _fold(word: Text, room: int, rest: int) -> list[Text]:
    """``word`` cut into pieces, the first within ``room`` cells and the others within ``rest`` (at
    least one character each), in one pass: cutting a piece at a time copied the rest of the word each
    time, quadratic in a long word."""
    cuts: list[int] = []
    used, limit, start = 0, room, 0
    for i, char in enumerate(word.plain):
        width = cell_len(char)
        if used + width > limit and i > start:
            cuts.append(i)
            used, limit, start = 0, rest, i
        used += width
    return list(word.divide(cuts)) if cuts else [word]


def word_lines(text: Text | str, first: int, rest: int) -> list[Text]:
    """``text`` wrapped at its spaces: the first line at most ``first`` cells, the others ``rest``; a
    word wider than a line is folded. Line breaks in ``text`` are kept (and the indentation after
    them); no line ends in a space."""
    first, rest = max(first, 1), max(rest, 1)
    lines: list[Text] = []
    for logical in _text(text).split("\n", allow_blank=True):
        matches = list(_WORD.finditer(logical.plain))
        # Cut once at every word (a slice of a Rich Text copies all of it: a slice per word was
        # quadratic in a long line, 51 s for a cluster's 20,000-entry list of slowest calls).
        words = logical.divide([m.start() for m in matches])[1:]
        current = Text()
        for match, word in zip(matches, words, strict=True):
            if len(word.plain) > len(match.group()):
                word.right_crop(len(word.plain) - len(match.group()))  # a line's trailing spaces are no word
            room = first if not lines else rest
            if current.plain and current.cell_len + cell_len(match.group()) > room:
                lines.append(current)
                current, room = Text(), rest
                word = word[len(match.group()) - len(match.group().lstrip()) :]  # a continuation starts at the word
            if current.cell_len + word.cell_len > room:  # only a word wider than the line
                *whole, word = _fold(word, room - current.cell_len, rest)
                lines.append(current + whole[0])
                lines.extend(whole[1:])
                current, room = Text(), rest
            current.append_text(word)
        lines.append(current)
    for line in lines:
        line.rstrip()
    return lines


def hang(text: Text | str, width: int, indent: int = 4) -> list[Text]:
    """``text`` wrapped to ``width`` with lines after the first indented by ``indent`` spaces."""
    indent = min(indent, width // 2)
    lines = word_lines(text, width, width - indent)
    return [lines[0], *(Text(" " * indent) + line if line.plain else line for line in lines[1:])]


def flow(
    items: Sequence[Text | str],
    width: int,
    *,
    lead: Text | str = "",
    sep: str = "  ",
    indent: int = 4,
) -> list[Text]:
    """``lead`` then ``items`` joined by ``sep``, wrapped to ``width`` between items only; at a break
    ``sep`` keeps its mark (", " leaves ","), and the next line starts with ``indent`` spaces."""
    indent = min(indent, width // 2)
    mark = sep.rstrip()
    lines: list[Text] = []
    current = _text(lead)
    fresh = True  # nothing but the lead or the indent on the current line yet
    for i, value in enumerate(items):
        item = _text(value)
        closing = "" if i == len(items) - 1 else mark
        glue = "" if fresh else sep
        if current.cell_len + cell_len(glue) + item.cell_len + cell_len(closing) <= width:
            current.append(glue)
            current.append_text(item)
            fresh = False
            continue
        if not fresh:
            current.append(mark)
            lines.append(current)
            current = Text(" " * indent)
        pieces = word_lines(item, width - current.cell_len - cell_len(closing), width - indent)
        current.append_text(pieces[0])
        for piece in pieces[1:]:
            lines.append(current)
            current = Text(" " * indent) + piece
        fresh = False
    lines.append(current)
    for line in lines:
        line.rstrip()
    return lines


class _Lines:
    """A renderable laid out by a function of the width it is given."""

    def lines(self, width: int) -> list[Text]:
        raise NotImplementedError

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines(options.max_width):
            yield from line.render(console)
            yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = max((line.cell_len for line in self.lines(options.max_width)), default=0)
        return Measurement(min(widest, options.max_width), widest)


class Hanging(_Lines):
    """``text`` (a warning, an error with its traceback) wrapped at its spaces, continuation lines
    indented by ``indent``."""

    def __init__(self, text: Text | str, indent: int = 4, style: str = "") -> None:
        self.text = _text(text)
        if style:
            self.text.stylize(style)
        self.indent = indent

    def lines(self, width: int) -> list[Text]:
        return hang(self.text, width, self.indent)


class Flow(_Lines):
    """A list (parameters, facts, ``header value`` pairs) wrapped between its items: see :func:`flow`."""

    def __init__(
        self,
        items: Iterable[Text | str],
        *,
        lead: Text | str = "",
        sep: str = "  ",
        indent: int = 4,
        style: str = "",
    ) -> None:
        self.items = list(items)
        self.lead, self.sep, self.indent, self.style = lead, sep, indent, style

    def lines(self, width: int) -> list[Text]:
        lines = flow(self.items, width, lead=self.lead, sep=self.sep, indent=self.indent)
        for line in lines:
            line.stylize(self.style)
        return lines


class Trimmed:
    """``renderable`` without spaces at the ends of its lines (Rich pads table cells and titles)."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in console.render_lines(self.renderable, options, pad=False):
            yield from _rstrip(line)
            yield Segment.line()


def _rstrip(line: list[Segment]) -> list[Segment]:
    kept = list(line)
    while kept and not kept[-1].control and not kept[-1].text.rstrip():
        kept.pop()
    if kept and not kept[-1].control:
        text, style, control = kept[-1]
        kept[-1] = Segment(text.rstrip(), style, control)
    return kept


def print_trimmed(console: Console, *renderables: RenderableType) -> None:
    """Print ``renderables`` with no line wider than the console and none ending in a space."""
    for renderable in renderables:
        console.print(Trimmed(renderable), highlight=False)
