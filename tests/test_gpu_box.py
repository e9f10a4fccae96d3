"""What a GPU box needs that a CPU can decide: the environment each process starts with, the dispatch
mode that really applies, and memory figures per variant (see docs/guide/gpu.md)."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.processes.environment import process_environment


def test_the_loader_sees_only_the_cpu_and_measuring_processes_do_not_preallocate():
    loader = process_environment("loader", {"PATH": "/bin"})
    measuring = process_environment("measuring", {"PATH": "/bin"})
    lister = process_environment("devices", {"PATH": "/bin"})
    assert loader["JAX_PLATFORMS"] == "cpu" and "XLA_PYTHON_CLIENT_PREALLOCATE" not in loader
    assert measuring["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false" and "JAX_PLATFORMS" not in measuring
    assert lister["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"
    assert Path(measuring["PYTHONPATH"].split(":")[0], "tuiperf", "processes", "environment.py").is_file()


@pytest.mark.parametrize(
    "chosen",
    [
        {"XLA_PYTHON_CLIENT_PREALLOCATE": "true"},
        {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".2"},
        {"XLA_PYTHON_CLIENT_ALLOCATOR": "platform"},
    ],
)
def test_an_allocator_setting_the_user_chose_is_kept_as_it_is(chosen):
    env = process_environment("measuring", {"PATH": "/bin", **chosen})
    assert {k: v for k, v in env.items() if k.startswith("XLA_PYTHON_CLIENT")} == chosen


def _environ_of(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc to read a process's environment")
def test_discovery_starts_its_loader_on_the_cpu_alone(fixture_dir):
    from tuiperf.processes.runner import ProcessRunner

    runner = ProcessRunner([fixture_dir])
    try:
        catalog = runner.catalog()
        loader = runner._loader
        assert loader is not None and loader.alive
        assert _environ_of(loader.process.pid)["JAX_PLATFORMS"] == "cpu"
    finally:
        runner.close()
    assert catalog.scenario("tiny") is not None


@pytest.mark.slow
def test_every_result_records_the_allocator_settings_its_process_ran_with(fixture_dir, monkeypatch):
    from tuiperf.processes.runner import ProcessRunner

    request = RunRequest(scenario="tiny", variants=["jax.jit"], settings=RunSettings(samples=5, profile=False))
    runner = ProcessRunner([fixture_dir])
    try:
        default = runner.run(request)
    finally:
        runner.close()
    monkeypatch.setenv("XLA_PYTHON_CLIENT_MEM_FRACTION", ".2")
    runner = ProcessRunner([fixture_dir])
    try:
        chosen = runner.run(request)
    finally:
        runner.close()
    assert default.env is not None and default.env.allocator == {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    assert chosen.env is not None and chosen.env.allocator == {"XLA_PYTHON_CLIENT_MEM_FRACTION": ".2"}


def test_the_dispatch_recorded_for_an_accelerator_is_async_whatever_the_cpu_setting():
    from tuiperf.measuring.env import dispatch_mode, environment

    gpu = SimpleNamespace(platform="gpu", device_kind="NVIDIA H100")
    cpu = SimpleNamespace(platform="cpu", device_kind="cpu")
    assert dispatch_mode(cpu) == "sync"  # the tests' processes run in sync mode (conftest)
    assert dispatch_mode(gpu) == "async"
    assert environment(gpu, 1.0).dispatch == "async"


@pytest.mark.slow
def test_a_variants_memory_is_what_xla_says_its_program_needs(runner):
    result = runner.run(
        RunRequest(scenario="tiny", params={"size": "1000"}, settings=RunSettings(samples=5, profile=False))
    )
    plain = result.variant("jax.jit")
    filtered = result.variant("eqx.filter_jit")
    assert plain is not None and plain.program.memory is not None
    # weights {"w": 1000 float32} and x (1000 float32) in, sin(w * x) (1000 float32) out
    assert (plain.program.memory.arguments, plain.program.memory.outputs, plain.program.memory.aliased) == (
        8000,
        4000,
        0,
    )
    assert plain.program.memory.of == "call" and plain.program.memory.generated_code >= 0
    assert filtered is not None and filtered.program.memory is not None and filtered.program.memory.arguments == 8000
    assert result.memory is not None and (result.memory.host_rss_bytes or 0) > 10 * 2**20
    assert result.memory.device_peak_bytes_in_use is None  # the CPU backend keeps no allocator figures


def test_donation_shows_as_aliased_bytes():
    import jax
    import jax.numpy as jnp

    from tuiperf.measuring.xla_costs import memory_of

    x = jnp.ones(256, jnp.float32)
    donating = jax.jit(lambda a: a * 2, donate_argnums=0).trace(x).lower().compile()
    keeping = jax.jit(lambda a: a * 2).trace(x).lower().compile()
    donated, kept = memory_of(donating), memory_of(keeping)
    assert donated is not None and kept is not None
    assert (donated.arguments, donated.outputs, donated.aliased) == (1024, 1024, 1024)
    assert kept.aliased == 0 and kept.total - donated.total == 1024


def test_each_process_knows_its_role_so_a_device_lister_imports_no_framework():
    from tuiperf.contract.protocol import ROLE_VARIABLE

    for role in ("loader", "devices", "measuring"):
        assert process_environment(role, {"PATH": "/bin"})[ROLE_VARIABLE] == role


def test_memory_figures_from_a_result_file_are_shown_inert():
    import factories
    import msgspec

    from tuiperf.results.memory import memory_rows
    from tuiperf.results.model import Program, ProgramMemory

    result = factories.result({"jit": factories.steady(1000.0)}, scenario="tiny")
    memory = ProgramMemory(
        arguments=4, outputs=4, temporaries=0, aliased=0, generated_code=0, of="\x1b]52;c;eA==\x07[/]"
    )
    result.variants[0] = msgspec.structs.replace(result.variants[0], program=Program(memory=memory))
    (row,) = memory_rows(result)
    assert "\x1b" not in row[0] and "\x07" not in row[0] and "[/]" in row[0]


def test_the_gpu_tests_scenarios_load():
    """tests/test_gpu.py runs only on a GPU: its scenario files are checked here (the first GPU check
    found 'too big', a variant name that names are no longer allowed to be)."""
    from tuiperf.measuring.loading import load_catalog

    catalog = load_catalog([str(Path(__file__).parent / "fixtures" / "gpu")])
    assert not catalog.broken, [str(b) for b in catalog.broken]
    assert "oom" in catalog.scenarios


@pytest.mark.slow
def test_the_gpu_tests_see_the_gpu():
    """The suite keeps JAX on the CPU, except where scripts/gpu_check.sh runs the GPU tests (their first
    run on a GPU saw only cpu:0: this file set JAX_PLATFORMS=cpu under them)."""
    import subprocess
    import sys

    conftest = Path(__file__).parent / "conftest.py"
    probe = f"import os, runpy; runpy.run_path({str(conftest)!r}); print(os.environ.get('JAX_PLATFORMS'))"

    def platforms(**env: str) -> str:
        clean = {k: v for k, v in os.environ.items() if k not in ("JAX_PLATFORMS", "TUIPERF_GPU_TESTS")}
        done = subprocess.run([sys.executable, "-c", probe], env={**clean, **env}, capture_output=True, text=True)
        return done.stdout.strip()

    assert platforms() == "cpu"
    assert platforms(TUIPERF_GPU_TESTS="1") == "None"


def test_an_accelerators_libraries_start_once_before_any_variant_compiles(monkeypatch):
    """On the GPU the first compile also started cuBLAS and cuDNN (1.4 s of nnx-vs-linen-cnn's first
    variant's 1.6 s compile): a measuring process starts them once per accelerator, before the variants."""
    from tuiperf.measuring import device_setup

    started: list[str] = []
    monkeypatch.setattr(device_setup, "_started", set())
    monkeypatch.setattr(
        device_setup,
        "start_libraries",
        lambda d: (started.append(d.id), device_setup._started.add(f"{d.platform}:{d.id}")),
    )
    gpu, cpu = SimpleNamespace(platform="gpu", id=0), SimpleNamespace(platform="cpu", id=0)
    for device in (gpu, gpu, cpu, SimpleNamespace(platform="gpu", id=1)):
        device_setup.start_device_libraries(device)
    assert started == [0, 1]


def test_the_library_start_program_runs():
    import jax

    from tuiperf.measuring.device_setup import start_libraries

    start_libraries(jax.devices("cpu")[0])  # what a GPU runs, here on the CPU: it compiles and runs


def test_a_result_from_a_gpu_says_when_its_first_compile_stands_out(capsys):
    """A result file written on an H200 reads here; under its one-time stages, when the variant compiled
    first took over twice the others' median (measured in that result), the report and the Breakdown
    tab say that compiles on an accelerator share XLA's autotuning. Not on the CPU, not without the gap."""
    import msgspec

    from tuiperf.cli import main
    from tuiperf.results import resultfile
    from tuiperf.results.evidence import first_compile_note
    from tuiperf.tui.widgets.breakdown import detail_text

    path = Path(__file__).parent / "fixtures" / "results" / "gpu-h200-dispatch-floor.json"
    assert main(["show", str(path), "--width", "100"]) == 0
    assert "gpu:0 (NVIDIA H200)" in capsys.readouterr().out
    on_gpu = resultfile.load(path)
    (model,) = [v for v in on_gpu.variants if v.name == "jax.jit"]

    def with_compiles(result, *compiles_ms):  # type: ignore[no-untyped-def]
        variants = [
            msgspec.structs.replace(model, name=f"v{i}", stages=msgspec.structs.replace(model.stages, compile=ms))
            for i, ms in enumerate(compiles_ms)
        ]
        return msgspec.structs.replace(result, variants=variants)

    gap = with_compiles(on_gpu, 1637.0, 355.2, 364.4, 308.1)
    note = first_compile_note(gap)
    assert note.startswith("v0, compiled before the others, took 1637 ms against a median 355 ms for theirs: on a GPU")
    assert note in " ".join(detail_text(gap, 400).plain.split())
    assert first_compile_note(with_compiles(on_gpu, 500.0, 355.2, 364.4)) == ""  # under twice
    assert first_compile_note(with_compiles(on_gpu, 1637.0, 355.2)) == ""  # one other: no median to speak of
    on_cpu = msgspec.structs.replace(gap, device=msgspec.structs.replace(gap.device, platform="cpu"))
    assert first_compile_note(on_cpu) == ""
