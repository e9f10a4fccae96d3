"""Text from scenario files and result files, made safe to show: never markup, never a terminal command.

A result file can come from anyone. Its variant names, titles, errors and warnings are shown as plain
text (Rich ``Text``, never markup), and every escape sequence and control character is made visible
first: an OSC 52 sequence in a variant name would otherwise put a command into the viewer's clipboard,
and OSC 0 would retitle their terminal. Standard library only, so the TUI can use it too.
"""

from __future__ import annotations

# Control characters other than tab and newline, C1 controls (\x9b is CSI), lone surrogates, and the
# invisible direction and line-separator marks (which can make a name read as another or break a line).
_INVISIBLE = [
    *range(0x00, 0x09),
    *range(0x0B, 0x20),
    *range(0x7F, 0xA0),
    *range(0xD800, 0xE000),
    0x061C,
    0x200E,
    0x200F,
    0x2028,
    0x2029,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
]


def _visible(code: int) -> str:
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟: the Unicode control pictures
    if code == 0x7F:
        return "␡"
    return f"\\u{code:04x}" if code > 0xFF else f"\\x{code:02x}"


_TABLE = {code: _visible(code) for code in _INVISIBLE}


def inert(value: object, max_len: int | None = None) -> str:
    """``value`` as text that prints as itself. Every control character is replaced by a visible
    stand-in (ESC by ␛, BEL by ␇, C1 controls by ``\\x9b``), so no escape sequence (CSI, OSC 52,
    OSC 0, ...) can reach the terminal; newlines and tabs are kept. Never raises; cut with ``…``
    beyond ``max_len`` characters."""
    try:
        text = value if isinstance(value, str) else str(value)
    except Exception:  # noqa: BLE001 - an object whose __str__ raises is still shown as something
        text = f"<unprintable {type(value).__name__}>"
    if max_len is not None and len(text) > max_len:
        text = text[:max_len]  # each character becomes at least one: cutting first bounds the work
        cut = True
    else:
        cut = False
    text = text.translate(_TABLE)
    if max_len is not None and (cut or len(text) > max_len):
        text = text[: max(max_len - 1, 0)] + "…"
    return text


def one_line(value: object, max_len: int | None = None) -> str:
    """:func:`inert`, with newlines and tabs collapsed to single spaces (table cells, titles)."""
    text = " ".join(inert(value, max_len + 1 if max_len is not None else None).split())
    if max_len is not None and len(text) > max_len:
        text = text[: max(max_len - 1, 0)] + "…"
    return text
