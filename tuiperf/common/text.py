"""Text from scenario files and result files, made safe to show: never markup, never a terminal command.

A result file can come from anyone. Its variant names, titles, errors and warnings are shown as plain
text (Rich ``Text``, never markup), and every escape sequence and control character is made visible
first: an OSC 52 sequence in a variant name would otherwise put a command into the viewer's clipboard,
and OSC 0 would retitle their terminal. Standard library only, so the TUI can use it too.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import types
import typing
from typing import Any, TypeVar

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


_T = TypeVar("_T")


def inert_data(value: _T) -> _T:
    """``value`` with every text in it made :func:`inert`: strings, and those inside lists, tuples,
    dicts (keys too), dataclasses and msgspec structs, at any depth. What the app draws from a result,
    a run's events or a history row passes here once, where it enters the app's widgets; the original
    is kept unchanged for what is written (exports, the history). The same object comes back when
    nothing in it needed a change, and fields typed as numbers only (the samples) are not visited: a
    result of a million samples costs what its texts cost."""
    return _inert_data(value)  # type: ignore[no-any-return]


def _inert_data(value: Any) -> Any:
    if isinstance(value, str):
        shown = inert(value)
        return value if shown == value else shown
    if isinstance(value, list | tuple):
        items = [_inert_data(item) for item in value]
        changed = any(new is not old for new, old in zip(items, value, strict=True))
        return (items if isinstance(value, list) else type(value)(items)) if changed else value
    if isinstance(value, dict):
        pairs = [(_inert_data(k), _inert_data(v)) for k, v in value.items()]
        changed = any(nk is not k or nv is not v for (nk, nv), (k, v) in zip(pairs, value.items(), strict=True))
        return dict(pairs) if changed else value
    record: Any = type(value)
    names = _text_fields(record) if hasattr(record, "__struct_fields__") or dataclasses.is_dataclass(value) else ()
    if not names:
        return value
    changes = {}
    for name in names:
        old = getattr(value, name)
        new = _inert_data(old)
        if new is not old:
            changes[name] = new
    if not changes:
        return value
    if dataclasses.is_dataclass(value):
        return dataclasses.replace(value, **changes)  # type: ignore[type-var]
    import msgspec

    return msgspec.structs.replace(value, **changes)


@functools.cache
def _text_fields(record: Any) -> tuple[str, ...]:
    """The fields of a struct or dataclass that may hold text: all but those typed as numbers only."""
    names = getattr(record, "__struct_fields__", None)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(record))
    try:
        hints = typing.get_type_hints(record)
    except Exception:  # noqa: BLE001 - an annotation that does not resolve: visit the field
        hints = {}
    return tuple(name for name in names if not _numbers_only(hints.get(name, Any)))


def _numbers_only(hint: Any) -> bool:
    if hint in (int, float, bool, type(None)):
        return True
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (list, tuple, typing.Union, types.UnionType) and args:
        return all(arg is Ellipsis or _numbers_only(arg) for arg in args)
    return False


# The invisible characters JSON may carry raw in UTF-8 (C0 controls every encoder escapes already): C1
# controls (U+009B is a CSI to many terminals), DEL, bidi marks and line separators, matched as UTF-8.
_RAW_IN_JSON = re.compile(rb"\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]")


def inert_json(data: bytes) -> bytes:
    """UTF-8 JSON with every invisible character escaped (``\\u009b``): the same data, and a document
    that prints inert in a terminal."""
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group().decode('utf-8')):04x}".encode("ascii"), data)


# The editor shows each invisible character as a named stand-in it can give back on saving.
_C0_NAMES = [
    "NUL",
    "SOH",
    "STX",
    "ETX",
    "EOT",
    "ENQ",
    "ACK",
    "BEL",
    "BS",
    "HT",
    "LF",
    "VT",
    "FF",
    "CR",
    "SO",
    "SI",
    "DLE",
    "DC1",
    "DC2",
    "DC3",
    "DC4",
    "NAK",
    "SYN",
    "ETB",
    "CAN",
    "EM",
    "SUB",
    "ESC",
    "FS",
    "GS",
    "RS",
    "US",
]
_EDITABLE = {c: (_C0_NAMES[c] if c < 0x20 else "DEL" if c == 0x7F else f"U+{c:04X}") for c in _INVISIBLE}
_STAND_IN = {code: f"⟨{name}⟩" for code, name in _EDITABLE.items() if not 0xD800 <= code < 0xE000}
_GIVEN_BACK = {stand_in: chr(code) for code, stand_in in _STAND_IN.items()}
_STAND_INS = re.compile("|".join(re.escape(s) for s in _GIVEN_BACK))


def with_stand_ins(text: str) -> str:
    """``text`` with each control character (C0 but tab and newline, DEL, C1, bidi and line-separator
    marks) written as a visible stand-in, ``⟨ESC⟩``, ``⟨U+009B⟩``: the editor shows a file so, and
    :func:`without_stand_ins` gives the characters back on saving."""
    return text.translate(_STAND_IN)


def without_stand_ins(text: str) -> str:
    """The inverse of :func:`with_stand_ins` (a stand-in typed becomes its character too)."""
    return _STAND_INS.sub(lambda m: _GIVEN_BACK[m.group()], text)
