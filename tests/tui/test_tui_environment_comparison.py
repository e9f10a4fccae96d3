"""A run over several Python environments in the result tabs: Statistics lists the environments and
each variant against the reference environment (ratio, CI, p, the versions that differ); Breakdown
says which stage moved between them; the same for the run stored in the history and opened with h.
The result is tests/fixtures/results/two-environments.json (training-step in `current` and `other`)."""

from __future__ import annotations

from pathlib import Path

from tui_helpers import FakeRunner, ready, sync, wait_until

from tuiperf.results.history import History
from tuiperf.results.resultfile import load
from tuiperf.tui.app import TuiperfApp
from tuiperf.tui.environment_lines import environment_lines

FIXTURE = Path(__file__).parent.parent / "fixtures" / "results" / "two-environments.json"


def _text(widget) -> str:
    return str(widget.render())


def test_statistics_lines_name_each_environment_and_each_variants_ratio():
    lines = [line.plain for line in environment_lines(load(FIXTURE), width=100)]
    assert lines[0] == "Python environments (the first is the reference)"
    assert lines[1] == "current  Python 3.11.7  /work/main/.venv/bin/python"
    assert lines[2] == "         jax 0.10.2 · jaxlib 0.10.2 · equinox 0.13.8 · flax 0.12.8 · optax 0.2.8 · numpy 2.4.6"
    assert lines[3:5] == ["other    Python 3.11.2  /tmp/env2/bin/python", "         differs: Python 3.11.7 → 3.11.2"]
    assert "other against current: Python 3.11.7 → 3.11.2" in lines
    # one process each: no p, and the gap is not a finding (tests/test_findings.py)
    assert "plain-jax.jit    0.924×  0.923 – 0.925  —  7.6 % faster, undecided (one process each)" in lines
    assert "eqx-filter_jit   0.848×  0.844 – 0.852  —  15.2 % faster, undecided (one process each)" in lines


def test_a_narrow_tab_stacks_each_variants_figures_under_its_name():
    lines = [line.plain for line in environment_lines(load(FIXTURE), width=40)]
    at = lines.index("plain-jax.jit")
    assert lines[at + 1 : at + 4] == [
        "  ratio 0.924×   95% CI 0.923 – 0.925",
        "  p —",
        "  verdict 7.6 % faster, undecided (one process each)",
    ]


def test_a_variant_measured_in_one_environment_only_is_said_not_compared():
    result = load(FIXTURE)
    gone = "nnx-nnx.jit @ current"  # as when it failed there: no result, no comparison
    result.variants = [v for v in result.variants if v.name != gone]
    result.comparisons = [c for c in result.comparisons if gone not in (c.a, c.b)]
    lines = [line.plain for line in environment_lines(result, width=100)]
    assert lines[-1] == "not compared (no result in both): nnx-nnx.jit @ other"
    assert not any(line.startswith("nnx-nnx.jit ") for line in lines)


@sync
async def test_the_statistics_and_breakdown_tabs_of_a_stored_run_over_two_environments(saved, tmp_path):
    path = tmp_path / "history.sqlite"
    with History(path) as history:
        run_id = history.add(load(FIXTURE))
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path, history_path=path)
    async with app.run_test(size=(120, 50)) as pilot:
        main = await ready(pilot)
        await pilot.press("escape", "h")
        screen = app.screen
        screen.query_one("#history-filter").value = ""
        await wait_until(pilot, lambda: any(r.id == run_id for r in screen.runs), what="the stored run listed")
        table = screen.query_one("#history-table")
        table.move_cursor(row=[r.id for r in screen.runs].index(run_id))
        table.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: main.result is not None, what="the stored run shown")
        await pilot.pause()
        stats = _text(main.query_one("#stats-environments"))
        assert "current  Python 3.11.7" in stats and "differs: Python 3.11.7 → 3.11.2" in stats
        assert (  # stacked: the words that say it is not a finding make the table wider than the tab
            "nnx-graph=False\n  ratio 0.826×   95% CI 0.821 – 0.833   p —\n  verdict 17.4 % faster, undecided"
        ) in stats
        main.action_show_tab("breakdown")
        await app.plots_settled()
        bars = _text(main.query_one("#breakdown-bars"))
        assert "between environments, by stage (against current)" in bars
        assert "eqx-filter_jit @ other − eqx-filter_jit @ current = −13.8 µs: framework −10.6 µs, 77 % of it" in bars


@sync
async def test_a_run_in_one_environment_shows_no_environments_block(saved, tmp_path):
    app = TuiperfApp(FakeRunner(saved), scenario_dirs=[], screenshots_dir=tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        main = await ready(pilot)
        main.show_result(saved["result"])
        main.action_show_tab("stats")
        await pilot.pause()
        assert not main.query_one("#stats-environments").display
        main.action_show_tab("breakdown")
        await app.plots_settled()
        assert "between environments" not in _text(main.query_one("#breakdown-bars"))
