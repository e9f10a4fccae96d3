"""End-to-end runs of tiny fixture scenarios in this process (CPU, sync dispatch)."""

import io
import threading

import numpy as np
import pytest
from rich.console import Console

from tuiperf.cli import report
from tuiperf.common.errors import DeviceError, ParamError
from tuiperf.common.units import format_bytes
from tuiperf.contract.events import PhaseChanged, Progress, RunStarted, SamplesAdded, VariantFinished
from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest


def run(runner, scenario="tiny", **kwargs):
    events = []
    kwargs.setdefault("samples", 30)
    kwargs.setdefault("dispatch", "sync")
    settings = RunSettings(**{k: kwargs.pop(k) for k in list(kwargs) if k in RunSettings.__struct_fields__})
    doc = runner.run(RunRequest(scenario=scenario, settings=settings, **kwargs), events.append)
    return doc, events


def variant(doc, name):
    found = doc.variant(name)
    assert found is not None, name
    return found


@pytest.mark.slow
def test_a_run_is_complete(runner):
    doc, events = run(runner, params={"size": "16"})
    assert doc.schema_version == 3 and not doc.partial
    assert doc.params["size"] == 16 and doc.device.id == "cpu:0"
    env = doc.env
    assert env is not None and env.python and env.cpu and env.date and env.timer_resolution_ns
    assert {"jax", "jaxlib", "equinox", "flax", "numpy"} <= {k for k, v in env.packages.items() if v}
    assert env.dispatch == doc.options.dispatch == "sync"
    assert doc.scenario.source_sha256 and len(doc.scenario.source_sha256) == 64
    for name in ("jax.jit", "eqx.filter_jit", "flaky"):
        v = variant(doc, name)
        assert v.ok and len(v.sampling.samples_ns) == 30 and v.sampling.stats is not None
        s = v.sampling.stats
        assert s.n == 30 and s.median_ns == pytest.approx(np.median(v.sampling.samples_ns))
        assert s.ci95_median_ns[0] <= s.median_ns <= s.ci95_median_ns[1]
        assert v.stages.first_call > 0 and v.recompiles.retraces == 0 and v.recompiles.recompiles == 0
        assert v.program.param_count == 16
        b = v.breakdown
        assert b is not None
        parts = sum(stage.ns for stage in b.stages.values())
        assert parts == pytest.approx(b.call_ns)  # the stages add up to the measured call
        assert b.total_ns - parts == pytest.approx(b.residual_ns)
    assert variant(doc, "jax.jit").stages.compile > 0  # through jax's AOT stages
    assert variant(doc, "jax.jit").program.flops is not None
    assert variant(doc, "optional").skipped and "not installed" in variant(doc, "optional").notes[0]
    pairs = {(c.a, c.b) for c in doc.comparisons}  # every pair, so any variant can be the baseline
    assert pairs == {("eqx.filter_jit", "jax.jit"), ("flaky", "jax.jit"), ("flaky", "eqx.filter_jit")}
    assert all(c.ci95[0] <= c.ratio <= c.ci95[1] for c in doc.comparisons)
    assert doc.equivalence.mismatches == []
    kinds = {type(e) for e in events}
    assert {RunStarted, PhaseChanged, SamplesAdded, Progress, VariantFinished} <= kinds
    streamed = sum(len(e.samples_ns) for e in events if isinstance(e, SamplesAdded) and e.variant == "jax.jit")
    assert streamed == 30


def test_filter_jit_shows_framework_overhead_and_its_profile(runner):
    doc, _ = run(runner, variants=["jax.jit", "eqx.filter_jit"], samples=40)
    filtered = variant(doc, "eqx.filter_jit")
    plain = variant(doc, "jax.jit")
    assert filtered.breakdown is not None and plain.breakdown is not None
    assert filtered.breakdown.stages["framework"].ns > plain.breakdown.stages["framework"].ns
    # The profile keeps the top rows by cumulative time: equinox's own frames lead it (which of its helpers
    # make the cut moves with the machine's load, so no single helper is asserted).
    assert "equinox" in filtered.profile.rows[0].function or "equinox" in filtered.profile.rows[1].function
    assert not any("equinox" in row.function for row in plain.profile.rows)


def test_a_failing_variant_is_reported_and_the_others_still_run(runner):
    doc, _ = run(runner, params={"fail": "true"})
    flaky = variant(doc, "flaky")
    failure = flaky.failure
    assert not flaky.ok and failure is not None
    assert "tiny.py:" in failure.error and "ValueError: asked to fail" in failure.error
    assert variant(doc, "jax.jit").ok
    assert any("flaky failed" in w for w in doc.warnings)


def test_cancel_keeps_partial_results(runner):
    cancel = threading.Event()
    seen = []

    def on_event(event):
        seen.append(event)
        if isinstance(event, SamplesAdded):
            cancel.set()

    doc = runner.run(
        RunRequest(scenario="tiny", variants=["jax.jit"], settings=RunSettings(budget_s=30.0, dispatch="sync")),
        on_event,
        cancel,
    )
    assert doc.partial and doc.warnings[0].startswith("partial result")
    assert 0 < len(variant(doc, "jax.jit").sampling.samples_ns) < 100_000


def test_equivalence_guard_flags_the_unfair_variant_only(runner):
    doc, _ = run(runner, scenario="unfair", samples=10, profile=False)
    mismatches = doc.equivalence.mismatches
    assert {m.a for m in mismatches} == {"diagonal"}
    assert {m.quantity for m in mismatches} >= {"output values", "XLA FLOPs", "parameter count"}
    assert any(w.startswith("diagonal does not compute the same thing as dense") for w in doc.warnings)
    assert not any("differs from" in w for w in variant(doc, "dense-again").warnings)


@pytest.mark.slow
def test_sweep_reports_medians_and_slopes(runner):
    doc, _ = run(runner, variants=["jax.jit"], samples=10, profile=False, sweep=("size", ["4", "64", "1024"]))
    sweep = doc.sweep
    assert sweep.parameter == "size" and sweep.values == [4, 64, 1024]
    assert len(sweep.medians_ns["jax.jit"]) == 3 and all(m > 0 for m in sweep.medians_ns["jax.jit"])
    assert isinstance(sweep.slopes["jax.jit"], float)
    assert [point.params["size"] for point in doc.points] == [4, 64, 1024]
    assert doc.variants == []  # a sweep's measurements live in its points, each labelled with its value
    memory = sweep.memory_bytes["jax.jit"]
    assert memory == [point.variant("jax.jit").program.memory.total for point in doc.points] and memory[0] < memory[-1]
    printed = io.StringIO()
    report.print_result(doc, Console(file=printed, width=100))
    table = printed.getvalue().split("program memory (per device), as XLA sizes it")[1]
    assert table.splitlines()[3].split(maxsplit=1)[1].split() == " ".join(format_bytes(b) for b in memory).split()


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"params": {"size": "0"}}, ParamError, "size: 0 is below the minimum 1"),
        ({"variants": ["nope"]}, ParamError, "unknown variant 'nope'"),
        ({"device": "tpu:7"}, DeviceError, "no device 'tpu:7' (available: cpu:0"),
        ({"sweep": ("size", ["1", "x"])}, ParamError, "size: 'x' is not an integer"),
    ],
)
def test_bad_input_is_rejected_before_anything_runs(runner, kwargs, error, message):
    events = []
    with pytest.raises(error, match=message.replace("(", r"\(")):
        runner.run(RunRequest(scenario="tiny", **kwargs, settings=RunSettings(dispatch="sync")), events.append)
    assert events == []


@pytest.mark.slow
def test_retrace_sentinel_counts_compiles_inside_the_timed_loop(runner):
    doc, _ = run(runner, scenario="retrace", samples=5, profile=False)
    stable, retracing = variant(doc, "stable"), variant(doc, "retracing")
    assert stable.recompiles.recompiles == 0 and stable.recompiles.retraces == 0
    assert retracing.recompiles.recompiles >= 5 and retracing.recompiles.retraces >= 5
    assert any("compilation(s)" in w and "during steady-state sampling" in w for w in retracing.warnings)


def test_the_async_dispatch_hint_stays_out_of_sync_runs(runner):
    doc, _ = run(runner, variants=["jax.jit"], samples=50, profile=False)
    assert doc.env is not None and doc.env.dispatch == "sync"
    assert not any("asynchronous CPU dispatch" in w for w in doc.warnings)


@pytest.mark.slow
def test_eager_variants_get_no_jit_advice_and_traces_are_not_called_recompilation(runner):
    doc, _ = run(runner, scenario="eager", samples=20, profile=False)
    eager, undeclared = variant(doc, "eager-tracing"), variant(doc, "undeclared")
    assert eager.recompiles.eager and eager.recompiles.retraces >= 20 and eager.recompiles.recompiles == 0
    assert not any("jit_fn" in note for note in eager.notes)
    assert not any("compil" in w for w in eager.warnings)
    assert any("during sampling are part of its calls" in note for note in eager.notes)
    assert any("give Bench(jit_fn=" in note for note in undeclared.notes)  # advice only where it applies
    assert variant(doc, "jit").breakdown is not None and eager.breakdown is None


@pytest.mark.slow
def test_an_auto_run_stops_at_its_budget_not_at_the_sample_cap(runner):
    """Auto mode once sampled every run to the cap (1,000,000 calls: a 1 s budget took 16 s)."""
    from tuiperf.contract.options import MAX_SAMPLES_PER_VARIANT

    doc, _ = run(runner, params={"size": "16"}, variants=["jax.jit"], samples=None, budget_s=0.05, profile=False)
    n = len(variant(doc, "jax.jit").sampling.samples_ns)
    assert 0 < n < MAX_SAMPLES_PER_VARIANT / 10


def test_a_compile_run_s_progress_moves_through_its_compile_repeats(runner):
    # The bar stood at 100 % while the repeats ran (the budget again, then each variant's cache cold and warm).
    doc, events = run(runner, variants=["jax.jit"], samples=5, profile=False, measure="compile", budget_s=0.3)
    assert variant(doc, "jax.jit").stages.rounds >= 3
    fractions, during = [], []
    for event in events:
        if isinstance(event, Progress):
            fractions.append(event.fraction)
        elif isinstance(event, PhaseChanged) and event.phase == "compile" and "repeat" in event.message:
            during.append(fractions[-1])
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)
    assert during and max(during) < 0.99  # before: 1.0 from the first repeat on
    assert len({round(f, 3) for f in fractions if f >= during[0]}) >= 3  # it moves while they run
