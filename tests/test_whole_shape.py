"""A result is its whole shape: a sweep, several processes or several devices shows as such in every
later view (the history, compare, every export, the script, the app's header), not as one point."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import factories
import pytest

from tuiperf.catalog.folders import file_sha256, scenario_files
from tuiperf.cli import main
from tuiperf.results import resultfile
from tuiperf.results.export import export
from tuiperf.results.history import History
from tuiperf.tui.view import view_of

TINY = Path(__file__).parent / "fixtures" / "scenarios" / "tiny.py"


def sweep(medians=None, values=(1, 4, 16), **fields):
    return factories.sweep(
        medians or {"jit": [1000.0, 1100.0, 1500.0], "eager": [5000.0, 9000.0, 30000.0]},
        values=values,
        scenario="dispatch-floor",
        **fields,
    )


def stored(tmp_path, *runs):
    path = tmp_path / "h.sqlite"
    with History(path) as history:
        ids = [history.add(run) for run in runs]
    return path, ids


def test_the_history_marks_a_sweep_with_its_points_and_medians(tmp_path, capsys):
    a = sweep()
    b = sweep({"jit": [2000.0, 2100.0, 2500.0], "eager": [5000.0, 9000.0, 30000.0]}, values=(4, 16, 64))
    path, _ = stored(tmp_path, a, b)
    with History(path, readonly=True) as history:
        _, oldest = history.list()
    assert (oldest.sweep, [value for value, _ in oldest.points]) == ("n_args", ["1", "4", "16"])
    assert oldest.points[2][1] == {"jit": 1500.0, "eager": 30000.0} and oldest.params == "size=1"
    assert main(["--history", str(path), "history", "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert out.count("sweep over n_args (3 points)") == 2
    assert "n_args=16: jit 1.50 µs · eager 30.0 µs" in out and "n_args=64: jit 2.50 µs · eager 30.0 µs" in out
    assert main(["--history", str(path), "history", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["points"][0] == ["4", {"jit": 2000.0, "eager": 5000.0}]  # two sweeps look different


def test_history_limit_says_how_many_of_how_many(tmp_path, capsys):
    path, _ = stored(tmp_path, *[factories.result({"a": factories.steady(10.0)}) for _ in range(5)])
    assert main(["--history", str(path), "history", "--limit", "3"]) == 0
    assert "3 of 5 runs in" in capsys.readouterr().out
    assert main(["--history", str(path), "history"]) == 0
    assert "5 runs in" in capsys.readouterr().out


def test_a_version_2_history_still_lists_read_only(tmp_path):
    import sqlite3

    from tuiperf.results.history import APPLICATION_ID, MIGRATIONS

    path = tmp_path / "v2.sqlite"
    db = sqlite3.connect(path)
    for step in MIGRATIONS[:2]:
        db.executescript(step)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute("PRAGMA user_version = 2")
    db.commit()
    db.close()
    with History(path, readonly=True) as history:
        assert history.list() == [] and history.count() == 0


def test_compare_of_two_sweeps_matches_points_and_lists_the_unmatched(tmp_path, capsys):
    old = sweep()
    new = sweep({"jit": [1000.0, 1320.0, 2000.0], "eager": [5000.0, 9000.0, 30000.0]}, values=(1, 4, 64))
    paths = [resultfile.save(doc, tmp_path / f"{i}.json") for i, doc in enumerate((old, new))]
    assert main(["compare", *map(str, paths), "--width", "160"]) == 0
    out, err = capsys.readouterr()
    rows = {tuple(line.split()[:2]): line for line in out.splitlines() if line.strip().startswith("n_args=")}
    assert set(rows) == {("n_args=1", "jit"), ("n_args=1", "eager"), ("n_args=4", "jit"), ("n_args=4", "eager")}
    assert " 1.200 " in rows[("n_args=4", "jit")] and " 1.000 " in rows[("n_args=1", "jit")]
    assert "n_args=16: measured in the old run only" in err and "n_args=64: measured in the new run only" in err
    assert "parameter n_args" not in err  # the last points (16 and 64) are not compared with each other


def test_compare_of_a_single_run_with_a_sweep_uses_the_point_at_its_value(tmp_path, capsys):
    old = factories.result(
        {"jit": factories.steady(1100.0), "eager": factories.steady(9000.0)},
        scenario="dispatch-floor",
        params={"size": 1, "n_args": 4},
    )
    paths = [resultfile.save(doc, tmp_path / f"{i}.json") for i, doc in enumerate((old, sweep()))]
    assert main(["compare", *map(str, paths), "--width", "160"]) == 0
    out, err = capsys.readouterr()
    assert "n_args=4" in out and " 1.000 " in out and "a single run → a sweep over n_args (compared at n_args=4)" in err


def test_every_export_holds_every_point(tmp_path):
    run = sweep(devices=4)
    text = export(run, "markdown")
    assert "Sweep over `n_args` (3 points) = 1, 4, 16" in text and "Scenario `dispatch-floor` with `size=1`." in text
    assert "| 16 | 1.50 µs | 30.0 µs (20.0×, 20.0 – 20.0) |" in text  # three figures, as the report
    # each variant's slope, as the report's sweep table gives it (the Markdown had none)
    slopes = run.sweep.slopes if run.sweep else {}
    assert f"| log-log slope | {slopes['jit']:.2f} | {slopes['eager']:.2f} |" in text
    assert "| devices | 4 |" in text
    for value in (1, 4, 16):
        assert f"### At `n_args={value}`" in text
    rows = list(csv.DictReader(io.StringIO(export(run, "csv"))))
    assert {(r["point"], r["variant"]) for r in rows} == {(str(v), n) for v in (1, 4, 16) for n in ("jit", "eager")}
    assert len(rows) == 6 * 300
    back = resultfile.decode(export(run, "json").encode(), where="export")
    assert [p.params["n_args"] for p in back.points] == [1, 4, 16] and back.device.count == 4


@pytest.mark.slow
def test_the_exported_script_retimes_every_point(fixture_dir, tmp_path):
    run = factories.sweep(
        {"jax.jit": [1000.0, 1200.0], "eqx.filter_jit": [9000.0, 9500.0]},
        parameter="size",
        values=(4, 16),
        params={},
        scenario="tiny",
    )
    run.scenario.source_sha256 = file_sha256(TINY)
    script = tmp_path / "repro.py"
    script.write_text(export(run, "script", scenario_files=scenario_files([fixture_dir])))
    done = subprocess.run([sys.executable, str(script), "0.02"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    at = [i for i, line in enumerate(lines) if line.startswith("at size=")]
    assert [lines[i] for i in at] == ["at size=4", "at size=16"]
    for start, stored_ns in zip(at, ("1 µs", "1.2 µs"), strict=True):
        timed = {line.split()[0]: line for line in lines[start + 2 : start + 4]}
        assert set(timed) == {"jax.jit", "eqx.filter_jit"} and timed["jax.jit"].endswith(stored_ns)


def test_the_app_header_names_the_sweep_its_devices_and_processes():
    view = view_of(sweep(devices=4))
    assert view.header == (
        "dispatch-floor · cpu:0 · 4 devices · sync dispatch · sweep over n_args (3 points) · size=1 · at n_args=16"
    )
    single = factories.result({"a": factories.steady(10.0)}, scenario="dispatch-floor", processes=3, params={"x": 1})
    assert view_of(single).header == "dispatch-floor · cpu:0 · 3 processes · sync dispatch · x=1"


@pytest.mark.parametrize("devices", [1, 4])
def test_the_text_report_names_the_device_count(devices, tmp_path, capsys):
    run = factories.result({"a": factories.steady(10.0)}, scenario="sharded-step", devices=devices)
    path = resultfile.save(run, tmp_path / "r.json")
    assert main(["show", str(path), "--width", "160"]) == 0
    assert ("4 devices" in capsys.readouterr().out) == (devices == 4)


def test_the_markdown_and_history_of_a_run_in_three_processes(tmp_path, capsys):
    run = factories.result({"a": factories.steady(10.0)}, scenario="dispatch-floor", processes=3)
    assert "| processes | 3 |" in export(run, "markdown")


def test_the_crossover_of_an_extra_fixed_cost_is_found_from_the_points():
    from tuiperf.results.crossover import sentences

    run = factories.crossing_sweep()
    ten, one = run.sweep.crossovers
    assert (ten.share, ten.where, one.share, one.where) == (0.1, "inside", 0.01, "beyond")
    assert ten.extra_ns == pytest.approx(23_000, rel=0.01) and ten.at == pytest.approx(197_000, rel=0.01)
    assert ten.at_ci95[0] <= ten.at <= ten.at_ci95[1]
    ten_text, one_text = sentences(run)
    assert ten_text.startswith("eqx.filter_jit's +23.0 µs over jax.jit is under 10 % of the call above batch ≈ 200,000")
    assert ten_text.endswith("on cpu:0")
    assert "never falls under 1 % of the call within the swept range: at batch=1,000,000 it is still 2 %" in one_text
    section = export(run, "markdown").split("### Does the extra fixed cost matter at your size?")[1]
    assert "- eqx.filter\\_jit's +23.0 µs over jax.jit is under 10 % of the call above batch ≈ 200,000" in section
    assert view_of(run).crossovers == [ten_text, one_text]  # the app's Sweep tab


def test_no_crossover_for_a_sweep_that_is_not_over_a_size_or_without_extra_cost():
    from tuiperf.results.crossover import sentences

    assert factories.sweep({"a": [1.0, 2.0, 3.0], "b": [2.0, 3.0, 4.0]}, values=("x", "y", "z")).sweep.crossovers == []
    assert factories.sweep({"a": [1.0, 2.0]}, values=(1, 2)).sweep.crossovers == []
    flat = factories.sweep({"a": [5000.0, 5000.0, 5000.0], "b": [9000.0, 9000.0, 9000.0]}, values=(1, 2, 4))
    assert {c.where for c in flat.sweep.crossovers} == {"never"}
    [line] = sentences(flat)  # the same for 10 % and 1 %: said once
    assert "never falls under 10 % of the call: the call does not grow with n_args" in line


def test_the_histogram_keeps_the_fastest_variants_left_tail_and_counts_both_tails():
    from tuiperf.tui.formatting import histogram_range
    from tuiperf.tui.widgets.histogram import LatencyHistogram

    fast = [500.0] * 100 + factories.steady(1000.0, n=900)  # 10 % of its calls on a faster path
    slow = factories.steady(5000.0, n=1000) + [90_000.0] * 20  # a few calls far to the right
    lo, hi = histogram_range({"fast": fast, "slow": slow})
    assert lo <= 500.0 and hi < 90_000.0
    plot = LatencyHistogram()
    plot.set_series({"fast": fast, "slow": slow})
    assert plot._outside("fast", sorted(fast), 600.0, hi) == (100, 0)
    assert plot._outside("slow", sorted(slow), lo, hi) == (0, 20)
    assert str(plot._title(["fast", "slow"], (100, 20), False)).endswith("100 left and 20 right of the axis")


def test_bytes_never_read_in_exponent_form():
    from tuiperf.common.units import format_bytes

    assert format_bytes(1023.9 * 1024) == "1024 KiB" and format_bytes(1000 * 1024) == "1000 KiB"
    assert format_bytes(12 * 2**20) == "12 MiB" and format_bytes(-1536) == "−1.5 KiB"


def test_a_gap_within_noise_gets_no_stage_shares():
    from tuiperf.results.reconcile import reconcile
    from tuiperf.results.verdict import gap_words

    paths = {
        "call": 1000.0,
        "jit": 990.0,
        "flat_jit": 980.0,
        "noop_jit": 900.0,
        "noop_execute": 850.0,
        "flat_leaves": 970.0,
    }
    other = {**paths, "call": 1000.03, "jit": 989.0}
    a = factories.variant("a", samples=factories.steady(1000.03, spread=101), breakdown=factories.breakdown(other))
    b = factories.variant("b", samples=factories.steady(1000.0, spread=101), breakdown=factories.breakdown(paths))
    split = reconcile(a, b)
    assert abs(split.gap_ns) < 1 and all(s.share is None for s in split.stages)
    assert "%" not in gap_words(split) and "more than the whole gap" not in gap_words(split)


def test_the_history_trend_groups_runs_by_parameters_and_environments(tmp_path):
    from tuiperf.results import environments
    from tuiperf.results.history import trend

    runs = [
        factories.result({"jit": factories.steady(1000.0)}, scenario="tiny", params={"size": 8}),
        factories.result({"jit": factories.steady(9000.0)}, scenario="tiny", params={"size": 4096}),
        factories.result({"jit": factories.steady(1100.0)}, scenario="tiny", params={"size": 8}),
        factories.result(
            {environments.qualified("jit", e): factories.steady(1000.0) for e in ("current", "other")},
            scenario="tiny",
            params={"size": 8},
        ),
    ]
    path, ids = stored(tmp_path, *runs)
    with History(path, readonly=True) as history:
        listed = history.list()
    by_id = {run.id: run for run in listed}
    small = trend(listed, like=by_id[ids[2]])
    assert small.values == [f"#{ids[0]} jax 0.10.2", f"#{ids[2]} jax 0.10.2"]  # not the size=4096 run
    assert small.medians_ns["jit"] == [pytest.approx(1000.0), pytest.approx(1100.0)]
    two = trend(listed, like=by_id[ids[3]])
    assert two.values == [f"#{ids[3]} 2 environments"] and set(two.medians_ns) == {"jit @ current", "jit @ other"}


@pytest.mark.parametrize("shape", ["sweep", "grid"])
def test_a_sweep_in_several_processes_pools_every_point_of_every_process(shape):
    """`--processes 2 --sweep ...`: every point pools both processes' samples and keeps their medians (before,
    a sweep kept the first process's points alone while its header said "2 processes")."""
    from tuiperf.processes.repeat import combine

    def one(scale: float):
        if shape == "grid":
            return factories.grid({"jit": [scale * m for m in (1000, 1100, 1200, 1300, 1400, 1500)]}, processes=2)
        return sweep({"jit": [scale * m for m in (1000, 1100, 1500)]}, processes=2)

    first, second = one(1.0), one(1.3)
    combined = combine([first, second], planned=2)
    assert combined.sweep is not None and combined.sweep.grid == first.sweep.grid
    assert combined.sweep.values == first.sweep.values and len(combined.points) == len(first.points)
    for i, point in enumerate(combined.points):
        jit = point.variant("jit")
        one_process = first.points[i].variant("jit")
        assert jit is not None and one_process is not None and jit.sampling.stats is not None
        assert len(jit.sampling.samples_ns) == 2 * len(one_process.sampling.samples_ns)
        assert jit.sampling.process_medians_ns == [
            first.points[i].variant("jit").sampling.stats.median_ns,
            second.points[i].variant("jit").sampling.stats.median_ns,
        ]
        assert combined.sweep.medians_ns["jit"][i] == jit.sampling.stats.median_ns
    assert not combined.partial
    assert combine([first], planned=2).warnings[0] == "partial result: 1 of 2 processes ran"


def test_several_processes_keep_every_process_s_recompile_causes_and_say_them_once():
    """`--processes N` summed the recompiles but dropped their causes: the combined variant said both the
    first process's "…: the shape changed" and a new "JAX explained no cache miss"."""
    from tuiperf.processes.repeat import combine

    def one(causes: list[str]):
        run = factories.result({"jit": factories.steady(1000.0)}, scenario="dispatch-floor", processes=2)
        entry = run.variants[0]
        run.variants[0] = factories.variant(
            "jit", samples=entry.sampling.samples_ns, retraces=1, recompiles=1, recompile_causes=causes
        )
        return run

    combined = combine([one(["x: shape (2,) -> (3,)"]), one(["y: dtype float32 -> int32"])], planned=2)
    jit = combined.variant("jit")
    assert jit is not None and jit.recompiles.recompiles == 2
    assert jit.recompiles.causes == ["x: shape (2,) -> (3,)", "y: dtype float32 -> int32"]
    compiles = [w for w in jit.warnings if "XLA compilation(s)" in w]
    assert len(compiles) == 1 and compiles[0].startswith("2 XLA compilation(s)") and "y: dtype" in compiles[0]


def test_several_processes_pool_a_tried_remedy_and_make_its_ratio_again():
    """`--processes 2` kept the first process's tried remedy: its samples and its ratio were that process's
    alone (here 0.50×), beside an original pooled from both; now both are pooled (≈ 0.40×)."""
    from tuiperf.processes.repeat import combine
    from tuiperf.results import document
    from tuiperf.results.model import Tried

    def one(eager: float, jitted: float, same: bool | None):
        run = factories.result({"eager": factories.steady(eager)}, scenario="grad-eager", processes=2)
        remedied = factories.variant("eager ⟨jit⟩", factories.steady(jitted))
        rows = document.comparisons([run.variants[0], remedied])
        remedy = "put jax.jit around the call"
        run.tried = [Tried(of="eager", remedy=remedy, evidence="e", result=remedied, ratio=rows[0], same_outputs=same)]
        return run

    first, second = one(1000.0, 500.0, True), one(1000.0, 300.0, None)
    combined = combine([first, second], planned=2)
    (tried,) = combined.tried
    assert tried.result is not None and tried.result.sampling.stats is not None
    assert len(tried.result.sampling.samples_ns) == 2 * len(first.tried[0].result.sampling.samples_ns)
    assert tried.result.sampling.process_medians_ns == pytest.approx([500.0, 300.0], rel=0.02)
    assert tried.ratio is not None and first.tried[0].ratio is not None
    assert first.tried[0].ratio.ratio == pytest.approx(0.5, rel=0.02)
    assert tried.ratio.ratio == pytest.approx(tried.result.sampling.stats.median_ns / 1000.0, rel=0.02)
    assert tried.ratio.ratio < 0.45  # the pooled median lies between the processes' 300 and 500
    assert tried.same_outputs is None  # one process could not compare them: not "same"
    assert combine([first, one(1000.0, 300.0, False)], planned=2).tried[0].same_outputs is False
