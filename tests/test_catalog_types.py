"""The catalog is typed end to end: structs from the loader to every reader, strict wherever it is read
back (the on-disk cache, ``tuiperf list --json``), and no reader picks it apart by string keys."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from tuiperf.catalog import cache
from tuiperf.contract.catalog import Catalog, LoadError, ParamSpec, ScenarioEntry, VariantEntry, decode

PACKAGE = Path(__file__).resolve().parent.parent / "tuiperf"
FIXTURES = Path(__file__).parent / "fixtures" / "scenarios"

# Every field name of the catalog's structs: a string key with one of these names is how the untyped
# catalog used to be read (entry["path"], scenario.get("last_good"), p["name"], ...).
CATALOG_KEYS = {
    name for struct in (Catalog, ScenarioEntry, ParamSpec, VariantEntry, LoadError) for name in struct.__struct_fields__
} | {"file"}
# String-key reads of other plain data whose keys happen to share a name, each with what it reads.
NOT_CATALOG = {
    ("cli/pytest_plugin.py", "variants"): "the keyword arguments a test passes to tuiperf.check",
    ("results/hlo.py", "id"): "the compiled HLO's stack-frame tables (regex groups)",
    ("results/hlo.py", "name"): "the compiled HLO's instructions (regex groups)",
    ("results/hlo.py", "file"): "the compiled HLO's stack-frame tables (regex groups)",
    ("results/hlo.py", "line"): "the compiled HLO's source lines (regex groups)",
    ("results/op_trace.py", "name"): "a profiler trace's events (Chrome trace format)",
    ("cli/measure.py", "error"): "the run thread's outcome",
    ("tui/screenshot.py", "error"): "the headless app's outcome",
    ("results/resultfile.py", "variants"): "upgrading a result file of an older schema",
    ("results/resultfile.py", "error"): "upgrading a result file of an older schema",
    ("results/device_activity.py", "name"): "a profiler trace's events (Chrome trace format)",
}


def string_key_reads(path: Path) -> list[tuple[int, str]]:
    """``x["key"]`` and ``x.get("key")`` with a catalog field's name, anywhere in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        key = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Constant):
            key = node.slice.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            key = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
        if isinstance(key, str) and key in CATALOG_KEYS:
            found.append((node.lineno, key))
    return found


@pytest.mark.slow
def test_no_module_reads_the_catalog_by_string_keys():
    reads = [
        f"{path.relative_to(PACKAGE)}:{line}: [{key!r}]"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, key in string_key_reads(path)
        if (path.relative_to(PACKAGE).as_posix(), key) not in NOT_CATALOG
    ]
    assert reads == []


def test_the_scan_sees_subscripts_and_gets(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text('a = entry["last_good"]\nb = s.get("origin", "")\nc = d["unrelated"]\n')
    assert string_key_reads(probe) == [(1, "last_good"), (2, "origin")]


@pytest.mark.slow
def test_list_json_decodes_strictly_into_the_catalog():
    out = subprocess.run(
        [sys.executable, "-m", "tuiperf", "list", "--json", "--scenarios", str(FIXTURES)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    catalog = decode(out.stdout)
    tiny = catalog.scenario("tiny")
    assert tiny is not None and tiny.origin == "user" and tiny.params and tiny.variants
    assert all(isinstance(p, ParamSpec) for p in tiny.params)
    assert catalog.scenario("dispatch-floor") is not None and catalog.scenario("dispatch-floor").origin == "built-in"
    assert msgspec.json.decode(msgspec.json.encode(catalog), type=Catalog) == catalog


def test_a_misspelt_field_does_not_decode():
    with pytest.raises(msgspec.ValidationError, match=r"\$\.scenarios\[0\]"):
        decode(b'{"dirs": [], "scenarios": [{"id": "x", "title": "X"}], "broken": []}')  # no path


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "_path", lambda: tmp_path / "catalog.json")
    return tmp_path / "catalog.json"


def a_catalog() -> Catalog:
    entry = ScenarioEntry(
        id="tiny",
        title="Tiny",
        path=str(FIXTURES / "tiny.py"),
        params=[ParamSpec(name="size", kind="int", default=8, min=1, max=64)],
        variants=[VariantEntry(name="jit")],
    )
    return Catalog(dirs=[str(FIXTURES)], scenarios=[entry], broken=[LoadError(path="/x/bad.py", error="E")])


def test_the_cache_gives_back_the_catalog_it_stored(cache_home):
    cache.store([str(FIXTURES)], a_catalog())
    assert cache.load([str(FIXTURES)]) == a_catalog()
    assert cache.load([]) is None  # other folders: a miss


@pytest.mark.parametrize(
    "content",
    [
        b"not json",
        b'{"entries": 3}',
        b'{"entries": [{"key": [], "catalog": {"scenarios": "all of them"}}]}',
        b"[]",
    ],
)
def test_a_bad_cache_file_is_a_miss_and_is_replaced(cache_home, content):
    cache_home.write_bytes(content)
    assert cache.load([str(FIXTURES)]) is None
    cache.store([str(FIXTURES)], a_catalog())
    assert cache.load([str(FIXTURES)]) == a_catalog()


def test_a_cached_entry_with_a_wrong_field_is_a_miss(cache_home):
    cache.store([str(FIXTURES)], a_catalog())
    text = cache_home.read_text().replace('"kind":"int"', '"kind":"complex"')
    cache_home.write_text(text)
    assert cache.load([str(FIXTURES)]) is None
