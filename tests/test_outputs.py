"""The same variant's output in two environments: what differs, with the guard's rule."""

from __future__ import annotations

import numpy as np

from tuiperf.results.outputs import MAX_CARRIED_ELEMENTS, Leaf, OutputDigest, differences


def digest(tolerance: float = 1e-6, **leaves: np.ndarray | None) -> OutputDigest:
    return OutputDigest(
        leaves={
            k: Leaf(dtype=str(v.dtype) if v is not None else "float32", shape=(2,), values=v) for k, v in leaves.items()
        },
        tolerance=tolerance,
    )


def test_the_same_values_within_tolerance_are_the_same_result():
    a = digest(w=np.array([1.0, 2.0]))
    b = digest(w=np.array([1.0, 2.0 + 1e-7]))
    assert differences(a, b) == []


def test_values_beyond_the_looser_tolerance_are_named_with_their_leaf():
    ours = digest(1e-3, w=np.array([1.0, 2.0]), b=np.array([1.0, 4.0]))
    theirs = digest(1e-6, w=np.array([1.0, 2.0]), b=np.array([1.0, 2.0]))
    assert differences(ours, theirs) == [("output values", "b: max relative difference 1 (tolerance 0.001)")]
    assert differences(digest(1.5, b=np.array([1.0, 4.0])), digest(b=np.array([1.0, 2.0]))) == []


def test_half_precision_gets_the_half_precision_floor():
    ours = OutputDigest(leaves={"w": Leaf("float16", (1,), np.array([1.005], np.float16))}, tolerance=0.0)
    theirs = OutputDigest(leaves={"w": Leaf("float16", (1,), np.array([1.0], np.float16))}, tolerance=0.0)
    assert differences(ours, theirs) == []


def test_keys_shapes_and_dtypes_are_compared_before_values():
    assert differences(digest(w=np.zeros(2)), digest(v=np.zeros(2))) == [("output keys", "missing v; extra w")]
    ours = OutputDigest(leaves={"w": Leaf("float32", (3,), None)}, tolerance=0)
    theirs = OutputDigest(leaves={"w": Leaf("float64", (2,), None)}, tolerance=0)
    assert differences(ours, theirs) == [
        ("output shapes", "w: (3,) vs (2,)"),
        ("output dtypes", "w: float32 vs float64"),
    ]


def test_nan_in_one_only_differs_and_uncarried_values_are_said():
    found = differences(digest(w=np.array([np.nan, 1.0])), digest(w=np.array([0.0, 1.0])))
    assert found == [("output values", "w: NaN or infinity in one only (tolerance 1e-06)")]
    big = OutputDigest(leaves={"w": Leaf("float32", (2,), None)}, tolerance=0)
    assert differences(big, big) == [("output values", f"not compared: more than {MAX_CARRIED_ELEMENTS:,} elements")]


def test_the_worst_leaf_relative_to_its_tolerance_is_named_and_the_others_counted():
    ours = digest(1e-3, a=np.array([1.0, 1.1]), b=np.array([1.0, 3.0]), c=np.array([1.0, 1.5]))
    theirs = digest(1e-3, a=np.array([1.0, 1.0]), b=np.array([1.0, 2.0]), c=np.array([1.0, 1.0]))
    assert differences(ours, theirs) == [("output values", "b: max relative difference 0.5 (tolerance 0.001)")]
    shapes = OutputDigest(leaves={k: Leaf("float32", (3,), None) for k in "abc"}, tolerance=0)
    reference = OutputDigest(leaves={k: Leaf("float32", (2,), None) for k in "abc"}, tolerance=0)
    assert differences(shapes, reference) == [("output shapes", "a: (3,) vs (2,) (and 2 more)")]


def test_missing_keys_are_listed_three_at_most():
    ours = digest(w=np.zeros(2))
    theirs = digest(**{k: np.zeros(2) for k in "abcdw"})
    assert differences(ours, theirs) == [("output keys", "missing a, b, c")]


def test_half_precision_floor_is_one_percent():
    ours = OutputDigest(leaves={"w": Leaf("float16", (1,), np.array([1.015], np.float16))}, tolerance=0.0)
    theirs = OutputDigest(leaves={"w": Leaf("float16", (1,), np.array([1.0], np.float16))}, tolerance=0.0)
    assert [q for q, _ in differences(ours, theirs)] == ["output values"]


def test_one_uncarried_leaf_is_said_even_when_the_others_agree():
    ours = OutputDigest(leaves={"a": Leaf("float32", (2,), np.zeros(2)), "b": Leaf("float32", (2,), None)}, tolerance=0)
    theirs = OutputDigest(
        leaves={"a": Leaf("float32", (2,), np.zeros(2)), "b": Leaf("float32", (2,), np.zeros(2))}, tolerance=0
    )
    assert [q for q, _ in differences(ours, theirs)] == ["output values"]


def test_a_difference_equal_to_the_tolerance_is_within_it():
    assert differences(digest(0.25, w=np.array([1.0, 1.5])), digest(0.25, w=np.array([1.0, 2.0]))) == []


def test_two_differing_leaves_say_one_more():
    ours = OutputDigest(leaves={k: Leaf("float32", (3,), None) for k in "ab"}, tolerance=0)
    reference = OutputDigest(leaves={k: Leaf("float32", (2,), None) for k in "ab"}, tolerance=0)
    assert differences(ours, reference) == [("output shapes", "a: (3,) vs (2,) (and 1 more)")]


def test_complex_values_in_the_reference_only_are_compared_part_by_part():
    ours = OutputDigest(leaves={"w": Leaf("float64", (1,), np.array([1.0]))}, tolerance=1e-6)
    theirs = OutputDigest(leaves={"w": Leaf("float64", (1,), np.array([1.0 + 1.0j]))}, tolerance=1e-6)
    assert differences(ours, theirs) == [("output values", "w: max relative difference 1 (tolerance 1e-06)")]


def test_values_carried_on_one_side_only_are_not_compared_and_that_is_said():
    ours = digest(w=np.ones(2, dtype=np.float32))
    theirs = digest(w=None)
    assert differences(ours, theirs) == [
        ("output values", f"not compared: more than {MAX_CARRIED_ELEMENTS:,} elements")
    ]
    assert differences(theirs, ours) == differences(ours, theirs)
