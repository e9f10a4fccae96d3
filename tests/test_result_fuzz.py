"""Generated result documents (any type in any field, text full of controls and markup, cut or
invalid bytes) through show, compare, every export and the app's result view: no traceback, no raw
control character printed. ``benchmarks/result_fuzz.py`` runs 10,000 of them."""

from __future__ import annotations

import pytest
from fuzz_documents import documents, outputs, raw_controls, scratch
from hypothesis import HealthCheck, given, settings

pytestmark = pytest.mark.slow


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(documents())
def test_a_generated_result_document_prints_inert_and_never_a_traceback(data):
    with scratch() as folder:
        printed, failure = outputs(data, folder)
    assert failure is None, failure
    assert raw_controls(printed) == []
