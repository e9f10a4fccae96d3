"""Remedies tried, not guessed (issue 52): where one call's profile shows JAX work outside a compiled
program, tuiperf puts jax.jit around the call itself, measures it in the same rounds as the original,
checks its outputs against the original's, and the verdict says the remedy with its measured effect.

Scenario: tests/fixtures/scenarios/grad_outside_jit.py (jax.grad(loss) called eagerly, 292× as slow as
jax.jit(jax.grad(loss)) upstream; tuiperf's verdict said "eager jnp operations … build arrays once")."""

from __future__ import annotations

import factories
import pytest
from rich.console import Console
from test_session import run, variant

from tuiperf.cli.report import render
from tuiperf.results import document
from tuiperf.results.export import markdown
from tuiperf.results.findings import is_finding
from tuiperf.results.model import Comparison, Tried
from tuiperf.results.remedies import machinery
from tuiperf.results.tried import words
from tuiperf.results.verdict import verdicts

EVIDENCE = "one call ran a derivative taken outside jax.jit (vjp ×1 in its profile)"


def _with_tried(ratio: float, ci: tuple[float, float], same: bool | None, tried_median: float, error=None):
    base = factories.variant("jit-grad", samples=factories.steady(10_000.0))
    slow = factories.variant("grad-eager", samples=factories.steady(3_000_000.0))
    remedied = factories.variant("grad-eager ⟨jax.jit around the call⟩", samples=factories.steady(tried_median))
    result = document.run_result(factories.header(), [base, slow], duration_s=1.0)
    comparison = Comparison(a=remedied.name, b=slow.name, ratio=ratio, ci95=ci, p_value=1e-9)
    result.tried = [
        Tried(
            of="grad-eager",
            remedy="put jax.jit around the call",
            evidence=EVIDENCE,
            result=None if error else remedied,
            ratio=None if error else comparison,
            same_outputs=same,
            differs="" if same is not False else "values: max relative difference 0.5",
            error=error,
        )
    ]
    return result


def test_a_tried_remedy_is_said_with_its_measured_effect_and_replaces_the_profiles_guess():
    result = _with_tried(0.0034, (0.0033, 0.0035), True, 10_100.0)
    (sentence,) = [s for name, s in verdicts(result, "jit-grad") if name == "grad-eager"]
    assert sentence.endswith(
        f"tried by tuiperf, as {EVIDENCE}: put jax.jit around the call, 300× → 1.01× against jit-grad, same outputs."
    )
    # it read "…: no breakdown of both, so the evidence names no cause; tried by tuiperf, as one call ran a
    # derivative taken outside jax.jit …": the remedy it measured is the evidence
    assert sentence == (
        f"grad-eager is 300× as slow as jit-grad: no breakdown of both; tried by tuiperf, as {EVIDENCE}: put "
        "jax.jit around the call, 300× → 1.01× against jit-grad, same outputs."
    )
    slower = verdicts(_with_tried(1.01, (0.99, 1.03), True, 3_030_000.0), "jit-grad")
    assert "so the evidence names no cause; tried by tuiperf" in dict(slower)["grad-eager"]  # tried, no help
    assert [v.name for v in result.variants] == ["jit-grad", "grad-eager"]  # apart from the user's variants
    text = markdown(result)
    row = "| `grad-eager` | put jax.jit around the call | 3.00 ms | 10.1 µs | 0.00340× \\[0.00330–0.00350\\] |"
    assert f"{row} same outputs |" in text
    console = Console(width=160, record=True)
    console.print(render(result, 160, console))
    report = console.export_text()
    assert "remedies tuiperf tried (not your variants" in report
    assert "grad-eager  put jax.jit around the call  3.00 ms   10.1 µs" in report


def test_a_remedy_that_does_not_help_or_changes_the_outputs_is_said_so():
    slower = words(_with_tried(1.01, (0.99, 1.03), True, 3_030_000.0), "grad-eager", "jit-grad")
    assert slower is not None and "no faster than the original (ratio 1.01, CI 0.990–1.03), same outputs" in slower
    differs = words(_with_tried(0.0034, (0.0033, 0.0035), False, 10_100.0), "grad-eager", "jit-grad")
    assert differs is not None and differs.endswith(
        "but different outputs (values: max relative difference 0.5): not a remedy"
    )
    failed = words(_with_tried(1, (1, 1), None, 1.0, error="x.py:3: TypeError: bad"), "grad-eager", "jit-grad")
    assert failed is not None and failed.endswith(
        "put jax.jit around the call, which could not be applied (x.py:3: TypeError: bad)"
    )


@pytest.mark.slow
def helped(doc, of: str, remedy: str, evidence: str, baseline: str, said_of: str = "") -> tuple[Tried, str]:
    """The one remedy tried in ``doc``: for ``of``, faster beyond noise, same outputs; and the why of
    ``said_of`` (``of`` unless given) against ``baseline``, which says it with its outputs."""
    (t,) = doc.tried
    assert t.of == of and t.error is None and t.same_outputs is True, t
    assert t.remedy.startswith(remedy) and evidence in t.evidence, t
    assert t.result is not None and t.ratio is not None and t.ratio.ratio < 1 and is_finding(t.ratio.ci95)
    (sentence,) = [s for name, s in verdicts(doc, baseline) if name == (said_of or of)]
    assert remedy in sentence and "same outputs" in sentence, sentence
    return t, sentence


def test_jit_around_an_eager_grad_is_tried_in_the_same_rounds_and_checked_against_its_outputs(runner):
    doc, _ = run(runner, scenario="grad-outside-jit", params={"size": "8"}, samples=30)
    assert [v.name for v in doc.variants] == ["jit-grad", "grad-eager"]
    t, sentence = helped(doc, "grad-eager", "put jax.jit around the call", "vjp ×1", "jit-grad")
    assert "apply_primitive" in t.evidence and t.result is not None
    # the same rounds as the original's
    original = variant(doc, "grad-eager").sampling
    assert len(t.result.sampling.round_starts) == len(original.round_starts)
    assert "build arrays that do not change once" not in sentence
    assert not [t for t in doc.tried if t.of == "jit-grad"]  # a jitted call shows no eager work: nothing tried


def test_the_baselines_tried_remedy_is_said_once_against_the_variant_it_is_read_with():
    """eager-constant's baseline is its slow variant (built-per-call): its tried remedy was not said."""
    result = _with_tried(0.0034, (0.0033, 0.0035), True, 10_100.0)
    (sentence,) = [s for name, s in verdicts(result, "grad-eager") if name == "jit-grad"]
    assert sentence.endswith("put jax.jit around the call, 300× → 1.01× against jit-grad, same outputs.")


def test_the_statistics_tab_lists_a_tried_remedy_apart_from_the_variants():
    from tuiperf.tui.widgets.stats_table import stats_content

    content = stats_content(_with_tried(0.0034, (0.0033, 0.0035), True, 10_100.0), "jit-grad", 200)
    assert [name for name, _ in content.rows] == ["jit-grad", "grad-eager"]
    assert (
        "tried by tuiperf (not your variant): grad-eager with put jax.jit around the call: 10.1 µs, "
        "0.00340× [0.00330–0.00350] of the original, same outputs"
    ) in content.verdicts.plain


def test_a_python_scalar_that_changed_in_a_steps_state_is_named_by_where_it_is():
    """The pure part of the scalar remedy's evidence: which Python scalars of two states differ (a flag,
    a bool, is a choice of program, not a counter; arrays are not scalars)."""
    import jax.numpy as jnp

    from tuiperf.measuring.candidates import changed_scalars

    w = jnp.ones(2)
    before = {"w": w, "count": 3, "lr": 0.1, "train": True}
    after = {"w": w + 1, "count": 4, "lr": 0.1, "train": False}
    assert changed_scalars(before, after) == [("['count']", 3, 4)]
    assert changed_scalars((w, 3), (w, 4)) == [("[1]", 3, 4)]
    assert changed_scalars((w, 3), (w, jnp.asarray(4))) == []  # already an array: nothing to remedy
    assert changed_scalars((w, 3), [w, 4]) == []  # another structure: not the same state


@pytest.mark.slow
def test_a_changing_python_scalar_in_a_steps_state_is_tried_as_an_array(runner):
    """tests/fixtures/scenarios/scalar_state.py: eqx.filter_jit keeps the step count static, so the step
    compiles on every call; passed as an array, it compiles once."""
    doc, _ = run(runner, scenario="scalar-state", samples=8, budget_s=10.0, ops=False)  # a call compiles: 0.5 s allowed
    scalar = "pass the changing Python scalar as a JAX array"
    t, _ = helped(doc, "python-count", scalar, "the Python int at state[1] went", "array-count")
    assert t.result is not None and t.result.recompiles.recompiles == 0  # compiled once, before sampling
    assert variant(doc, "python-count").recompiles.recompiles > 0
    assert len(t.result.sampling.round_starts) == len(variant(doc, "python-count").sampling.round_starts)


@pytest.mark.slow
def test_an_equinox_module_partitioned_on_every_call_is_tried_partitioned_once(runner):
    """tests/fixtures/scenarios/eqx_traversal.py: eqx.filter_jit over a small MLP, whose own Python holds
    most of the call; tuiperf partitions the module once and calls jax.jit over its arrays."""
    doc, _ = run(runner, scenario="eqx-traversal", samples=10, budget_s=1.0, ops=False)
    # the profile names the machinery, and the scenario's own remedy variant removes it (tests/test_remedies.py)
    found = machinery(variant(doc, "eqx.filter_jit"), doc.scenario.path)
    assert found is not None and found[0].key == "equinox_traversal"
    assert not any("equinox/" in r.function for r in variant(doc, "partitioned-once").profile.rows)
    assert machinery(variant(doc, "partitioned-once"), doc.scenario.path) is None
    partition = "partition the module once (eqx.partition)"
    _, sentence = helped(
        doc, "eqx.filter_jit", partition, "of a call in Equinox's own Python", "eqx.filter_jit", "partitioned-once"
    )
    # the profile's guess of the same remedy is not said beside the remedy tried
    assert "call jax.jit over arrays partitioned once outside the call" not in sentence


@pytest.mark.slow
def test_an_nnx_module_walked_on_every_call_is_tried_split_once(runner):
    """tests/fixtures/scenarios/nnx_graph.py: nnx.jit over a small NNX MLP walks its graph in Python on
    every call (to_tree, flatten); tuiperf splits the module once and calls jax.jit over its state."""
    doc, _ = run(runner, scenario="nnx-graph", samples=10, budget_s=0.5, ops=False)
    split = "split the module once (nnx.split) and call jax.jit over its state"
    _, sentence = helped(doc, "nnx.jit", split, "of a call in Flax NNX's own Python", "nnx.jit", "split-once")
    assert "nnx.jit(graph=False)" not in sentence  # the profile's guess is not said beside the remedy tried


def test_the_html_page_gives_the_tried_remedy_apart_from_the_users_variants():
    # The report, the app's Statistics tab and the Markdown had the table; the HTML page had none.
    from tuiperf.results.html_page import page

    html = page(_with_tried(0.0034, (0.0033, 0.0035), True, 10_100.0))
    section = html.split("<h2>Remedies tuiperf tried</h2>")[1]
    assert "<td>grad-eager</td><td>put jax.jit around the call</td><td>3.00 ms</td><td>10.1 µs</td>" in section
    assert "same outputs" in section.split("</table>")[0]
    assert "Remedies tuiperf tried" not in page(factories.result({"a": factories.steady(10.0)}))


def test_a_call_that_traces_on_every_call_is_eager_evidence_for_jit_around():
    """tests/fixtures/scenarios/eager.py's eager-tracing (jax.eval_shape of a new function on every call,
    like eager Linen) was 67.8× as slow as jit and read "no breakdown of both, so the evidence names no
    cause", nothing tried: JAX 0.10 dispatches eager jnp operations through cached programs, so its
    profile has no apply_primitive row, only the trace."""
    import jax
    import jax.numpy as jnp

    from tuiperf.api.scenario import Bench
    from tuiperf.measuring.candidates import eager_evidence

    x = jnp.arange(8, dtype=jnp.float32)

    def traced_each_call(v):
        jax.eval_shape(lambda w: jnp.sin(w), v)
        return jnp.sin(v)

    evidence = eager_evidence(Bench(traced_each_call, x, eager=True))
    assert evidence is not None and "a function traced on every call (trace_to_jaxpr" in evidence
    # not declared eager: a jitted call that traces on every call recompiles (a static value changing,
    # tests/fixtures/scenarios/recompiling.py), and jax.jit around it froze that value: different outputs
    assert eager_evidence(Bench(traced_each_call, x)) is None
    assert eager_evidence(Bench(jax.jit(jnp.sin), x)) is None  # jitted already: nothing to try


def test_a_custom_jvp_called_eagerly_is_tried_with_jit_around_it(runner):
    """custom-jvp-eager's why said "put jax.jit around the custom_jvp function" from its profile, untried:
    its call shows neither apply_primitive nor a derivative, only custom_jvp.__call__ (the signature
    resolved and the rule bound on every call)."""
    doc, _ = run(runner, scenario="custom-jvp-eager", samples=30)
    evidence = "a jax.custom_jvp/custom_vjp function called outside jax.jit (custom_derivatives.__call__ ×1"
    _, sentence = helped(doc, "eager-custom_jvp", "put jax.jit around the call", evidence, "jit-around-custom_jvp")
    assert "tried by tuiperf" in sentence
    assert not [t for t in doc.tried if t.of == "jit-around-custom_jvp"]  # jitted: nothing to try


def test_a_faster_baselines_own_remedy_names_it_and_gives_its_effect_on_its_own_time():
    """recompiling (fixture), stable the baseline: recompiling's why ended "tried by tuiperf, as its
    profile puts 77.7 % of a call in Equinox's own Python …: partition the module once …, 0.000526× →
    9.18e-05× against recompiling": stable's remedy read as recompiling's, in ratios to recompiling."""
    base = factories.variant("stable", samples=factories.steady(31_000.0))
    slow = factories.variant("recompiling", samples=factories.steady(35_000_000.0))
    remedied = factories.variant("stable ⟨eqx.partition once⟩", samples=factories.steady(5_400.0))
    result = document.run_result(factories.header(), [base, slow], duration_s=1.0)
    ratio = Comparison(a=remedied.name, b=base.name, ratio=0.175, ci95=(0.173, 0.176), p_value=1e-9)
    evidence = "its profile puts 77.7 % of a call in Equinox's own Python"
    once = "partition the module once"
    result.tried = [Tried(of="stable", remedy=once, evidence=evidence, result=remedied, ratio=ratio, same_outputs=True)]
    (sentence,) = [s for name, s in verdicts(result, "stable") if name == "recompiling"]
    assert sentence.endswith(
        f"; tried by tuiperf on stable, as {evidence}: partition the module once, 0.175× the original's time, "
        "same outputs."
    )
    assert "e-0" not in sentence
