"""``show`` lays a cluster result out in time linear in its size: the list of how often each process
was the slowest (one entry a process) was wrapped with a copy of the whole line per entry, quadratic:
20,000 entries took 51 s. Counted in characters copied (Rich ``Text.divide``), not in seconds: the
work for four times the entries is about four times the work, where it was sixteen."""

from __future__ import annotations

import factories
import msgspec
import pytest
from rich.text import Text

from tuiperf.cli import main
from tuiperf.results import resultfile
from tuiperf.results.model import Cluster

pytestmark = pytest.mark.slow


def cluster_result(processes: int):
    result = factories.result({"jit": factories.steady(1000.0), "eager": factories.steady(3000.0)})
    result.cluster = Cluster(processes=processes, devices_per_process=1, coordinator="127.0.0.1:1")
    result.variants = [
        msgspec.structs.replace(
            v,
            sampling=msgspec.structs.replace(
                v.sampling,
                process_medians_ns=[1000.0 + i % 7 for i in range(processes)],
                slowest_share=0.1,
                slowest_calls=[i % 13 for i in range(processes)],
            ),
        )
        for v in result.variants
    ]
    return result


def copied_by_show(path, monkeypatch, capsys) -> int:
    copied = [0]
    divide = Text.divide

    def counting(self, offsets):
        copied[0] += len(self.plain)
        return divide(self, offsets)

    monkeypatch.setattr(Text, "divide", counting)
    assert main(["show", str(path), "--width", "100"]) == 0
    monkeypatch.setattr(Text, "divide", divide)
    assert "process 999 in" in capsys.readouterr().out  # every entry is shown, none cut
    return copied[0]


def test_show_of_a_cluster_result_copies_text_in_proportion_to_its_size(tmp_path, monkeypatch, capsys):
    small = resultfile.save(cluster_result(1_000), tmp_path / "small.json")
    large = resultfile.save(cluster_result(4_000), tmp_path / "large.json")
    work_small = copied_by_show(small, monkeypatch, capsys)
    work_large = copied_by_show(large, monkeypatch, capsys)
    assert work_large < 5 * work_small, (work_small, work_large)  # linear: ~4; quadratic: ~16
