"""What a GPU box needs that a CPU can decide: the environment each process starts with, the dispatch
mode that really applies, and memory figures per variant (see docs/guide/gpu.md)."""

from __future__ import annotations

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


def test_a_variants_memory_is_what_xla_says_its_program_needs(runner):
    result = runner.run(
        RunRequest(scenario="tiny", params={"size": "1000"}, settings=RunSettings(samples=5, profile=False))
    )
    plain = result.variant("jax.jit")
    filtered = result.variant("eqx.filter_jit")
    assert plain is not None and plain.memory is not None
    # weights {"w": 1000 float32} and x (1000 float32) in, sin(w * x) (1000 float32) out
    assert (plain.memory.arguments, plain.memory.outputs, plain.memory.aliased) == (8000, 4000, 0)
    assert plain.memory.of == "call" and plain.memory.generated_code >= 0
    assert filtered is not None and filtered.memory is not None and filtered.memory.arguments == 8000
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

    from tuiperf.results.memory import memory_rows
    from tuiperf.results.model import ProgramMemory

    result = factories.result({"jit": factories.steady(1000.0)}, scenario="tiny")
    result.variants[0].memory = ProgramMemory(
        arguments=4, outputs=4, temporaries=0, aliased=0, generated_code=0, of="\x1b]52;c;eA==\x07[/]"
    )
    (row,) = memory_rows(result)
    assert "\x1b" not in row[0] and "\x07" not in row[0] and "[/]" in row[0]
