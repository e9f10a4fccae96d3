"""Generated command-line text never crashes the parser and never yields a value of the wrong type."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tuiperf.api.params import Bool, Choice, Float, Int, parse_assignments, parse_name_list, parse_sweep
from tuiperf.common.errors import ParamError

pytestmark = pytest.mark.slow

SPECS = {
    "i": Int(8, min=-(10**6), max=10**6),
    "u": Int(1),
    "f": Float(0.5, min=0.0, max=1e6),
    "c": Choice("a", choices=("a", "b", "[/]")),
    "b": Bool(False),
}
TYPES = {"i": int, "u": int, "f": float, "c": str, "b": bool}
ALPHABET = "0123456789+-_.eE*^xXp ,=[]/\\\n\t\x1b\x07٣一aAnNiIfF"
texts = st.one_of(
    st.text(alphabet=ALPHABET, max_size=40),
    st.text(max_size=20),
    st.from_regex(r"[+-]?[0-9]{1,25}(\.[0-9]{0,5})?([eE][+-]?[0-9]{1,4})?", fullmatch=True),
    st.builds(lambda a, b: f"{a}**{b}", st.integers(-5, 10**6), st.integers(-5, 10**9)),
)
SETTINGS = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def check_value(name: str, value: object) -> None:
    spec = SPECS[name]
    assert type(value) is TYPES[name]
    if isinstance(spec, Int | Float):
        assert spec.min is None or value >= spec.min
        assert spec.max is None or value <= spec.max
    if isinstance(value, float):
        assert math.isfinite(value)


@SETTINGS
@given(st.sampled_from(sorted(SPECS)), texts)
def test_parse_raises_only_param_errors_and_returns_the_declared_type(name, text):
    try:
        value = SPECS[name].parse(text)
    except ParamError:
        return
    check_value(name, value)


@SETTINGS
@given(st.lists(texts, max_size=4), texts, texts)
def test_command_line_lists_raise_only_param_errors(assignments, sweep, names):
    for parse, arg in ((parse_assignments, assignments), (parse_sweep, sweep), (parse_name_list, names)):
        try:
            parse(arg)
        except ParamError:
            pass
