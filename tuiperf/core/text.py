"""Text from scenario files and result files, made safe to show: never markup, never a terminal command.

A result file can come from anyone. Its variant names, titles, errors and warnings are shown as plain
text (Rich ``Text``, never markup), and every escape sequence and control character is made visible
first: an OSC 52 sequence in a variant name would otherwise put a command into the viewer's clipboard,
and OSC 0 would retitle their terminal. Standard library only, so the TUI can use it too.
"""

from __future__ import annotations

import re

# Control characters other than tab and newline, C1 controls (\x9b is CSI), lone surrogates and
# bidirectional overrides (which can make a name read as another).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


def _visible(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟: the Unicode control pictures
    if code == 0x7F:
        return "␡"
    return f"\\u{code:04x}" if code > 0xFF else f"\\x{code:02x}"


def inert(value: object, max_len: int | None = None) -> str:
    """``value`` as text that prints as itself. Every control character is replaced by a visible
    stand-in (ESC by ␛, BEL by ␇, C1 controls by ``\\x9b``), so no escape sequence (CSI, OSC 52,
    OSC 0, ...) can reach the terminal; newlines and tabs are kept. Never raises; cut with ``…``
    beyond ``max_len`` characters."""
    try:
        text = value if isinstance(value, str) else str(value)
    except Exception:  # noqa: BLE001 - an object whose __str__ raises is still shown as something
        text = f"<unprintable {type(value).__name__}>"
    if max_len is not None and len(text) > 4 * max_len:
        text = text[: 4 * max_len]  # bound the work before the regular expressions
    text = _CONTROL.sub(lambda m: _visible(m.group(0)), text)
    if max_len is not None and len(text) > max_len:
        text = text[: max(max_len - 1, 0)] + "…"
    return text


def one_line(value: object, max_len: int | None = None) -> str:
    """:func:`inert`, with newlines and tabs collapsed to single spaces (table cells, titles)."""
    text = " ".join(inert(value).split())
    if max_len is not None and len(text) > max_len:
        text = text[: max(max_len - 1, 0)] + "…"
    return text
