"""The machine a run measured on, and whether it was busy enough to make the figures unstable.

Read by the process that starts a run (the CLI, the app, the pytest plugin), before and after it, from
``/proc`` and ``/sys`` (Linux; elsewhere most fields stay empty): the CPU model and the cores this
process may use, the frequency governor and boost, memory, the accelerators the NVIDIA driver lists,
the load averages, and how much CPU every *other* process used while the run measured — the whole
machine's busy time (``/proc/stat``) less the run's own process tree's (this process and its
descendants: the measuring and loader processes). A run takes one core; when the others used more than
the cores left spare, the run's processes waited for a core at times, and the figures may move between
runs by far more than their intervals say (pyperf calls this "may be unstable").

The decision (:func:`usage`, :func:`is_busy`) is a pure function of two :class:`Reading`s, so it is
tested on made-up readings; :func:`read` is the only part that touches the system.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import msgspec

from tuiperf.common.text import one_line
from tuiperf.results.model import BusyProcess, Machine, RunResult, Source

BUSIEST = 5  # other processes named in a result
NAMED_FROM_CORES = 0.05  # a process that used less CPU than this during the run is not named
_PROC = Path("/proc")
_CPU = Path("/sys/devices/system/cpu")
_NVIDIA = Path("/proc/driver/nvidia/gpus")  # one folder per GPU, each with an ``information`` file


@dataclass(frozen=True)
class Process:
    pid: int
    ppid: int
    name: str
    ticks: int  # user + system time, in clock ticks
    children_ticks: int = 0  # its waited-for children's (counted when it waits for them, not as they ran)


@dataclass(frozen=True)
class Reading:
    """What the system said at one moment."""

    at_s: float  # time.monotonic()
    load: tuple[float, ...]  # 1, 5, 15 minute load averages; () where unknown
    busy_ticks: int | None  # the whole machine's non-idle time since boot (/proc/stat), None where unknown
    processes: Mapping[int, Process]


@dataclass(frozen=True)
class Usage:
    others_cores: float | None  # CPU the other processes used, in cores
    seconds: float
    busiest: list[BusyProcess]


# -- the pure part ------------------------------------------------------------------------------------
def own_tree(processes: Mapping[int, Process], root: int) -> set[int]:
    """``root`` and its descendants among ``processes``."""
    children: dict[int, list[int]] = {}
    for p in processes.values():
        children.setdefault(p.ppid, []).append(p.pid)
    tree, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid not in tree:
            tree.add(pid)
            todo.extend(children.get(pid, []))
    return tree


def usage(start: Reading, end: Reading, root: int, ticks_per_s: float) -> Usage:
    """How much CPU every process outside ``root``'s tree used between two readings. A child of the
    tree that ended in between is counted in its parent's children's time (``cutime``), so the tree's
    time is its total at the end less its total at the start."""
    seconds = max(end.at_s - start.at_s, 1e-9)
    tree_start, tree_end = own_tree(start.processes, root), own_tree(end.processes, root)
    own = sum(end.processes[p].ticks + end.processes[p].children_ticks for p in tree_end) - sum(
        start.processes[p].ticks + start.processes[p].children_ticks for p in tree_start
    )
    others: float | None = None
    if start.busy_ticks is not None and end.busy_ticks is not None:
        others = max(end.busy_ticks - start.busy_ticks - own, 0) / ticks_per_s / seconds
    busiest = []
    for pid, after in end.processes.items():
        before = start.processes.get(pid)
        if pid in tree_end or pid in tree_start or before is None or before.name != after.name:
            continue
        cores = max(after.ticks - before.ticks, 0) / ticks_per_s / seconds
        if cores >= NAMED_FROM_CORES:
            busiest.append(BusyProcess(pid=pid, name=after.name, cores=round(cores, 2)))
    busiest.sort(key=lambda b: (-b.cores, b.pid))
    return Usage(None if others is None else round(others, 2), round(seconds, 3), busiest[:BUSIEST])


def spare_cores(cpu_count: int | None) -> int:
    """The cores a run leaves to others: all but the one its measuring process runs on."""
    return max((cpu_count or 1) - 1, 0)


def is_busy(others_cores: float | None, load_after: tuple[float, ...], cpu_count: int | None) -> bool:
    """Whether the other processes used more CPU than the run left spare. Without /proc/stat, the
    1-minute load average at the end (which counts the run's own process) stands in."""
    if others_cores is not None:
        return others_cores > spare_cores(cpu_count)
    if load_after:
        return load_after[0] - 1 > spare_cores(cpu_count)
    return False


def busy_warning(machine: Machine) -> str:
    """The line a busy run's report and the app's Warnings show."""
    spare = spare_cores(machine.cpu_count)
    used = (
        f"other processes used {machine.others_cores:.2f} cores"
        if machine.others_cores is not None
        else f"the load average was {machine.load_after[0]:.1f}"
    )
    load = ""
    if machine.load_before and machine.load_after:
        load = f" (load {machine.load_before[0]:.1f} → {machine.load_after[0]:.1f})"
    # Two decimals, as the report's machine line: 1.01 cores read "1.0", not more than the 1 left spare.
    names = ", ".join(f"{one_line(b.name)} {b.cores:.2f}" for b in machine.busiest[:3])
    return (
        f"the machine was busy: {used} of {machine.cpu_count or '?'} during the run{load}, more than the "
        f"{spare} the run left spare; the figures may be unstable"
        + (f" (busiest: {names})" if names else "")
        + ". `tuiperf machine` says what else runs here"
    )


def during(facts: Machine, start: Reading, end: Reading, root: int, ticks_per_s: float) -> Machine:
    """``facts`` with what happened between ``start`` and ``end``."""
    used = usage(start, end, root, ticks_per_s)
    return msgspec.structs.replace(
        facts,
        load_before=list(start.load),
        load_after=list(end.load),
        others_cores=used.others_cores,
        seconds=used.seconds,
        busiest=used.busiest,
        busy=is_busy(used.others_cores, end.load, facts.cpu_count),
    )


def with_machine(result: RunResult, machine: Machine, source: Source | None = None) -> RunResult:
    """``result`` with ``machine`` and ``source`` in its environment (where it has one: a run that
    stopped before its measuring process said anything has none), and the busy warning where it was busy."""
    warnings = list(result.warnings)
    if machine.busy:
        warnings.append(busy_warning(machine))
    env = result.env
    if env is not None:
        env = msgspec.structs.replace(env, machine=machine, source=source or env.source)
    return msgspec.structs.replace(result, env=env, warnings=warnings)


# -- reading the system -------------------------------------------------------------------------------
def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _process(pid: int) -> Process | None:
    raw = _text(_PROC / str(pid) / "stat")
    if raw is None or ")" not in raw:
        return None
    name = raw[raw.index("(") + 1 : raw.rindex(")")]
    fields = raw[raw.rindex(")") + 2 :].split()
    try:
        return Process(pid, int(fields[1]), name, int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14]))
    except (IndexError, ValueError):
        return None


def _processes() -> dict[int, Process]:
    found: dict[int, Process] = {}
    try:
        pids = [int(entry) for entry in os.listdir(_PROC) if entry.isdigit()]
    except OSError:
        return found
    for pid in pids:
        process = _process(pid)
        if process is not None:
            found[pid] = process
    return found


def _busy_ticks() -> int | None:
    raw = _text(_PROC / "stat")
    if raw is None:
        return None
    for line in raw.splitlines():
        if line.startswith("cpu "):
            fields = [int(f) for f in line.split()[1:]]
            user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
            return user + nice + system + irq + softirq + steal
    return None


def read() -> Reading:
    try:
        load: tuple[float, ...] = tuple(round(x, 2) for x in os.getloadavg())
    except OSError:
        load = ()
    return Reading(time.monotonic(), load, _busy_ticks(), _processes())


def ticks_per_second() -> float:
    try:
        return float(os.sysconf("SC_CLK_TCK"))
    except (ValueError, OSError, AttributeError):
        return 100.0


def cpu_model() -> str:
    for line in (_text(_PROC / "cpuinfo") or "").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    import platform

    return platform.processor() or platform.machine()


def usable_cores() -> int | None:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count()


def _governor() -> str:
    found = sorted({(_text(p) or "").strip() for p in _CPU.glob("cpu[0-9]*/cpufreq/scaling_governor")} - {""})
    return ", ".join(found)


def _boost() -> bool | None:
    boost = _text(_CPU / "cpufreq" / "boost")
    if boost is not None and boost.strip() in ("0", "1"):
        return boost.strip() == "1"
    no_turbo = _text(_CPU / "intel_pstate" / "no_turbo")
    if no_turbo is not None and no_turbo.strip() in ("0", "1"):
        return no_turbo.strip() == "0"
    return None


def _memory() -> tuple[int | None, int | None]:
    sizes: dict[str, int] = {}
    for line in (_text(_PROC / "meminfo") or "").splitlines():
        name, _, rest = line.partition(":")
        words = rest.split()
        if words and words[0].isdigit():
            sizes[name] = int(words[0]) * 1024
    return sizes.get("MemTotal"), sizes.get("MemAvailable")


def _accelerators() -> str:
    models = []
    for info in sorted(_NVIDIA.glob("*/information")):
        for line in (_text(info) or "").splitlines():
            if line.startswith("Model:"):
                models.append(line.split(":", 1)[1].strip())
    if not models:
        return ""
    counted = {m: models.count(m) for m in models}
    return ", ".join(f"{n} × {m}" if n > 1 else m for m, n in counted.items())


def facts() -> Machine:
    """What does not change during a run: the CPU, its frequency settings, memory, accelerators."""
    total, available = _memory()
    return Machine(
        cpu_model=cpu_model(),
        cpu_count=usable_cores(),
        governor=_governor(),
        boost=_boost(),
        memory_total_bytes=total,
        memory_available_bytes=available,
        accelerator=_accelerators(),
    )


class Watch:
    """Read the machine (and the scenario folder's git state) as a run starts, and again as it ends
    (:meth:`finish`)."""

    def __init__(self, scenario_path: str | None = None) -> None:
        from tuiperf.results.source import source_of

        self.source = source_of(scenario_path) if scenario_path else None
        self.facts = facts()
        self.start = read()

    def finish(self, result: RunResult) -> RunResult:
        """``result`` with the machine, and the git state read at the start (or now, from the path
        the result names, where the caller did not know the scenario's file yet)."""
        from tuiperf.results.source import source_of

        machine = during(self.facts, self.start, read(), os.getpid(), ticks_per_second())
        source = self.source
        if source is None and result.scenario.path:
            source = source_of(result.scenario.path)
        return with_machine(result, machine, source)


# -- what would make runs unstable here (``tuiperf machine``) -------------------------------------------
@dataclass(frozen=True)
class Advice:
    finding: str  # what was read
    fix: str  # how to change it ("" where nothing is to be done); tuiperf changes nothing itself
    unstable: bool  # whether it makes runs unstable (else: a fact worth knowing)


def advice(m: Machine) -> list[Advice]:
    """What on this machine would make runs unstable and how to fix it, from ``m`` as :func:`during`
    filled it over a short look (pure: tested on made-up machines)."""
    found: list[Advice] = []
    spare = spare_cores(m.cpu_count)
    if m.cpu_count is not None and m.cpu_count < 2:
        found.append(
            Advice(
                "1 core: the measuring process shares it with the UI process and everything else",
                "measure on a machine (or a VM size) with at least 2 cores",
                True,
            )
        )
    if m.others_cores is not None:
        names = ", ".join(f"{one_line(b.name)} (pid {b.pid}) {b.cores:.2f}" for b in m.busiest)
        busy_now = f"other processes use {m.others_cores:.2f} cores of {m.cpu_count or '?'} now"
        if m.busy:
            found.append(
                Advice(
                    f"{busy_now}, more than the {spare} a run leaves spare" + (f": {names}" if names else ""),
                    "stop or pause them while measuring (or `nice -n 19` them); a busy run's result says so",
                    True,
                )
            )
        else:
            found.append(Advice(busy_now + (f": {names}" if names else ""), "", False))
    if m.load_after and m.cpu_count and m.load_after[0] > m.cpu_count:
        found.append(
            Advice(
                f"load average {m.load_after[0]:.2f} (1 min) over {m.cpu_count} cores: processes wait for a core",
                "wait for the load to fall (`uptime`) or stop what runs",
                True,
            )
        )
    governors = [g.strip() for g in m.governor.split(",") if g.strip()]
    if not governors:
        found.append(
            Advice(
                "no CPU frequency governor in /sys (a VM or container: the host sets the frequency)",
                "nothing to set here; compare runs made on the same VM type, and keep both in one run where possible",
                False,
            )
        )
    elif governors != ["performance"]:
        found.append(
            Advice(
                f"CPU frequency governor {', '.join(governors)}: the clock follows the load, so a call's time "
                "depends on what ran before it",
                "sudo cpupower frequency-set -g performance (back: -g " + governors[0] + ")",
                True,
            )
        )
    if m.boost:
        found.append(
            Advice(
                "frequency boost (turbo) on: the clock depends on temperature and on the other cores' load",
                "echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost "
                "(Intel: echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo)",
                True,
            )
        )
    if m.memory_total_bytes and m.memory_available_bytes is not None:
        share = m.memory_available_bytes / m.memory_total_bytes
        if share < 0.1:
            found.append(
                Advice(
                    f"{share:.0%} of memory available: the system may swap or drop caches during a run",
                    "close what holds memory, or measure smaller sizes",
                    True,
                )
            )
    return found


def look(seconds: float) -> Machine:
    """This machine over the next ``seconds``: its facts, and what the other processes used."""
    start = read()
    time.sleep(seconds)  # a look at what runs: the span is the measurement itself
    return during(facts(), start, read(), os.getpid(), ticks_per_second())
