"""Ctrl-C while ``run`` prints its report stops the report, not the result: the JSON and the history
entry are complete and the one line says so (it said "the partial result follows" as the table stopped)."""

from __future__ import annotations

import pytest

from tuiperf.cli import main, report
from tuiperf.results import resultfile
from tuiperf.results.history import History

pytestmark = pytest.mark.slow


def test_ctrl_c_during_the_report_says_the_result_is_complete_and_where_it_is(
    fixture_dir, tmp_path, monkeypatch, capsys
):
    printed = report.print_result

    def interrupted(result, **kwargs):
        print(f"variant  median   (the report of {len(result.variants)} variants starts)")
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "print_result", interrupted)
    out, history = tmp_path / "r.json", tmp_path / "h.sqlite"
    argv = ["--history", str(history), "run", "tiny", "--scenarios", fixture_dir, "--in-process", "--budget", "0.2"]
    assert main([*argv, "--json", str(out)]) == 130
    _, stderr = capsys.readouterr()
    assert "Traceback" not in stderr and "partial result follows" not in stderr
    last = stderr.strip().splitlines()[-1]
    assert (
        last
        == f"Ctrl-C: the report stopped here; the result is complete, in {out} and in the history (tuiperf history)"
    )
    saved = resultfile.load(out)
    assert not saved.partial and any(v.ok for v in saved.variants)
    with History(history, readonly=True) as stored:
        assert len(stored.list()) == 1
    monkeypatch.setattr(report, "print_result", printed)
