"""The machine in every result: what was read, and the busy warning decided from two readings."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from tests import factories
from tuiperf.cli.report import print_result
from tuiperf.results import machine
from tuiperf.results.machine import Process, Reading
from tuiperf.results.model import BusyProcess, Machine
from tuiperf.results.resultfile import decode, encode

TICKS = 100.0
ROOT = 1000  # the process that started the run


def reading(at_s: float, busy_ticks: int, ticks: dict[int, tuple[int, str, int, int]], load: float = 0.5) -> Reading:
    """``ticks``: pid → (ppid, name, CPU ticks so far, its waited-for children's ticks so far)."""
    processes = {pid: Process(pid, ppid, name, t, c) for pid, (ppid, name, t, c) in ticks.items()}
    return Reading(at_s, (load, load, load), busy_ticks, processes)


def quiet_and_hogged(hog_ticks: int) -> tuple[Reading, Reading]:
    """A 10 s run on 2 cores: the run's tree (ROOT, its measuring process 1001 and that one's child
    1002, which ended during the run and was waited for) used 1 core; a hog (pid 50) used ``hog_ticks``
    over the 10 s; init used 30 ticks and waited for an old process whose 5000 ticks ran before."""
    start = reading(
        0.0,
        5_000,
        {
            1: (0, "init", 10, 0),
            ROOT: (1, "tuiperf", 200, 0),
            1001: (ROOT, "python", 50, 0),
            1002: (1001, "x", 5, 0),
            50: (1, "hog", 0, 0),
        },
    )
    # the run: ROOT +100, 1001 +845 of its own + 60 reaped from 1002 (5 of them before the start) = +1000
    end = reading(
        10.0,
        5_000 + 1_000 + hog_ticks + 30,
        {
            1: (0, "init", 40, 5_000),
            ROOT: (1, "tuiperf", 300, 0),
            1001: (ROOT, "python", 895, 60),
            50: (1, "hog", hog_ticks, 0),
        },
        load=1.0 + hog_ticks / 1000,
    )
    return start, end


def test_own_tree_is_the_root_and_its_descendants() -> None:
    start, _ = quiet_and_hogged(0)
    assert machine.own_tree(start.processes, ROOT) == {ROOT, 1001, 1002}


def test_other_processes_cpu_leaves_out_the_runs_own_tree() -> None:
    start, end = quiet_and_hogged(hog_ticks=1_500)  # 1.5 cores over 10 s
    used = machine.usage(start, end, ROOT, TICKS)
    assert used.others_cores == pytest.approx(1.53)  # the hog's 1.5 and init's 0.03
    assert [(b.name, b.cores) for b in used.busiest] == [("hog", 1.5)]  # init under NAMED_FROM_CORES
    assert used.seconds == 10.0


def test_a_hog_beyond_the_spare_cores_makes_the_run_busy_and_a_quiet_machine_does_not() -> None:
    facts = Machine(cpu_model="Test CPU", cpu_count=2)
    busy = machine.during(facts, *quiet_and_hogged(hog_ticks=1_500), ROOT, TICKS)
    quiet = machine.during(facts, *quiet_and_hogged(hog_ticks=0), ROOT, TICKS)
    assert busy.busy and busy.others_cores == pytest.approx(1.53)
    assert not quiet.busy and quiet.others_cores == pytest.approx(0.03)
    assert quiet.load_before == [0.5, 0.5, 0.5] and quiet.load_after == [1.0, 1.0, 1.0]

    result = factories.result({"a": [1000.0] * 20})
    flagged = machine.with_machine(result, busy)
    assert len(flagged.warnings) == len(result.warnings) + 1
    warning = flagged.warnings[-1]
    assert "busy: other processes used 1.53 cores of 2" in warning and "more than the 1 the run left spare" in warning
    assert "hog 1.5" in warning and "load 0.5 → 2.5" in warning
    assert machine.with_machine(result, quiet).warnings == result.warnings
    assert flagged.env is not None and flagged.env.machine == busy


def test_without_proc_stat_the_load_average_decides() -> None:
    assert machine.is_busy(None, (3.5, 1.0, 1.0), 2)  # 2.5 others beyond 1 spare core
    assert not machine.is_busy(None, (1.8, 1.0, 1.0), 2)
    assert not machine.is_busy(None, (), 2)
    assert machine.is_busy(1.01, (), 2) and not machine.is_busy(1.0, (), 2)
    assert machine.is_busy(0.2, (), 1)  # one core: any other use competes with the run


def test_a_process_whose_pid_was_reused_is_not_named() -> None:
    start = reading(0.0, 0, {ROOT: (1, "tuiperf", 0, 0), 7: (1, "old", 0, 0)})
    end = reading(1.0, 500, {ROOT: (1, "tuiperf", 0, 0), 7: (1, "new", 500, 0)})
    used = machine.usage(start, end, ROOT, TICKS)
    assert used.busiest == [] and used.others_cores == 5.0


def test_the_machine_is_stored_shown_and_read_back() -> None:
    busy = machine.during(Machine(cpu_model="Test CPU", cpu_count=2), *quiet_and_hogged(1_500), ROOT, TICKS)
    result = machine.with_machine(factories.result({"a": [1000.0] * 20}), busy)
    again = decode(encode(result))
    assert again.env is not None and again.env.machine == busy
    out = io.StringIO()
    print_result(again, Console(file=out, width=200, highlight=False))
    text = out.getvalue()
    assert "machine: 2 × Test CPU · load 0.50 → 2.50 · others used 1.53 cores" in text
    assert "⚠ the machine was busy" in text


def test_a_busy_warning_just_over_the_spare_cores_does_not_read_as_equal_to_them() -> None:
    """1.01 cores used by others on 2 cores is busy (more than the 1 left spare); at one decimal the
    warning read "used 1.0 cores of 2 …, more than the 1 the run left spare", a contradiction."""
    m = Machine(cpu_count=2, others_cores=1.01, busiest=[BusyProcess(pid=9, name="python", cores=1.01)], busy=True)
    text = machine.busy_warning(m)
    assert "other processes used 1.01 cores of 2" in text and "more than the 1 the run left spare" in text
    assert "(busiest: python 1.01)" in text


def test_reading_this_machine_gives_its_cores_and_this_process() -> None:
    now = machine.read()
    assert os.getpid() in now.processes and now.processes[os.getpid()].ppid == os.getppid()
    facts = machine.facts()
    assert facts.cpu_count == len(os.sched_getaffinity(0))
    assert facts.memory_total_bytes is not None and facts.memory_total_bytes > 0


@pytest.mark.slow
def test_a_real_hog_outside_the_run_is_seen_and_its_own_child_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hog on every core outside the run's tree (started through a shell that exits, so that they
    are not this process's descendants) and one the run's own child, which is not counted. Every
    process seen is kept (not the busiest five): beside the suite's other workers the hogs, sharing
    two cores with them, were not always among the five."""
    monkeypatch.setattr(machine, "BUSIEST", 1000)
    spin = "while True: pass"
    cores = machine.facts().cpu_count or 1
    started = subprocess.run(
        ["sh", "-c", f"for i in $(seq {cores}); do {sys.executable} -c '{spin}' >/dev/null 2>&1 & echo $!; done"],
        capture_output=True,
        text=True,
        check=True,
    )
    hogs = [int(pid) for pid in started.stdout.split()]
    try:
        watch = machine.Watch()
        own = subprocess.run(
            [sys.executable, "-c", "import time\nt = time.monotonic() + 1.5\nwhile time.monotonic() < t: pass"],
            check=True,
        )
        seen = watch.finish(factories.result({"a": [1000.0] * 20}))
    finally:
        for pid in hogs:
            os.kill(pid, signal.SIGKILL)
    assert own.returncode == 0 and seen.env is not None and seen.env.machine is not None
    m = seen.env.machine
    assert m.busy and m.others_cores is not None and m.others_cores > machine.spare_cores(cores)
    assert "the machine was busy" in seen.warnings[-1]
    assert set(hogs) & {b.pid for b in m.busiest}
    assert all(b.name != "tuiperf" and b.pid != os.getpid() for b in m.busiest)


def test_advice_names_what_makes_runs_unstable_and_how_to_fix_it() -> None:
    facts = Machine(cpu_model="Test CPU", cpu_count=2, governor="powersave", boost=True)
    busy = machine.during(facts, *quiet_and_hogged(hog_ticks=1_500), ROOT, TICKS)
    found = {a.finding.split(":")[0].split(" ")[0]: a for a in machine.advice(busy)}
    assert found["other"].unstable and "hog (pid 50) 1.50" in found["other"].finding
    assert found["CPU"].unstable and found["CPU"].fix.startswith("sudo cpupower frequency-set -g performance")
    assert found["frequency"].unstable and "cpufreq/boost" in found["frequency"].fix
    quiet = machine.during(Machine(cpu_count=2, governor="performance", boost=False), *quiet_and_hogged(0), ROOT, TICKS)
    assert [a.unstable for a in machine.advice(quiet)] == [False]  # only what the others use, said as a fact
    vm = machine.advice(Machine(cpu_count=4, memory_total_bytes=100, memory_available_bytes=5))
    assert [(a.finding.split(" ")[0], a.unstable) for a in vm] == [("no", False), ("5%", True)]


def test_machine_command_prints_this_machine(capsys: pytest.CaptureFixture[str]) -> None:
    from tuiperf.cli import main

    assert main(["machine", "--seconds", "0.1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"machine: {len(os.sched_getaffinity(0))} × ") and "watched 0.1 s" in out


def test_the_markdown_export_names_the_machine_and_the_commit() -> None:
    from tuiperf.results.export import markdown
    from tuiperf.results.model import Source

    busy = machine.during(
        Machine(cpu_model="Test CPU", cpu_count=2, governor="powersave"), *quiet_and_hogged(1_500), ROOT, TICKS
    )
    result = machine.with_machine(
        factories.result({"a": [1000.0] * 20}), busy, Source(commit="abcdef0123456789", branch="main", dirty=True)
    )
    text = markdown(result)
    assert "| commit | `abcdef012345` (main, dirty) |" in text
    assert "| CPU frequency | governor powersave |" in text and "| load average | 0.50 → 2.50 |" in text
    assert "| other processes' CPU | 1.53 cores (busy) |" in text
    assert "- the machine was busy: other processes used 1.53 cores of 2" in text


def test_accelerators_governor_and_boost_are_read_where_the_system_has_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Laid out as the NVIDIA driver and cpufreq lay them out (this VM has neither)."""
    for index in range(2):
        gpu = tmp_path / "nvidia" / f"0000:0{index}:00.0"
        gpu.mkdir(parents=True)
        (gpu / "information").write_text("Model: \t\t NVIDIA H200\nIRQ:   42\n")
    cpu = tmp_path / "cpu"
    for core, governor in (("cpu0", "performance"), ("cpu1", "powersave")):
        (cpu / core / "cpufreq").mkdir(parents=True)
        (cpu / core / "cpufreq" / "scaling_governor").write_text(governor + "\n")
    (cpu / "cpufreq").mkdir()
    (cpu / "cpufreq" / "boost").write_text("1\n")
    monkeypatch.setattr(machine, "_NVIDIA", tmp_path / "nvidia")
    monkeypatch.setattr(machine, "_CPU", cpu)
    found = machine.facts()
    assert found.accelerator == "2 × NVIDIA H200"
    assert found.governor == "performance, powersave" and found.boost is True
    assert [a.unstable for a in machine.advice(found) if "governor" in a.finding] == [True]


def test_the_apps_warnings_list_the_busy_machine() -> None:
    from tuiperf.tui.view import collect_warnings

    busy = machine.during(Machine(cpu_count=2), *quiet_and_hogged(1_500), ROOT, TICKS)
    shown = collect_warnings(machine.with_machine(factories.result({"a": [1000.0] * 20}), busy))
    assert [severity for severity, text in shown if text.startswith("the machine was busy")] == ["warning"]
