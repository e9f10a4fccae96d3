"""A ``--device`` choice names one listed device, read alike by the measuring process and the app."""

from __future__ import annotations

import pytest

from tuiperf.common.devices import chosen_index

LISTED = [("cuda:0", "gpu"), ("cuda:1", "gpu"), ("cpu:0", "cpu")]


@pytest.mark.parametrize(
    ("choice", "index"),
    [("cuda:1", 1), ("CPU:0", 2), ("1", 1), ("2", 2), ("gpu", 0), ("cuda", 0), ("rocm", 0), ("cpu", 2), (" gpu ", 0)],
)
def test_a_choice_names_a_listed_device(choice, index):
    assert chosen_index(choice, LISTED) == index


@pytest.mark.parametrize("choice", ["tpu", "3", "cuda:2", "", "٣"])
def test_a_choice_that_names_no_device_is_none(choice):
    assert chosen_index(choice, LISTED) is None


def test_an_id_wins_over_a_platform():
    assert chosen_index("gpu", [("cpu:0", "cpu"), ("gpu", "cpu"), ("gpu:0", "gpu")]) == 1
