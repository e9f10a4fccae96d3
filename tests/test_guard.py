"""The equivalence guard on small pure cases: each test fails if the rule it names breaks."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from tuiperf.core.guard import Subject, check_equivalence


def subject(name, output, *, compare=None, tolerance=None, flops=None, params=None):
    return Subject(name, output, flops, params, compare=compare, tolerance=tolerance)


def as_flat_dict(params):
    """A projection an author would write: every library's parameters as {name: array}."""
    if isinstance(params, dict):
        return {"loss": params["loss"], "w": params["w"], "b": params["b"]}
    loss, (w, b) = params
    return {"loss": loss, "w": w, "b": b}


W, B = jnp.arange(6.0).reshape(2, 3), jnp.ones(3)


def test_tuple_and_dict_containers_compare_equal_through_a_projection():
    as_tuple = subject("tuple", (jnp.float32(0.5), (W, B)), compare=as_flat_dict)
    as_dict = subject("dict", {"b": B, "w": W, "loss": jnp.float32(0.5)}, compare=as_flat_dict)
    assert check_equivalence([as_tuple, as_dict], 1e-6) == []
    assert check_equivalence(
        [subject("tuple", (jnp.float32(0.5), (W, B))), subject("dict", {"b": B, "w": W, "loss": jnp.float32(0.5)})],
        1e-6,
    )  # without a projection they differ


def test_a_different_update_is_a_value_mismatch():
    ref = subject("lr 0.1", {"loss": jnp.float32(0.5), "w": W, "b": B}, compare=lambda o: o)
    other = subject("lr 0.2", {"loss": jnp.float32(0.5), "w": W * 1.01, "b": B}, compare=lambda o: o)
    (found,) = check_equivalence([ref, other], 1e-4)
    assert found["quantity"] == "output values" and found["a"] == "lr 0.2"


def test_nan_at_the_same_place_is_equal_and_in_one_only_is_not():
    nan = jnp.array([1.0, jnp.nan])
    assert check_equivalence([subject("a", nan), subject("b", nan)], 1e-6) == []
    (found,) = check_equivalence([subject("a", nan), subject("b", jnp.array([1.0, 2.0]))], 1e-6)
    assert "NaN or infinity in one only" in found["detail"]


def test_missing_keys_are_named():
    ref = subject("a", {"w": W, "b": B}, compare=lambda o: o)
    other = subject("b", {"w": W, "bias": B}, compare=lambda o: o)
    (found,) = check_equivalence([ref, other], 1e-6)
    assert found["quantity"] == "output keys" and found["detail"] == "missing b; extra bias"


def test_a_variant_tolerance_loosens_its_comparison_only():
    close = jnp.array([1.0, 2.0]) * (1 + 1e-3)
    assert check_equivalence([subject("a", jnp.array([1.0, 2.0])), subject("b", close)], 1e-4)
    assert check_equivalence([subject("a", jnp.array([1.0, 2.0])), subject("b", close, tolerance=1e-2)], 1e-4) == []


def test_half_precision_gets_a_looser_floor():
    a = jnp.array([1.0, 2.0], dtype=jnp.bfloat16)
    b = jnp.array([1.0, 2.008], dtype=jnp.bfloat16)
    assert check_equivalence([subject("a", a), subject("b", b)], 1e-4) == []


def test_a_raising_projection_is_a_finding_not_a_crash():
    def broken(output):
        raise KeyError("params")

    (found,) = check_equivalence([subject("a", W), subject("b", W, compare=broken)], 1e-6)
    assert found["quantity"] == "comparison" and found["a"] == "b" and "compare= raised KeyError" in found["detail"]
    # the reference's own projection failing is blamed on the reference, and the costs are still compared
    found = check_equivalence([subject("ref", W, compare=broken, flops=100.0), subject("b", W, flops=200.0)], 1e-6)
    assert {(m["a"], m["quantity"]) for m in found} == {("ref", "comparison"), ("b", "XLA FLOPs")}


def test_the_reference_is_explicit():
    one, two, three = subject("one", W), subject("two", W * 2), subject("three", W * 2)
    found = check_equivalence([one, two, three], 1e-6, reference="two")
    assert {m["a"] for m in found} == {"one"} and {m["b"] for m in found} == {"two"}


def test_python_scalars_and_none_compare_without_crashing():
    assert check_equivalence([subject("a", (None, 3, "x")), subject("b", (None, 3, "x"))], 1e-6) == []
    assert check_equivalence([subject("a", np.float32(1.0)), subject("b", np.float64(1.0))], 1e-6)  # dtype differs


def test_scenarios_mark_one_reference():
    import pytest

    from tuiperf import Scenario
    from tuiperf.core.errors import ScenarioError

    s = Scenario(title="t", question="q")
    s.variant("a")(lambda p, ctx: None)
    s.variant("b", reference=True)(lambda p, ctx: None)
    assert s.reference_name() == "b"
    with pytest.raises(ScenarioError, match="'b' is already the reference"):
        s.variant("c", reference=True)
    with pytest.raises(ScenarioError, match="a reference must be equivalent"):
        s.variant("d", reference=True, equivalent=False)


def test_flat_and_nested_projections_name_the_same_leaves():
    flat = subject("flat", {"params/w": W, "loss": 1.0}, compare=lambda o: o)
    nested = subject("nested", {"params": {"w": W}, "loss": 1.0}, compare=lambda o: o)
    assert check_equivalence([flat, nested], 1e-6) == []


def test_a_key_mismatch_still_reports_costs():
    found = check_equivalence(
        [
            subject("a", {"w": W}, compare=lambda o: o, flops=100.0, params=6),
            subject("b", {"v": W}, compare=lambda o: o, flops=800.0, params=48),
        ],
        1e-6,
    )
    assert {m["quantity"] for m in found} == {"output keys", "XLA FLOPs", "parameter count"}


def test_the_half_precision_floor_applies_leaf_by_leaf():
    ref = (jnp.array([1.0], dtype=jnp.bfloat16), jnp.array([1.0, 2.0]))
    other = (jnp.array([1.008], dtype=jnp.bfloat16), jnp.array([1.0, 2.01]))  # 0.5 % off in float32
    (found,) = check_equivalence([subject("a", ref), subject("b", other)], 1e-4)
    assert found["quantity"] == "output values" and found["detail"].startswith("leaf 1:")


def test_a_python_scalar_is_not_a_dtype_mismatch():
    assert check_equivalence([subject("a", jnp.float32(0.5)), subject("b", 0.5)], 1e-6) == []
