"""The package face scenario files import from: every public name resolves, lazily, to its home."""

from __future__ import annotations

import importlib

import pytest

import tuiperf


def test_every_public_name_resolves_to_the_object_in_its_home_module():
    for name in tuiperf.__all__:
        if name == "__version__":
            continue
        home = importlib.import_module(tuiperf._HOMES[name])
        assert getattr(tuiperf, name) is getattr(home, name)
        assert name in dir(tuiperf)
    from tuiperf import Bench, Int, Scenario, Step  # the way scenario files import them

    assert (Bench, Int, Scenario, Step) == (tuiperf.Bench, tuiperf.Int, tuiperf.Scenario, tuiperf.Step)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Scenarios'"):
        tuiperf.Scenarios  # noqa: B018 - the lookup is the test
    assert not hasattr(tuiperf, "Scenarios")
