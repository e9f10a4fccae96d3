"""Check tuiperf end to end on a GPU machine and write one report (run by scripts/gpu_check.sh).

Every built-in scenario through the CLI with ``--device gpu``, a few through the app (headless
screenshots), the tests marked ``gpu``, the memory checks (two runs back to back, the spare taking
over, a cancelled run, a crashed run: afterwards no process tuiperf no longer uses may hold GPU
memory) and the allocator policy measured (preallocation off, tuiperf's default, against on).
Figures in the report are this machine's, measured now; the seeds' published numbers stand beside
them as the reports claimed them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# What the original reports published (mostly on GPUs, old versions): shown beside today's figures.
PUBLISHED = {
    "mlp-closure-vs-argument": "closure: eqx 14.8 µs, Flax 12 µs; as argument: eqx.filter_jit 185 µs, eqx via jax.jit "
    "43.6 µs, Flax 19.6 µs",
    "conv-transpose-3d": "Equinox 138 ms vs Flax 31 ms (input 4×4×256³; Flax's int kernel_size ran a 1-D convolution)",
    "filter-jit-overhead": "Identity: jax.jit 53.2 µs vs eqx.filter_jit 423 µs",
    "nnx-vs-linen-cnn": "NNX noticeably slower than Linen (T4)",
    "static-leaves-partition": "Equinox path 3.72 ms vs Inox-style 2.7 µs (100,000 static leaves)",
}
APP_SCENARIOS = ("dispatch-floor", "mlp-closure-vs-argument")


def tuiperf(*args: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tuiperf", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
    )


def run_on_gpu(scenario: str, json_path: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return tuiperf(
        "--no-history", "run", scenario, "--device", "gpu", "--budget", "2", "--json", str(json_path), env=env
    )


def gpu_holders() -> dict[int, int] | None:
    """PID -> MiB of every process holding GPU memory (None where nvidia-smi cannot tell)."""
    if shutil.which("nvidia-smi") is None:
        return None
    done = subprocess.run(
        ["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        return None
    holders = {}
    for line in done.stdout.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 2 and parts[0].isdigit():
            holders[int(parts[0])] = int(parts[1]) if parts[1].isdigit() else -1
    return holders


def medians(path: Path) -> list[tuple[str, str, str]]:
    from tuiperf.common.units import format_bytes, format_ns
    from tuiperf.results import resultfile

    result = resultfile.load(path)
    rows = []
    for v in result.variants:
        figure = format_ns(v.stats.median_ns) if v.stats else v.status + (f": {v.error}" if v.error else "")
        memory = format_bytes(v.memory.total) if v.memory else "–"
        rows.append((v.name, figure, memory))
    return rows


def check_scenarios(out: Path, lines: list[str]) -> None:
    listed = tuiperf("list", "--json")
    ids = [s["id"] for s in json.loads(listed.stdout)["scenarios"]] if listed.returncode == 0 else []
    lines += ["## Built-in scenarios on the GPU (`tuiperf run ID --device gpu --budget 2`)", ""]
    for scenario in ids:
        started = time.monotonic()
        done = tuiperf(
            "--no-history", "run", scenario, "--device", "gpu", "--budget", "2", "--json", str(out / f"{scenario}.json")
        )
        took = time.monotonic() - started
        lines.append(f"### {scenario}: exit {done.returncode}, {took:.0f} s")
        if scenario in PUBLISHED:
            lines.append(f"published: {PUBLISHED[scenario]}")
        if done.returncode == 0:
            lines += ["", "| variant | median | XLA memory |", "|---|---|---|"]
            lines += [f"| `{n}` | {m} | {b} |" for n, m, b in medians(out / f"{scenario}.json")]
            (out / f"{scenario}.txt").write_text(done.stdout)
        else:
            lines += ["", "```", (done.stderr or done.stdout)[-2000:], "```"]
        lines.append("")


def check_app(out: Path, lines: list[str]) -> None:
    lines += ["## The explorer, headless (`tuiperf screenshot ID --device gpu`)", ""]
    for scenario in APP_SCENARIOS:
        done = tuiperf("--no-history", "screenshot", scenario, "--device", "gpu", "--out", str(out / f"{scenario}.svg"))
        lines.append(f"- {scenario}: exit {done.returncode} {'' if done.returncode == 0 else done.stderr[-500:]}")
    lines.append("")


def check_tests(lines: list[str]) -> None:
    env = {**os.environ, "TUIPERF_GPU_TESTS": "1"}
    env.pop("JAX_PLATFORMS", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "tests/test_gpu.py"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=900,
    )
    lines += ["## Tests marked `gpu`", "", "```", done.stdout[-3000:], done.stderr[-1000:], "```", ""]


def check_memory(lines: list[str]) -> None:
    """After each step, only the process tuiperf is measuring in may hold GPU memory."""
    from tuiperf.contract.options import RunSettings
    from tuiperf.contract.request import RunRequest
    from tuiperf.processes.runner import ProcessRunner

    lines += ["## GPU memory held by tuiperf's processes", ""]
    if gpu_holders() is None:
        lines += ["nvidia-smi cannot list the processes holding GPU memory here: not checked.", ""]
        return
    fixtures = str(ROOT / "tests" / "fixtures" / "scenarios")

    def held(step: str, runner: ProcessRunner) -> None:
        time.sleep(1.0)  # let the driver notice an ended process
        holders = gpu_holders() or {}
        current = runner._measuring.process.pid if runner._measuring and runner._measuring.alive else None
        stray = {pid: mib for pid, mib in holders.items() if pid != current and _is_ours(pid)}
        verdict = "ok" if not stray else f"FAILED: {stray} (MiB) held by processes tuiperf no longer uses"
        lines.append(f"- {step}: measuring process {current} holds {holders.get(current or -1, 0)} MiB; {verdict}")

    runner = ProcessRunner([fixtures], spare=True)
    try:
        tiny = RunRequest(scenario="tiny", device="gpu", settings=RunSettings(samples=50, profile=False))
        runner.run(tiny)
        runner.run(tiny)
        held("two runs back to back", runner)
        runner.run(RunRequest(scenario="steps", device="gpu", settings=RunSettings(samples=20, profile=False)))
        held("the spare taking over (another scenario)", runner)
        cancel = threading.Event()
        threading.Timer(1.5, cancel.set).start()
        long = RunRequest(scenario="tiny", device="gpu", settings=RunSettings(budget_s=30, profile=False))
        cancelled = runner.run(long, cancel=cancel)
        held(f"a cancelled run (partial: {cancelled.partial})", runner)
        aborting = dict(scenario="tiny", device="gpu", params={"abort_after": "100"})
        crashed = runner.run(RunRequest(**aborting, settings=RunSettings(samples=500)))  # type: ignore[arg-type]
        held(f"a crashed run ({crashed.crash.how if crashed.crash else 'no crash'})", runner)
    finally:
        runner.close()
    time.sleep(1.0)
    left = {pid: mib for pid, mib in (gpu_holders() or {}).items() if _is_ours(pid)}
    lines += [f"- after closing the runner: {'ok, none' if not left else f'FAILED: {left}'}", ""]


def _is_ours(pid: int) -> bool:
    try:
        return "tuiperf" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def check_allocator(out: Path, lines: list[str]) -> None:
    """The policy from measurement: the same runs with preallocation on (JAX's default) and off (ours)."""
    lines += ["## Allocator policy: preallocation off (tuiperf's default) vs on", ""]
    lines += ["| scenario | variant | off | on | on / off |", "|---|---|---|---|---|"]
    from tuiperf.results import resultfile

    for scenario in APP_SCENARIOS:
        figures = {}
        for label, env in (("off", {}), ("on", {"XLA_PYTHON_CLIENT_PREALLOCATE": "true"})):
            path = out / f"allocator-{scenario}-{label}.json"
            done = tuiperf(
                "--no-history", "run", scenario, "--device", "gpu", "--budget", "2", "--json", str(path), env=env
            )
            figures[label] = resultfile.load(path) if done.returncode == 0 else None
        off, on = figures["off"], figures["on"]
        if off is None or on is None:
            lines.append(f"| {scenario} | – | run failed | | |")
            continue
        for v in off.measured:
            w = on.variant(v.name)
            if w is not None and w.stats is not None and v.stats is not None:
                a, b = v.stats.median_ns, w.stats.median_ns
                lines.append(f"| {scenario} | `{v.name}` | {a / 1e3:.2f} µs | {b / 1e3:.2f} µs | {b / a:.3f} |")
    lines.append("")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "gpu-report")
    args = parser.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    smi = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True) if shutil.which("nvidia-smi") else None
    devices = tuiperf("devices")
    print(devices.stdout or devices.stderr, flush=True)
    lines = [
        "# tuiperf on a GPU machine",
        "",
        f"- GPU: {smi.stdout.strip() if smi else 'nvidia-smi not found'}",
        f"- Python {sys.version.split()[0]}; `tuiperf devices`: {devices.stdout.strip() or devices.stderr.strip()}",
        f"- date: {time.strftime('%Y-%m-%d %H:%M')}",
        "",
    ]
    if "gpu" not in devices.stdout and "cuda" not in devices.stdout:
        print("\n".join([*lines, "No GPU visible to JAX here: nothing to check."]))
        return 2
    print("\n".join(lines), flush=True)
    steps = [lambda: check_scenarios(out, lines), lambda: check_app(out, lines), lambda: check_allocator(out, lines)]
    steps += [lambda: check_tests(lines), lambda: check_memory(lines)]
    for step in steps:
        shown = len(lines)
        try:
            step()
        except Exception as exc:  # noqa: BLE001 - one failing check must not hide the others' results
            lines += [f"a check failed: {type(exc).__name__}: {exc}", ""]
        print("\n".join(lines[shown:]), flush=True)
    report = "\n".join(lines)
    (out / "gpu_check.md").write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
