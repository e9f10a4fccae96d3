"""The breakdown, the guard and the recompile sentinel on cases where they used to say something false
with confidence: each test reproduces one with a fixture scenario and fails on the old code."""

from __future__ import annotations

import re

import pytest
from test_session import run, variant

from tuiperf.contract.events import RunStarted, SamplesAdded


@pytest.mark.slow
def test_a_call_that_recompiles_has_no_framework_stage_and_its_cause_is_named(runner):
    doc, _ = run(runner, scenario="recompiling", samples=5, profile=False)
    recompiling = variant(doc, "recompiling")
    assert recompiling.recompiles.recompiles >= 5
    b = recompiling.breakdown
    assert b is not None and not b.reliable and b.stages == {} and b.compiles == recompiling.recompiles.recompiles
    assert f"compiled {recompiling.recompiles.recompiles} time(s) in 5 samples" in (b.reason or "")
    # JAX's explanation names the argument and the static value that changed since the variant's own
    # previous call (not the stable variant's step 0, the closest key JAX would pick by itself)
    causes = recompiling.recompiles.causes
    # the changed scalar by its value, in the short group of eqx.filter_jit's static leaves around it
    found = re.fullmatch(r"input path \[0\]\[2\]: static value (\d+) → (\d+) in (.+)", causes[0])
    assert found is not None, causes[0]
    old, new = int(found[1]), int(found[2])
    assert new == old + 1 and f"(None, {old})" in found[3]
    (warning,) = [w for w in recompiling.warnings if "XLA compilation(s)" in w]
    assert "as JAX explains its cache misses: input path [0][2]" in warning
    assert variant(doc, "stable").recompiles.causes == []


def test_cache_miss_explanations_become_one_line_each():
    from tuiperf.measuring.sentinel import cause_of

    static = (
        "TRACING CACHE MISS at f.py:3 (g):\n  for <lambda> defined at f.py:1\n"
        "  all previously seen cache keys differ.\n"
        "  different input pytree:\n  * at input path [0][1], now <class 'jax._src.tree_util.Static'> with pytree "
        "metadata Static(val=2) and before <class 'jax._src.tree_util.Static'> with pytree metadata Static(val=1), "
        "so the pytree node metadata does not match"
    )
    assert cause_of(static) == "input path [0][1]: static value 1 → 2"
    shape = "TRACING CACHE MISS at f.py:3 (g):\n  different input types:\n  * at x, now f32[4] and before f32[3]"
    assert cause_of(shape) == "argument x: f32[3] → f32[4]"
    weak = (
        "TRACING CACHE MISS:\n  * at x, now f32[]({}){weak_type=True} and before f32[3]({}){weak_type=False}"
        "https://docs.jax.dev/en/latest/type_promotion.html#weak-types"
    )
    assert cause_of(weak) == "argument x: f32[3] → f32[] (weakly typed)"
    part = "((f, (None, 0), T(M[a, b])))"
    long_old, long_new = part * 3, part * 2 + part.replace("0", "7").replace("a", "c")
    cut = cause_of(f"MISS\n  * at input path [0], now Static(val={long_new}) and before Static(val={long_old})")
    assert "(None, 0)" in cut.split("→")[0] and "(None, 7)" in cut.split("→")[1] and len(cut) < 160


def test_a_python_scalar_among_equinox_static_leaves_is_named_by_its_value_not_a_cut_dump():
    """A step's state holding a Python int, under eqx.filter_jit: JAX printed the whole static partition
    and the cause read 'static value …PyTreeDef(*)), ((None, 12), PyTreeDef((*, *))), (… → …'."""
    from tuiperf.measuring.sentinel import cause_of

    def static(count: int) -> str:
        return (
            "Static(val=(((<function step at 0x7f4dca86bba0>,), PyTreeDef(*)), "
            f"((None, {count}), PyTreeDef((*, *))), ((None,), PyTreeDef(((*, None), {{}})))))"
        )

    message = (
        "TRACING CACHE MISS at equinox/_jit.py:263:37 (_call):\n  for step defined at equinox/_jit.py:43\n"
        "  all previously seen cache keys differ. For the closest previous key:\n  different input pytree:\n"
        f"  * at input path [0][2], now <class 'jax._src.tree_util.Static'> with pytree metadata {static(12)} "
        f"and before <class 'jax._src.tree_util.Static'> with pytree metadata {static(11)}, so the pytree node "
        "metadata does not match"
    )
    assert cause_of(message) == "input path [0][2]: static value 11 → 12 in ((None, 11), PyTreeDef((*, *)))"
    floats = message.replace("12)", "0.25)").replace("11)", "0.5)")
    assert cause_of(floats) == "input path [0][2]: static value 0.5 → 0.25 in ((None, 0.5), PyTreeDef((*, *)))"


@pytest.mark.slow
@pytest.mark.parametrize(
    "order",
    [["pytree-config", "frozen-config", "per-call-config"], ["per-call-config", "frozen-config", "pytree-config"]],
)
def test_a_recompile_is_explained_against_the_same_variants_previous_call(runner, order):
    """Two variants jax.jit one function; JAX alone compared per-call-config's misses with
    pytree-config's key ("PytreeConfig → Static"). The cause must be the variant's own: a static config
    that prints alike but compares by identity, with the remedy."""
    doc, _ = run(runner, scenario="shared-jit", samples=5, profile=False, variants=order)
    per_call = variant(doc, "per-call-config")
    assert per_call.recompiles.recompiles >= 5 and variant(doc, "pytree-config").recompiles.recompiles == 0
    assert variant(doc, "frozen-config").recompiles.recompiles == 0  # the remedy
    (cause,) = per_call.recompiles.causes
    assert "PytreeConfig" not in cause and "Static'>" not in cause
    assert cause.startswith("input path [0][1]: static value Config(scale=2.0, depth=3) prints the same as before")
    assert "compares by identity" in cause and "frozen" in cause and "build it once" in cause


def test_a_changed_static_field_of_an_equinox_module_is_named():
    """The recompile cause showed `3 → 4` inside a cut dump of Equinox's static tuple; it names the field."""
    import equinox as eqx
    import jax

    class DepthNamedModel(eqx.Module):
        w: jax.Array
        depth: int = eqx.field(static=True)
        label: str = eqx.field(static=True)

    from tuiperf.measuring.sentinel import cause_of

    def static(depth: int) -> str:
        label = "'a-long-label-so-that-the-static-value-prints-long-enough-to-be-cut'"
        node = f"PyTreeDef(CustomNode(DepthNamedModel[(Missing, {depth}, {label})], [*]))"
        return f"Static(val=(((<function f at 0x7f>,), PyTreeDef(*)), ((None,), {node})))"

    message = (
        "TRACING CACHE MISS at _jit.py:263:37 (_call):\n  different input pytree:\n  * at input path [0][2], now "
        f"<class 'jax._src.tree_util.Static'> with pytree metadata {static(4)} and before <class "
        f"'jax._src.tree_util.Static'> with pytree metadata {static(3)}, so the pytree node metadata does not match"
    )
    assert cause_of(message) == "input path [0][2]: static field DepthNamedModel.depth 3 → 4"
    assert DepthNamedModel.__name__  # (kept alive: the name is looked up among loaded Module classes)


def test_identical_static_values_are_named_an_identity_comparison():
    from tuiperf.measuring.sentinel import cause_of

    same = "MISS\n  * at input path [0][1], now Static(val=Cfg(a=1)) and before Static(val=Cfg(a=1)), so ..."
    assert cause_of(same).startswith("input path [0][1]: static value Cfg(a=1) prints the same as before")


def test_python_scalars_are_weakly_typed_arguments_of_the_paths_and_static_stays_static():
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    from tuiperf import eqx_filter_jit_level
    from tuiperf.measuring.breakdown import build_paths
    from tuiperf.measuring.xla_costs import flops_of

    class Scaled(eqx.Module):
        w: jax.Array
        power: float

    def forward(model, x, alpha):
        return jnp.tanh(model.w * x) * alpha * alpha + x * alpha + model.power

    model, x = Scaled(jnp.linspace(0.0, 1.0, 16), 3.0), jnp.ones(16)
    jitted = jax.jit(forward)
    call_flops = flops_of(jitted.trace(model, x, 2.0).lower().compile())
    paths = build_paths(jitted, (model, x, 2.0), call_is_jit=True)
    assert paths.program.flops == call_flops  # baked in as constants, XLA folded alpha * alpha: 0.833× the FLOPs
    assert len(paths.paths["flat_jit"].args) == 4  # w, x, power and alpha, as jax.jit traces them
    jit_fn, jit_args = eqx_filter_jit_level(forward, model, x, 2.0)  # Equinox holds both floats static
    eqx_paths = build_paths(jit_fn, jit_args, call_is_jit=False)
    assert eqx_paths.program.flops == flops_of(jit_fn.trace(*jit_args).lower().compile())
    assert len(eqx_paths.paths["flat_jit"].args) == 2  # the arrays only


@pytest.mark.slow
def test_python_scalars_leave_the_breakdown_comparable(runner):
    doc, _ = run(runner, scenario="scalars", samples=10, profile=False)
    b = variant(doc, "jax.jit").breakdown
    assert b is not None and "XLA FLOPs" not in (b.reason or "")


@pytest.mark.slow
def test_equal_values_by_different_programs_are_a_note_and_different_values_still_a_verdict(runner):
    doc, _ = run(runner, scenario="same-values", samples=5, profile=False)
    eq = doc.equivalence
    assert {m.a for m in eq.mismatches} == {"doubled"}  # values and FLOPs differ: the 1-D-conv trap
    assert {m.quantity for m in eq.mismatches} == {"output values", "XLA FLOPs"}
    assert eq.notes == [
        "sliced and padded: same result, different programs (0.25× the XLA FLOPs: 16 FLOP vs 64 FLOP)",
        "sliced and padded: same result, different programs (0.5× the XLA transcendentals: 8 vs 16)",
    ]
    assert not any(w.startswith(("sliced", "padded-values-only")) and "not fair" in w for w in doc.warnings)
    assert "padded-values-only" in eq.checked  # equivalent="values": values compared, FLOPs not
    assert not any("padded-values-only" in n for n in eq.notes)


def test_equivalent_takes_true_false_or_values():
    from tuiperf.api.scenario import Scenario
    from tuiperf.common.errors import ScenarioError

    scenario = Scenario(title="t", question="q")
    scenario.variant("a", equivalent="values")(lambda p, ctx: None)
    assert scenario.variants["a"].same_as_default and not scenario.variants["a"].check_costs
    with pytest.raises(ScenarioError, match='equivalent must be True, False or "values"'):
        scenario.variant("b", equivalent="flops")


@pytest.mark.slow
def test_the_reference_variant_is_the_default_baseline_and_baseline_overrides_it(runner):
    from tuiperf.results.ratios import against

    doc, _ = run(runner, scenario="same-values", samples=5, profile=False, variants=["sliced", "padded"])
    assert doc.options.baseline == "padded" and against(doc)[0] == "padded"  # reference=True
    doc, _ = run(
        runner, scenario="same-values", samples=5, profile=False, variants=["sliced", "padded"], baseline="sliced"
    )
    assert doc.options.baseline == "sliced" and against(doc)[0] == "sliced"


def test_an_unknown_baseline_is_a_user_error(fixture_dir, capsys):
    from tuiperf.cli import main

    code = main(["run", "tiny", "--scenarios", fixture_dir, "--in-process", "--baseline", "nope"])
    err = capsys.readouterr().err
    assert code == 2 and "unknown baseline 'nope'" in err and err.count("\n") == 1


def test_a_sequential_sweep_measures_its_first_point_again_and_flags_drift(runner):
    doc, _ = run(
        runner, scenario="drifting", samples=20, profile=False, sweep=("size", ["8", "16"]), sweep_order="sequential"
    )
    sweep = doc.sweep
    assert sweep is not None and len(doc.points) == 2
    first = doc.points[0].variant("slowing")
    assert first is not None and first.sampling.stats is not None
    assert sweep.anchor_ns["slowing"] > first.sampling.stats.median_ns  # measured again after the last point
    (drift,) = [w for w in doc.warnings if w.startswith("drift: slowing at size=8")]
    assert "the points between may carry up to that much drift" in drift


def test_an_interleaved_sweep_samples_every_point_in_the_same_rounds(runner):
    doc, events = run(
        runner, scenario="drifting", samples=20, interleave="call", profile=False, sweep=("size", ["8", "16", "32"])
    )
    assert doc.options.sweep_order == "interleaved" and doc.sweep is not None and doc.sweep.anchor_ns == {}
    spans = [(p.variant("slowing").sampling.first_round, p.variant("slowing").sampling.last_round) for p in doc.points]
    assert spans == [(0, 19)] * 3  # one call per turn: every point takes a turn in each of the 20 rounds
    assert [p.variant("slowing").sampling.stats.n for p in doc.points] == [20, 20, 20]
    # The call does more work the more it has been called (one more launch every ten calls): measured one
    # point after another, the last point reads ~2.8x the first (a false slope); here they drift alike.
    medians = [p.variant("slowing").sampling.stats.median_ns for p in doc.points]
    assert max(medians) < 1.5 * min(medians)
    started = [e.sweep_value for e in events if isinstance(e, RunStarted)]
    assert started == [8, 16, 32]  # each point reported in order, as a sequential sweep reports it
    samples_before_start = [e for e in events[: events.index(next(e for e in events if isinstance(e, RunStarted)))]]
    assert not any(isinstance(e, SamplesAdded) for e in samples_before_start)


def test_a_steady_first_point_is_not_called_drift():
    import factories

    from tuiperf.results import document

    point = factories.result({"a": factories.steady(1000.0)}, params={"n": 1})
    again = factories.result({"a": factories.steady(1010.0)}, params={"n": 1})
    later = factories.result({"a": factories.steady(2000.0)}, params={"n": 2})
    steady = document.sweep_result("n", [1, 2], [point, later], factories.header(), duration_s=1.0, anchor=again)
    assert steady.sweep is not None and steady.sweep.anchor_ns == {"a": 1010.0}
    assert not any(w.startswith("drift") for w in steady.warnings)  # 1 %: within the limit
    moved = factories.result({"a": factories.steady(1200.0)}, params={"n": 1})
    drifted = document.sweep_result("n", [1, 2], [point, later], factories.header(), duration_s=1.0, anchor=moved)
    assert drifted.warnings[0].startswith("drift: a at n=1 read 1.00 µs at the start of the sweep and 1.20 µs")


def test_calls_on_the_default_device_are_not_timed_inside_a_default_device_scope(runner):
    doc, _ = run(runner, scenario="call-site", variants=["no-scope"], samples=5, profile=False)
    assert variant(doc, "no-scope").ok, variant(doc, "no-scope").failure


def test_a_runs_calls_are_timed_at_a_scripts_stack_depth(runner, tmp_path, monkeypatch):
    """JAX records the calling stack's traceback on every call, so a call made ten frames deeper costs
    more: a run's sampled calls are made three frames deep in a thread of their own,
    as from a script's timing loop, however deep the run itself is (here: a test, the runner, the run)."""
    depths = tmp_path / "depths"
    monkeypatch.setenv("TUIPERF_TEST_DEPTHS", str(depths))
    doc, _ = run(runner, scenario="call-site", variants=["depth"], samples=200, profile=False)
    assert variant(doc, "depth").ok, variant(doc, "depth").failure
    recorded = [int(line) for line in depths.read_text().split()]
    assert recorded.count(3) >= 200  # every sample; preparing calls from deeper
