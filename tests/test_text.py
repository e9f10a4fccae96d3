"""Text from files others wrote is shown inert: no escape sequence, control or bidi mark survives."""

from __future__ import annotations

import time

from tuiperf.common.text import inert, one_line

PAYLOADS = {
    "osc52 clipboard": "pwn\x1b]52;c;ZWNobyBoYWNrZWQ=\x07",
    "osc0 title": "x\x1b]0;owned\x1b\\y",
    "csi colour": "\x1b[31mred\x1b[0m",
    "c1 csi": "a\x9b2Jb",
    "bell": "ding\x07",
    "bidi override": "report\u202egnp.exe",
    "line separator": "one\u2028two",
    "lone surrogate": "bad\ud800",
}
FORBIDDEN = ["\x1b", "\x07", "\x9b", "\x9c", "\u202e", "\u2028", "\ud800"]


def test_every_payload_is_made_visible():
    for name, payload in PAYLOADS.items():
        shown = inert(payload)
        assert not any(c in shown for c in FORBIDDEN), name
    assert inert(PAYLOADS["osc52 clipboard"]) == "pwn␛]52;c;ZWNobyBoYWNrZWQ=␇"
    assert inert("a\x9b2Jb") == "a\\x9b2Jb"


def test_markup_and_newlines_are_text():
    assert inert("[/] [link=file:///etc/passwd]x[/link]\nok\t!") == "[/] [link=file:///etc/passwd]x[/link]\nok\t!"
    assert one_line("a\n\n b\tc") == "a b c"


def test_never_raises_and_cuts():
    class Unprintable:
        def __str__(self):
            raise ValueError

    assert inert(Unprintable()) == "<unprintable Unprintable>"
    assert inert("x" * 100, 10) == "x" * 9 + "…"
    assert one_line("\x1b" * 100, 5) == "␛␛␛␛…"


def test_long_hostile_input_is_handled_in_bounded_time():
    payload = "\x1b" * 2_000_000
    start = time.perf_counter()
    inert(payload)
    one_line(payload, 40)
    assert time.perf_counter() - start < 5  # a hang guard; it takes a few ms
