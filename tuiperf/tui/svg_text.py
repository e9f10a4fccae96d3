"""Screenshots whose columns line up in any SVG renderer, whatever fonts it has.

Rich's SVG export places each run of same-styled text once, at its first cell, and asks for
"Fira Code, monospace". A renderer without that font (cairosvg, which makes the PNGs, uses whatever
fontconfig picks) sets the run in a proportional font, and every later character drifts off its
cell: "nnxis 96.0 % faster", a label over the wrong bar. Here each character gets its own x position
(its cell), so a fallback font can change how a glyph looks but never where it stands, and the font
asked for first is DejaVu Sans Mono, the monospace font Debian and most Linux systems have by default.
It has no braille (the plots' dots) and no "ℹ" (the Warnings tab's notes): those characters ask for
DejaVu Sans, which has them, and whose other glyphs stand in their cells as well. (Cairo's text API,
which cairosvg uses, falls back to no other font: a glyph the font asked for lacks is a box.)
"""

from __future__ import annotations

import html
import re

from rich.cells import cell_len

_TEXT = re.compile(
    r'<text (?P<before>[^>]*?)x="(?P<x>[0-9.]+)"(?P<middle>[^>]*?) textLength="(?P<length>[0-9.]+)"'
    r"(?P<after>[^>]*)>(?P<body>[^<]*)</text>"
)
FONT_FAMILY = "font-family: DejaVu Sans Mono, Fira Code, monospace;"
SANS_FONT = ' style="font-family: DejaVu Sans, DejaVu Sans Mono, monospace"'
NOT_IN_MONO = frozenset("\u2139")  # ℹ; with the braille block, what tuiperf draws that DejaVu Sans Mono lacks


def in_sans(char: str) -> bool:
    """Whether ``char`` is set in DejaVu Sans (DejaVu Sans Mono has no such glyph)."""
    return "\u2800" <= char <= "\u28ff" or char in NOT_IN_MONO


def _placed(match: re.Match[str]) -> str:
    body = html.unescape(match["body"])
    cells = cell_len(body)
    if not cells:  # a line's end: nothing to place
        return f'<text {match["before"]}x="{match["x"]}"{match["middle"]}{match["after"]}>{match["body"]}</text>'
    x, width = float(match["x"]), float(match["length"]) / cells
    text: list[tuple[str, str]] = []  # (x, character) of each kind
    sans: list[tuple[str, str]] = []
    offset = 0
    for char in body:
        (sans if in_sans(char) else text).append((f"{x + offset * width:.1f}", char))
        offset += cell_len(char)
    return "".join(
        f'<text {match["before"]}x="{" ".join(x for x, _ in placed)}"{match["middle"]}{match["after"]}{font}>'
        f"{html.escape(''.join(c for _, c in placed), quote=False)}</text>"
        for placed, font in ((text, ""), (sans, SANS_FONT))
        if placed
    )


def aligned(svg: str) -> str:
    """``svg`` (Rich's export) with every character at its own cell and a common monospace font first."""
    svg = svg.replace("font-family: Fira Code, monospace;", FONT_FAMILY)
    return _TEXT.sub(_placed, svg)
