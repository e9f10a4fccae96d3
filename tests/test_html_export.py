"""`tuiperf export RUN --format html`: one self-contained page with the run and its scenario's medians
by git commit, the step marked; text from results is data; it opens offline in Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests import factories
from tests.test_by_commit import series
from tuiperf.cli import main
from tuiperf.results.by_commit import by_commit
from tuiperf.results.history import History
from tuiperf.results.html_page import page


def test_the_page_plots_each_variant_by_commit_and_marks_the_step_at_its_commit_alone() -> None:
    runs = series()
    text = page(runs[-1][1], by_commit(runs))
    assert text.count("<svg") == 3  # this run's variants, then "a" and "b" by commit
    steps = re.findall(r'<g class="point"><title>([^<]*)</title>\n[^\n]*\n<polygon class="step"', text)
    assert steps == ["cccccccccc: 1.20 µs [1.20 µs – 1.20 µs] — a step"]
    assert text.count("<circle cx=") == 2 + 2 * 5 - 1  # every other point a dot
    assert "1 step beyond the 95 % intervals" in text


def test_the_page_counts_one_commit_in_the_singular() -> None:
    runs = series()[:1]
    assert "<p>1 commit, oldest first; no steps beyond" in page(runs[0][1], by_commit(runs))


def test_the_page_fetches_nothing_and_holds_text_from_results_as_data() -> None:
    hostile = factories.hostile(factories.result({"a": factories.steady(1000.0), "b": factories.steady(2000.0)}))
    text = page(hostile)
    assert not re.search(r"\b(src|href)=", text) and "<script" not in text and "@import" not in text
    assert "\x1b" not in text and "[link=" in text  # Rich markup is shown as typed, never interpreted
    assert "No run of" in text  # no history given: the by-commit section says why it is empty


def test_export_html_reads_the_scenarios_runs_by_commit_from_the_history(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    with History(path) as history:
        ids = [history.add(result) for _, result in series()]
    out = tmp_path / "page.html"
    assert main(["export", str(ids[-1]), "--format", "html", "--history", str(path), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "5 commits, oldest first; 1 step" in text and text.count("<svg") == 3


CHROMIUM_TIMEOUT_MS = 30_000


@pytest.mark.browser
def test_the_page_opens_in_chromium_with_no_network_and_shows_the_plots(tmp_path: Path) -> None:
    from tests.test_serve import CHROMIUM, CHROMIUM_ARGS

    if CHROMIUM is None:
        pytest.skip("no chromium on this machine (CI installs Debian's: apt-get install chromium)")
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    runs = series()
    html = tmp_path / "page.html"
    html.write_text(page(runs[-1][1], by_commit(runs)), encoding="utf-8")
    requested: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(offline=True, viewport={"width": 900, "height": 1400})
        page_ = context.new_page()
        page_.on("request", lambda request: requested.append(request.url))
        page_.goto(html.as_uri(), timeout=CHROMIUM_TIMEOUT_MS)
        plots = page_.locator("svg")
        assert plots.count() == 3
        boxes = [plots.nth(i).bounding_box() for i in range(3)]
        assert all(box is not None and box["width"] > 600 and box["height"] > 200 for box in boxes)
        assert page_.locator("svg polygon.step").count() == 1
        page_.screenshot(path=str(tmp_path / "page.png"), full_page=True)
        browser.close()
    assert requested == [html.as_uri()]  # the page alone: no font, style sheet, image or script fetched


def test_a_sweeps_and_a_grids_page_plots_every_point_not_an_empty_run():
    """A sweep's result holds its variants in its points: the page said "No variant was measured"."""
    sweep = factories.sweep({"a": [1000.0, 2000.0, 4000.0], "b": [900.0, 1900.0, 3900.0]})
    text = page(sweep)
    assert "No variant was measured" not in text and "At n_args=16" in text
    assert text.count("<svg") == 3 and text.count('<g class="point">') == 2 * 3 + 2  # a, b per point; the last
    grid = page(factories.grid({"a": [1e3] * 6, "b": [2e3] * 6}))
    assert "grid over n_args × size (6 cells)" in grid and grid.count('<g class="point">') == 2 * 6 + 2


def test_a_sweeps_page_names_the_swept_values_not_one_value_it_did_not_measure_alone():
    """A sweep over steps=4,16,64 of a scenario whose default is steps=32: the page's facts said "steps=32
    size=8" (the stored params hold the default for what was swept)."""
    import msgspec

    sweep = factories.sweep({"a": [1000.0, 2000.0, 4000.0]})
    sweep = msgspec.structs.replace(sweep, params={"size": 1, "n_args": 32})
    facts = re.search(r'<p class="muted">(.*?)</p>', page(sweep))
    assert facts is not None and "size=1 n_args=1, 4, 16 (swept)" in facts.group(1)
    assert "n_args=32" not in facts.group(1)
    grid = page(factories.grid({"a": [1e3] * 6}, params={"size": 1, "n_args": 32}))
    assert "n_args=1, 4, 16 (swept)" in grid and "size=1, 64 (swept)" in grid


def test_one_commit_is_said_in_the_singular():
    runs = series()[:1]  # the HTML of a first run read "1 commits, oldest first"
    assert "<p>1 commit, oldest first; no steps beyond" in page(runs[-1][1], by_commit(runs))
