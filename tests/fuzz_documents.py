"""Generated result documents and the outputs they must survive (the unit test and
``benchmarks/result_fuzz.py`` share this).

A document starts from a real one (a run with every kind of text, a sweep, a version-1 file), has
any field replaced by a value of any JSON type, its texts replaced by random text full of control
characters and markup, or its bytes cut or made invalid UTF-8. :func:`outputs` sends it through
``show``, ``compare``, every export and the app's result view and returns what was printed.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import tempfile
import traceback
from pathlib import Path
from typing import Any

import factories
import msgspec
from hypothesis import strategies as st

from tuiperf.results import document

FIXTURE_V1 = Path(__file__).parent / "fixtures" / "results" / "v1_tiny_sin_sweep.json"
# C0 controls but newline and tab, DEL, C1 controls, the bidi overrides and line separators.
RAW = {chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]} | set(
    "\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
PIECES = ["[/]", "[bold]", "[link=file:///etc/passwd]", "\x1b]52;c;Y3VybA==\x07", "\x9b2J", '"""', "`", "|", "\r"]


def raw_controls(text: str) -> list[str]:
    return sorted({repr(c) for c in text if c in RAW})


@functools.cache
def bases() -> list[dict[str, Any]]:
    """Real documents to start from: a run with every kind of text, a sweep, a version-1 sweep."""
    from test_hostile_outputs import rich_result

    run = rich_result()
    points = [
        factories.result({"a": factories.steady(m), "b": factories.steady(2 * m)}, params={"n": n})
        for n, m in ((1, 1000.0), (8, 4000.0))
    ]
    sweep = document.sweep_result("n", [1, 8], points, factories.header(params={"n": 1}), duration_s=2.0)
    return [msgspec.to_builtins(run), msgspec.to_builtins(sweep), json.loads(FIXTURE_V1.read_text())]


texts = st.one_of(
    st.text(max_size=30),
    st.lists(st.sampled_from(PIECES) | st.characters(max_codepoint=0x20AF), max_size=12).map("".join),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=8,
)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _set(doc: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    *parents, last = path
    node = doc
    for key in parents:
        node = node[key]
    node[last] = value
    return doc


@st.composite
def documents(draw: Any) -> bytes:
    """Bytes of a result document, mostly valid in shape, hostile in content."""
    doc = json.loads(json.dumps(draw(st.sampled_from(bases()))))
    if draw(st.booleans()):  # every text becomes random text

        def walk(value: Any) -> Any:
            if isinstance(value, str):
                return draw(texts) if value not in ("ok", "failed", "skipped") else value
            if isinstance(value, dict):
                return {k: walk(v) for k, v in value.items()}
            if isinstance(value, list):
                return [walk(v) for v in value]
            return value

        doc = walk(doc)
    paths = _paths(doc)
    for _ in range(draw(st.integers(0, 4))):  # any field, any type
        doc = _set(doc, draw(st.sampled_from(paths[1:])), draw(json_values))
        paths = _paths(doc)
    data = json.dumps(doc, allow_nan=True).encode("utf-8", "surrogatepass")
    damage = draw(st.sampled_from(["none"] * 6 + ["cut", "bad utf-8"]))
    if damage == "cut":
        data = data[: draw(st.integers(0, len(data)))]
    elif damage == "bad utf-8":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + b"\xff\xc3" + data[at:]
    return data


def outputs(data: bytes, folder: Path) -> tuple[str, str | None]:
    """Everything printed for ``data`` by show, compare, every export and the app's result view, and
    the traceback of any exception that was not a one-line user error (None: there was none)."""
    from tuiperf.cli import main
    from tuiperf.common.errors import TuiperfError
    from tuiperf.results.resultfile import decode
    from tuiperf.tui.view import view_of
    from tuiperf.tui.widgets.stats_table import verdicts

    path = folder / "doc.json"
    path.write_bytes(data)
    benign = folder / "benign.json"
    if not benign.exists():
        benign.write_text(json.dumps(bases()[0]))
    printed = io.StringIO()
    commands = [
        ["show", str(path), "--width", "100", "--profiles"],
        ["show", str(path), "--width", "30"],
        ["compare", str(benign), str(path), "--force"],
        *[["export", str(path), "--format", fmt] for fmt in ("markdown", "csv", "json", "script")],
    ]
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            for argv in commands:
                main(argv)
        try:
            result = decode(data)
        except TuiperfError:
            return printed.getvalue(), None
        view = view_of(result)
        printed.write(view.header + view.note)
        if view.shown is not None:
            printed.write(verdicts(view.shown, view.order[0] if view.order else None).plain)
    except Exception:  # noqa: BLE001 - what the fuzz counts
        return printed.getvalue(), traceback.format_exc()
    return printed.getvalue(), None


@contextlib.contextmanager
def scratch() -> Any:
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder)


def hostile_results(count: int, seed: int = 0) -> list[Any]:
    """``count`` results from the real documents with every text replaced by random text full of
    control characters, escape sequences and markup (now and then one shared by several fields: repeated
    variant names), statuses kept: the texts the app draws. Seeded ``random``, not Hypothesis: a thousand
    in seconds, where :func:`documents` draws about six for each that decodes to a result."""
    import random

    from tuiperf.common.errors import TuiperfError
    from tuiperf.results.resultfile import decode

    rng = random.Random(seed)
    shared = ["", "[/]", "\x1b]0;t\x07", "a"]

    def text() -> str:
        if rng.random() < 0.1:
            return rng.choice(shared)
        chars = [
            rng.choice(PIECES) if rng.random() < 0.3 else chr(rng.randrange(0x20B0)) for _ in range(rng.randrange(12))
        ]
        return "".join("\ufffd" if 0xD800 <= ord(c[0]) < 0xE000 and len(c) == 1 else c for c in chars)

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return value if value in ("ok", "failed", "skipped") else text()
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    found: list[Any] = []
    while len(found) < count:
        doc = walk(rng.choice(bases()))
        try:
            found.append(decode(json.dumps(doc).encode("utf-8")))
        except TuiperfError:
            continue
    return found
