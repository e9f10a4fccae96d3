"""Argument kinds as evidence (issue 52): NumPy arrays passed to a jitted call are copied host→device
on every call. The remedy is the data on the device ahead of the call, not pre-flattening (a plain
probe: +15 µs of jit dispatch against device arrays; tuiperf.preflatten 37.7 vs 37.2 µs, no change).
Scenario: tests/fixtures/scenarios/host_arrays.py (numpy-batch → device-batch)."""

from __future__ import annotations

import factories
import msgspec
import pytest
from test_session import run, variant
from test_verdict import BASE

from tuiperf.results import document
from tuiperf.results.model import Profile
from tuiperf.results.verdict import verdict, verdicts


def _copying_pair(host_bytes: int | None):
    base = factories.variant("device-batch", samples=factories.steady(7_000.0), breakdown=factories.breakdown(BASE))
    slow_paths = {**BASE, "call": 11_000.0, "jit": 11_000.0}  # the call is its jit level: the gap in jit dispatch
    slow = factories.variant(
        "numpy-batch", samples=factories.steady(11_000.0), breakdown=factories.breakdown(slow_paths)
    )
    base = msgspec.structs.replace(base, profile=Profile(host_bytes=0))
    slow = msgspec.structs.replace(slow, profile=Profile(host_bytes=host_bytes))
    return document.run_result(factories.header(), [base, slow], duration_s=1.0)


def test_a_host_array_copy_is_named_with_its_bytes_and_its_remedy_not_pre_flattening():
    sentence = verdict(_copying_pair(65_536), "numpy-batch", "device-batch")
    assert "jit dispatch" in sentence
    assert (
        "numpy-batch passes host (NumPy) arrays: 64 KiB copied host→device on every call (none for device-batch)"
        in (sentence)
    )
    assert "jax.device_put once" in sentence and "preflatten" not in sentence
    # Without the evidence (a result stored before it was measured) the stage's usual remedy stands.
    assert "preflatten" in verdict(_copying_pair(None), "numpy-batch", "device-batch")


@pytest.mark.slow
def test_the_measuring_process_counts_the_bytes_of_host_arrays_each_call_copies(runner):
    doc, _ = run(runner, scenario="host-arrays", params={"rows": "8"}, samples=20)
    assert variant(doc, "numpy-batch").profile.host_bytes == 8 * 64 * 4
    assert variant(doc, "device-batch").profile.host_bytes == 0
    said = " ".join(sentence for _, sentence in verdicts(doc))
    assert "preflatten" not in said
    # and tuiperf tried the remedy itself: the same call with the batch on the device once, same outputs
    (tried,) = doc.tried
    assert tried.of == "numpy-batch" and tried.remedy.startswith("put the NumPy arguments on the device once")
    assert tried.evidence == "its arguments hold 2 KiB of NumPy arrays, copied to the device on every call"
    assert tried.same_outputs is True and tried.result is not None and tried.result.profile.host_bytes == 0
