"""A project's performance tests with tuiperf's plugin (tests/test_pytest_plugin.py runs them).

Each check measures two variants interleaved in one run and judges their ratio against the baseline's
(``relative_to``): what the machine's speed or load does to both cancels, so the A/A check passes on a
busy machine too, where absolute times move by 20 % between processes.
"""

import pytest


def test_aa(tuiperf):
    """The same work twice: passes every time."""
    tuiperf.check("plugin-demo", variants=["same"], relative_to="steady")


@pytest.mark.tuiperf(threshold=5)
def test_slowed(tuiperf):
    """Fails when DEMO_SLOWDOWN makes its variant slower than at the baseline by more than 5 % (1.2: 20 %
    more work, ~17 % more time with the call's fixed cost)."""
    tuiperf.check("plugin-demo", variants=["slowed"], relative_to="steady")
