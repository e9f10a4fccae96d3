"""The Markdown export of a run over several Python environments (tests/fixtures/results/
two-environments.json: training-step measured in `current` and in a second interpreter, `other`):
each environment's versions in one table, and each variant against the reference environment in
words, ready to paste into an upstream issue."""

from __future__ import annotations

from pathlib import Path

import msgspec

from tuiperf.results.environments import changes
from tuiperf.results.export import markdown
from tuiperf.results.model import EnvironmentRun
from tuiperf.results.resultfile import load

FIXTURE = Path(__file__).parent / "fixtures" / "results" / "two-environments.json"


def test_the_environments_table_lists_each_python_and_its_library_versions():
    text = markdown(load(FIXTURE))
    lines = text.splitlines()
    start = lines.index("### Python environments (the first is the reference)")
    assert lines[start + 2] == "| environment | python | jax | jaxlib | equinox | flax | optax | numpy | status |"
    assert lines[start + 4] == (
        "| `current` | 3.11.7 (`/work/main/.venv/bin/python`) | 0.10.2 | 0.10.2 | 0.13.8 | 0.12.8 | 0.2.8 | 2.4.6 "
        "| measured |"
    )
    assert lines[start + 5].startswith("| `other` | 3.11.2 (`/tmp/env2/bin/python`) | 0.10.2 |")
    # the run's own Environment table no longer claims one Python and one set of versions
    environment = text[text.index("### Environment") : text.index("### Python environments")]
    assert "| python |" not in environment and "| jax |" not in environment


def test_each_variant_is_compared_with_the_reference_environment_in_words():
    result = load(FIXTURE)
    text = markdown(result)
    assert "Each variant against `current` (ratio of medians, 95% CI, p)" in text
    assert (  # the interval in the sentence's unit; the stored run's CIs cover one process each: no finding, no p
        "- Python 3.11.7 → 3.11.2: plain-jax.jit 7.6 % faster in these two processes, undecided \\[95 % CI "
        "7.5–7.7 %, one process each: process-to-process spread not included\\]"
    ) in text
    assert "- Python 3.11.7 → 3.11.2: eqx-filter\\_jit 15.2 % faster in these two processes, undecided" in text
    section = text[text.index("Each variant against") : text.index("### Time per call")]
    assert section.count("- Python 3.11.7 → 3.11.2: ") == len(changes(result)) == 7
    assert "1e-6" not in section


def test_an_environment_that_failed_says_why_in_the_table():
    result = load(FIXTURE)
    other = result.environments[1]
    result.environments[1] = msgspec.structs.replace(other, error="no module named 'flax' there")
    assert "| failed: no module named 'flax' there |" in markdown(result)


def test_a_run_in_one_environment_has_no_environments_section():
    result = load(FIXTURE)
    result.environments = [EnvironmentRun(name="current", python="/usr/bin/python3")]
    assert "### Python environments" not in markdown(result)
