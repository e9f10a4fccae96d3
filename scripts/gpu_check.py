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
from collections.abc import Callable
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
# The seeds' comparisons as ratios (slower / faster), with the published ratio where one was given.
SEED_RATIOS = (
    ("mlp-closure-vs-argument", "eqx-filter_jit", "linen-jax.jit", 185 / 19.6, "seed 000, as argument"),
    ("mlp-closure-vs-argument", "eqx-jax.jit", "linen-jax.jit", 43.6 / 19.6, "seed 000, as argument"),
    ("mlp-closure-vs-argument", "eqx-closure", "linen-closure", 14.8 / 12, "seed 000, closure"),
    ("filter-jit-overhead", "eqx.filter_jit", "jax.jit", 423 / 53.2, "seed 003, Identity"),
    ("conv-transpose-3d", "eqx-vmap", "linen", 138 / 31, "seed 001 (input 4×4×256³; here the default size)"),
    ("nnx-vs-linen-cnn", "nnx-nnx.jit", "linen-jax.jit", None, "seed 002: 'noticeably slower' (T4)"),
    ("static-leaves-partition", "eqx.filter_jit", "flat-dict", 3.72e3 / 2.7, "seed 004 (100,000 static leaves)"),
)
# Traced for device activity: a host-bound call and two that do work on the device.
TRACED = (
    ("dispatch-floor", "jax.jit", ()),
    ("mlp-closure-vs-argument", "eqx-filter_jit", ()),
    ("conv-transpose-3d", "linen", ("--set", "size=64")),
)
DEVICE = "gpu"  # --device cpu: a dry run of every step on the CPU


def tuiperf(*args: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tuiperf", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
    )


def run_on_gpu(
    scenario: str, json_path: Path, *more: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return tuiperf(
        "--no-history", "run", scenario, "--device", DEVICE, "--budget", "2", *more, "--json", str(json_path), env=env
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
        stats, memory_part = v.sampling.stats, v.program.memory
        figure = format_ns(stats.median_ns) if stats else v.status + (f": {v.failure.error}" if v.failure else "")
        memory = format_bytes(memory_part.total) if memory_part else "–"
        rows.append((v.name, figure, memory))
    return rows


def check_scenarios(out: Path, lines: list[str]) -> None:
    listed = tuiperf("list", "--json")
    ids = [s["id"] for s in json.loads(listed.stdout)["scenarios"]] if listed.returncode == 0 else []
    lines += ["## Built-in scenarios on the GPU (`tuiperf run ID --device gpu --budget 2`)", ""]
    for scenario in ids:
        started = time.monotonic()
        done = run_on_gpu(scenario, out / f"{scenario}.json")
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
        done = tuiperf(
            "--no-history", "screenshot", scenario, "--device", DEVICE, "--out", str(out / f"{scenario}.svg")
        )
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
        tiny = RunRequest(scenario="tiny", device=DEVICE, settings=RunSettings(samples=50, profile=False))
        runner.run(tiny)
        runner.run(tiny)
        held("two runs back to back", runner)
        runner.run(RunRequest(scenario="steps", device=DEVICE, settings=RunSettings(samples=20, profile=False)))
        held("the spare taking over (another scenario)", runner)
        cancel = threading.Event()
        threading.Timer(1.5, cancel.set).start()
        long = RunRequest(scenario="tiny", device=DEVICE, settings=RunSettings(budget_s=30, profile=False))
        cancelled = runner.run(long, cancel=cancel)
        held(f"a cancelled run (partial: {cancelled.partial})", runner)
        crashing = RunRequest(
            scenario="tiny",
            device=DEVICE,
            variants=["jax.jit", "flaky"],
            params={"abort_after": 30},
            settings=RunSettings(samples=500, profile=False),
        )
        flaky = runner.run(crashing).variant("flaky")
        held(f"a crashed variant ({flaky.failure if flaky else 'not run'})", runner)
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
            done = run_on_gpu(scenario, path, env=env)
            figures[label] = resultfile.load(path) if done.returncode == 0 else None
        off, on = figures["off"], figures["on"]
        if off is None or on is None:
            lines.append(f"| {scenario} | – | run failed | | |")
            continue
        for v in off.measured:
            w = on.variant(v.name)
            if w is not None and w.sampling.stats is not None and v.sampling.stats is not None:
                a, b = v.sampling.stats.median_ns, w.sampling.stats.median_ns
                lines.append(f"| {scenario} | `{v.name}` | {a / 1e3:.2f} µs | {b / 1e3:.2f} µs | {b / a:.3f} |")
    lines.append("")


def check_seed_ratios(out: Path, lines: list[str]) -> None:
    """The seeds' comparisons from the runs above, and the seed-sized static-leaves run."""
    from tuiperf.results import resultfile

    seed_sized = out / "static-leaves-partition-100000.json"
    done = run_on_gpu("static-leaves-partition", seed_sized, "--set", "n_static=100000", "--no-profile")
    lines += ["## The seeds' comparisons (slower / faster, medians of this machine's runs above)", ""]
    lines += ["| scenario | slower | faster | here | published | where published |", "|---|---|---|---|---|---|"]
    sources = {s: out / f"{s}.json" for s, *_ in SEED_RATIOS}
    rows = list(SEED_RATIOS)
    if done.returncode == 0:
        sources["static-leaves-partition (n_static=100000)"] = seed_sized
        rows.append(("static-leaves-partition (n_static=100000)", *SEED_RATIOS[-1][1:]))
    for scenario, slower, faster, published, where in rows:
        path = sources[scenario]
        result = resultfile.load(path) if path.exists() else None
        a = result.variant(slower) if result else None
        b = result.variant(faster) if result else None
        slow, fast = (a.sampling.stats if a else None), (b.sampling.stats if b else None)
        if slow is None or fast is None:
            here = "not measured"
        else:
            slow_us, fast_us = slow.median_ns / 1e3, fast.median_ns / 1e3
            here = f"{slow_us / fast_us:.2f}× ({slow_us:.1f} / {fast_us:.1f} µs)"
        shown = f"{published:.2f}×" if published else "–"
        lines.append(f"| {scenario} | `{slower}` | `{faster}` | {here} | {shown} | {where} |")
    lines.append("")


def check_device_activity(out: Path, lines: list[str]) -> None:
    lines += ["## Device activity from a trace (`tuiperf trace ID --variant V --calls 50`)", ""]
    for scenario, variant, more in TRACED:
        done = tuiperf(
            "--no-history", "trace", scenario, "--variant", variant, "--device", DEVICE, *more,
            "--calls", "50", "--out", str(out / "traces" / scenario),
        )  # fmt: skip
        said = [line for line in done.stdout.splitlines() if line.startswith("device activity")]
        figure = said[0] if said else f"exit {done.returncode}: {(done.stderr or done.stdout)[-400:]}"
        lines.append(f"- {scenario} `{variant}` {' '.join(more)}: {figure}")
    lines.append("")


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in ("jax", "jaxlib", "equinox", "flax", "optax", "numpy", "textual", "plotext", "msgspec"):
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} missing")
    return ", ".join(found)


def timed(name: str, step: Callable[[], None], lines: list[str], report: Path) -> None:
    """Run one check, add how long it took, and write the report so far (a check cut off by the time
    limit leaves the others' figures)."""
    shown = len(lines)
    started = time.monotonic()
    try:
        step()
    except Exception as exc:  # noqa: BLE001 - one failing check must not hide the others' results
        lines += [f"a check failed: {type(exc).__name__}: {exc}", ""]
    lines += [f"_{name}: {time.monotonic() - started:.0f} s_", ""]
    print("\n".join(lines[shown:]), flush=True)
    report.write_text("\n".join(lines))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "gpu-report")
    parser.add_argument("--device", default="gpu", help="cpu: a dry run of every step here (figures are not a GPU's)")
    args = parser.parse_args()
    global DEVICE
    DEVICE = args.device
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
        f"- versions: {versions()}",
        f"- date: {time.strftime('%Y-%m-%d %H:%M')} UTC; device asked for: {DEVICE}",
        "",
    ]
    if DEVICE == "gpu" and "gpu" not in devices.stdout and "cuda" not in devices.stdout:
        print("\n".join([*lines, "No GPU visible to JAX here: nothing to check."]))
        return 2
    print("\n".join(lines), flush=True)
    started = time.monotonic()
    report = out / "gpu_check.md"
    timed("scenarios", lambda: check_scenarios(out, lines), lines, report)
    timed("seed ratios", lambda: check_seed_ratios(out, lines), lines, report)
    timed("device activity", lambda: check_device_activity(out, lines), lines, report)
    timed("memory", lambda: check_memory(lines), lines, report)
    timed("app", lambda: check_app(out, lines), lines, report)
    timed("tests", lambda: check_tests(lines), lines, report)
    timed("allocator", lambda: check_allocator(out, lines), lines, report)
    lines.append(f"The whole check: {time.monotonic() - started:.0f} s")
    report.write_text("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
