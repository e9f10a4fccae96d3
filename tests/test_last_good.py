"""A scenario whose file breaks stays runnable in its last good version, marked with the error."""

from pathlib import Path

from tuiperf.catalog.last_good import keep_last_good, remember
from tuiperf.contract.catalog import Catalog, LastGood, LoadError, ScenarioEntry


def catalog_of(scenarios=(), broken=()):
    return Catalog(scenarios=list(scenarios), broken=list(broken))


def test_a_broken_file_that_loaded_before_is_listed_from_a_copy(tmp_path):
    source = tmp_path / "mine.py"
    source.write_text("GOOD = 1\n")
    good = ScenarioEntry(id="mine", title="Mine", path=str(source))
    remembered = {}
    remember(catalog_of([good]), remembered)
    source.write_text("def broken(:\n")
    bad = LoadError(path=str(source), line=1, error="SyntaxError: invalid syntax")
    merged = keep_last_good(catalog_of([], [bad]), remembered, tmp_path / "last-good")
    assert merged.broken == []
    [entry] = merged.scenarios
    assert entry.title == "Mine" and entry.last_good == LastGood(file=str(source), line=1, error=bad.error)
    assert entry.path != str(source) and Path(entry.path).read_text() == "GOOD = 1\n"
    remember(merged, remembered)  # the copy is not remembered as the file's new good version
    assert remembered[str(source)][1] == "GOOD = 1\n"


def test_a_file_never_seen_good_stays_broken(tmp_path):
    bad = LoadError(path=str(tmp_path / "new.py"), line=3, error="NameError: x")
    merged = keep_last_good(catalog_of([], [bad]), {}, tmp_path)
    assert merged.broken == [bad] and merged.scenarios == []
