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


def test_inert_data_makes_every_text_inert_at_any_depth_and_keeps_what_needs_no_change():
    import factories
    from test_hostile_outputs import rich_result

    from tuiperf.common.text import inert_data
    from tuiperf.contract.events import RunStarted

    benign = rich_result()
    assert inert_data(benign) is benign  # nothing to change: the same object, nothing copied
    hostile = factories.hostile(benign)
    shown = inert_data(hostile)
    assert "\x1b" not in repr(shown.variants[0].name) and shown.variants[0].name.startswith("jit")
    assert shown.variants[0].sampling.samples_ns is hostile.variants[0].sampling.samples_ns  # numbers are not visited
    assert hostile.variants[0].name.endswith(factories.HOSTILE)  # the original is unchanged
    event = inert_data(RunStarted("s", ["a\x1b]0;t\x07"], "cpu:0", "sync", sweep_value={"k\x9b": ("v\x07",)}))
    assert event.variants == ["a␛]0;t␇"] and event.sweep_value == {"k\\x9b": ("v␇",)}
