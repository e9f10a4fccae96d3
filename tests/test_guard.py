"""The equivalence guard on small pure cases: each test fails if the rule it names breaks."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from tuiperf.measuring.guard import Costs, Subject, check_equivalence


def subject(name, output, *, compare=None, tolerance=None, flops=None, params=None):
    return Subject(name, output, Costs(flops, param_count=params), compare=compare, tolerance=tolerance)


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
    from tuiperf.common.errors import ScenarioError

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


def keyed(name, output, **options):
    return subject(name, output, compare=lambda o: o, **options)


def test_only_missing_or_only_extra_keys_are_named_too():
    (missing,) = check_equivalence([keyed("a", {"w": W, "b": B}), keyed("b", {"w": W})], 1e-6)
    assert missing["detail"] == "missing b"
    (extra,) = check_equivalence([keyed("a", {"w": W}), keyed("b", {"w": W, "b": B})], 1e-6)
    assert extra["detail"] == "extra b"
    many = {f"k{i}": B for i in range(5)}
    (shown,) = check_equivalence([keyed("a", {"w": W}), keyed("b", {"w": W, **many})], 1e-6)
    assert shown["detail"] == "extra k0, k1, k2"  # the first three


def test_shape_and_dtype_mismatches_count_the_others():
    (one,) = check_equivalence([subject("a", [W, B]), subject("b", [W.T, B])], 1e-6)
    assert one["quantity"] == "output shapes" and one["detail"] == "leaf 0: (3, 2) vs (2, 3)"
    (two,) = check_equivalence([subject("a", [W, B]), subject("b", [W.T, B[:2]])], 1e-6)
    assert two["detail"] == "leaf 0: (3, 2) vs (2, 3) (and 1 more)"
    found = check_equivalence([subject("a", [W, B]), subject("b", [W.astype(jnp.int32), B])], 1e-6)
    assert found[0]["quantity"] == "output dtypes" and found[0]["detail"] == "leaf 0: int32 vs float32"
    (structure,) = check_equivalence([subject("a", [W, B]), subject("b", [W])], 1e-6)
    assert structure["detail"] == "1 output leaves vs 2"


def test_the_worst_leaf_is_the_one_reported():
    ref = [jnp.array([1.0, 1.0]), jnp.array([1.0, 1.0])]
    off = [jnp.array([1.0, 1.01]), jnp.array([1.0, 1.5])]
    (found,) = check_equivalence([subject("a", ref), subject("b", off)], 1e-4)
    assert found["detail"].startswith("leaf 1: max relative difference 0.5 ")


OFF = B * 2  # other values: the costs then decide whether it is the same computation


def test_flops_within_five_percent_are_the_same_program():
    def costs(flops):
        return check_equivalence([subject("a", B, flops=1000.0), subject("b", OFF, flops=flops)], 1e-6)

    assert [m["quantity"] for m in costs(1040.0)] == ["output values"]
    assert [m["quantity"] for m in costs(960.0)] == ["output values"]
    more = costs(1060.0)[1]
    assert more["quantity"] == "XLA FLOPs" and more["detail"] == "1.06 kFLOP vs 1 kFLOP (1.06×)"
    assert len(costs(None)) == 1
    found = check_equivalence([subject("a", B, flops=6.26e6), subject("b", OFF, flops=786e3)], 1e-6)
    assert found[1]["detail"] == "786 kFLOP vs 6.26 MFLOP (0.126×)"


def test_equal_values_by_different_programs_are_a_note_not_a_mismatch():
    from tuiperf.measuring.guard import check

    found = check([subject("padded", B, flops=708.0), subject("sliced", B, flops=506.0)], 1e-6)
    assert found.mismatches == []
    assert found.notes == [
        "sliced and padded: same result, different programs (0.715× the XLA FLOPs: 506 FLOP vs 708 FLOP)"
    ]


def test_values_only_equivalence_keeps_the_value_check_and_drops_the_costs():
    from tuiperf.measuring.guard import Costs, Subject, check

    def values_only(name, output):
        return Subject(name, output, Costs(506.0, param_count=3, checked=False))

    same = check([subject("a", B, flops=708.0, params=4), values_only("b", B)], 1e-6)
    assert same.mismatches == [] and same.notes == []
    (differs,) = check([subject("a", B, flops=708.0, params=4), values_only("b", OFF)], 1e-6).mismatches
    assert differs["quantity"] == "output values"


def test_parameter_counts_are_compared_only_when_both_are_known():
    assert len(check_equivalence([subject("a", B, params=436), subject("b", OFF, params=None)], 1e-6)) == 1
    assert len(check_equivalence([subject("a", B, params=None), subject("b", OFF, params=52)], 1e-6)) == 1
    found = check_equivalence([subject("a", B, params=436), subject("b", OFF, params=52)], 1e-6)
    assert found[1] == {"a": "b", "b": "a", "quantity": "parameter count", "detail": "52 vs 436"}


def test_empty_complex_and_infinite_values():
    empty = jnp.zeros((0, 3))
    assert check_equivalence([subject("a", empty), subject("b", empty)], 1e-6) == []
    z = jnp.array([1 + 2j, 3 - 1j])
    assert check_equivalence([subject("a", z), subject("b", z)], 1e-6) == []
    (found,) = check_equivalence([subject("a", z), subject("b", jnp.array([1 + 2.5j, 3 - 1j]))], 1e-6)
    assert found["quantity"] == "output values"
    inf = jnp.array([1.0, jnp.inf])
    assert check_equivalence([subject("a", inf), subject("b", inf)], 1e-6) == []
    (signs,) = check_equivalence([subject("a", inf), subject("b", jnp.array([1.0, -jnp.inf]))], 1e-6)
    assert "NaN or infinity in one only" in signs["detail"]


def test_a_difference_exactly_at_the_tolerance_passes_and_above_it_does_not():
    assert check_equivalence([subject("a", jnp.array([1.0])), subject("b", jnp.array([1.5]))], 0.5) == []
    (found,) = check_equivalence([subject("a", jnp.array([1.0])), subject("b", jnp.array([1.5]))], 0.25)
    assert found["detail"] == "leaf 0: max relative difference 0.5 (tolerance 0.25)"


def test_a_complex_output_is_not_a_real_one_and_all_nan_outputs_are_equal():
    real, complex_ = np.array([1.0, 2.0]), np.array([1.0 + 1.0j, 2.0])
    found = {m["quantity"]: m["detail"] for m in check_equivalence([subject("a", real), subject("b", complex_)], 1e-6)}
    assert found["output dtypes"] == "leaf 0: complex128 vs float64"
    assert found["output values"].startswith("leaf 0: max relative difference 0.5 ")  # |1j| / max |a|
    nan = np.array([np.nan, np.nan])
    assert check_equivalence([subject("a", nan), subject("b", nan.copy())], 1e-6) == []


def test_the_sentence_names_both_variants_and_every_difference():
    from tuiperf.measuring.guard import describe

    found = check_equivalence(
        [subject("a", B, flops=1000.0, params=4), subject("b", OFF, flops=2000.0, params=5)], 1e-6
    )
    assert describe(found) == [
        "b does not compute the same thing as a: output values leaf 0: max relative difference 1 (tolerance 1e-06); "
        "XLA FLOPs 2 kFLOP vs 1 kFLOP (2×); parameter count 5 vs 4. "
        "The comparison is not fair: check the layer configuration."
    ]


def test_a_projection_on_either_side_compares_by_key_path():
    """Keys, not order, once either variant says how to read its output."""
    ref = keyed("projected", {"w": W, "b": B})
    other = subject("plain", {"weight": W, "bias": B})  # in key order the same arrays, by name not
    (found,) = check_equivalence([ref, other], 1e-6)
    assert found["quantity"] == "output keys" and found["detail"] == "missing b, w; extra bias, weight"


def test_outputs_beyond_the_host_limit_are_compared_where_they_are(monkeypatch):
    """At seed 001's size (4×4×256³) each output was past the limit: 'not compared' was reported as not
    computing the same thing, and four convolutions that agree got 'no fair cause' (the first GPU check)."""
    from tuiperf.measuring import guard

    monkeypatch.setattr(guard, "MAX_COMPARED_ELEMENTS", 3)
    ones, nan = jnp.ones(4), jnp.ones(4).at[1].set(jnp.nan)
    assert check_equivalence([subject("a", ones), subject("b", ones)], 1e-6) == []
    (differ,) = check_equivalence([subject("a", ones.at[3].set(2)), subject("b", ones)], 1e-6)
    assert differ["detail"] == "leaf 0: max relative difference 0.5 (tolerance 1e-06)"
    assert check_equivalence([subject("a", nan), subject("b", nan)], 1e-6) == []
    (one_nan,) = check_equivalence([subject("a", ones), subject("b", nan)], 1e-6)
    assert one_nan["detail"] == "leaf 0: NaN or infinity in one only (tolerance 1e-06)"
    inf = ones.at[0].set(jnp.inf)
    (signs,) = check_equivalence([subject("a", inf), subject("b", -inf)], 1e-6)
    assert signs["detail"] == "leaf 0: NaN or infinity in one only (tolerance 1e-06)"


@pytest.mark.slow
def test_on_the_device_and_on_the_host_a_difference_is_the_same_figure():
    from tuiperf.measuring.guard import relative_difference_on_device
    from tuiperf.results.outputs import relative_difference

    rng = np.random.default_rng(0)
    b = rng.normal(size=(64, 3)).astype(np.float32)
    a = b + rng.normal(scale=1e-3, size=b.shape).astype(np.float32)
    cases = [(a, b), (b, b), (a.astype(np.int32), b.astype(np.int32)), (a + 1j * b, b + 1j * a), (a[:0], b[:0])]
    for x, y in cases:
        assert relative_difference_on_device(jnp.asarray(x), jnp.asarray(y)) == pytest.approx(
            relative_difference(x, y), rel=1e-5, abs=1e-12
        )


def test_an_output_at_the_carry_limit_keeps_its_values(monkeypatch):
    from tuiperf.measuring import guard

    monkeypatch.setattr(guard, "MAX_CARRIED_ELEMENTS", 3)
    carried = guard.digest(keyed("a", {"w": jnp.ones(3)}), 1e-6)
    assert carried.leaves["w"].values is not None
    kept = guard.digest(keyed("a", {"w": jnp.ones(4)}), 1e-6)
    assert kept.leaves["w"].values is None and kept.leaves["w"].shape == (4,)


def test_flop_counts_are_written_with_si_prefixes():
    from tuiperf.measuring.guard import _si

    assert [_si(v) for v in (1.5e12, 2.5e9, 3e6, 4e3, 12.0)] == [
        "1.5 TFLOP",
        "2.5 GFLOP",
        "3 MFLOP",
        "4 kFLOP",
        "12 FLOP",
    ]


def test_transcendental_operations_are_counted_apart_from_the_flops():
    """A gradient and a forward pass of sin/cos both read "same FLOPs": XLA counts sin, cos, exp apart."""
    import jax

    from tuiperf.measuring.guard import check
    from tuiperf.measuring.xla_costs import flops_of, transcendentals_of

    x = jnp.linspace(0.0, 1.0, 8)
    one = jax.jit(lambda x: jnp.sin(x) + x).trace(x).lower().compile()
    two = jax.jit(lambda x: jnp.sin(x) + jnp.cos(x)).trace(x).lower().compile()
    assert flops_of(one) == flops_of(two) == 8.0
    assert (transcendentals_of(one), transcendentals_of(two)) == (8.0, 16.0)
    same_values = np.ones(3)
    found = check(
        [
            Subject("sin", same_values, Costs(8.0, transcendentals=8.0)),
            Subject("sin+cos", same_values, Costs(8.0, transcendentals=16.0)),
        ],
        1e-6,
    )
    assert found.mismatches == []
    assert found.notes == ["sin+cos and sin: same result, different programs (2× the XLA transcendentals: 16 vs 8)"]
