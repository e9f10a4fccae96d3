import pytest

from tuiperf.api.params import Bool, Choice, Float, Int, parse_assignment, validate
from tuiperf.api.scenario import Scenario
from tuiperf.common.errors import ParamError, ScenarioError

SPECS = {
    "width": Int(64, min=1, max=4096),
    "lr": Float(0.1, min=0.0),
    "dtype": Choice("float32", choices=("float32", "bfloat16")),
    "train": Bool(False),
}
for name, spec in SPECS.items():
    object.__setattr__(spec, "name", name)


def test_defaults_fill_missing_values():
    assert validate(SPECS, {}) == {"width": 64, "lr": 0.1, "dtype": "float32", "train": False}


def test_strings_are_parsed_to_types():
    values = validate(SPECS, {"width": "1_024", "lr": "1e-3", "dtype": "bfloat16", "train": "yes"})
    assert values == {"width": 1024, "lr": 0.001, "dtype": "bfloat16", "train": True}
    assert validate(SPECS, {"width": "2.5e3"})["width"] == 2500 and type(validate(SPECS, {"lr": 1})["lr"]) is float


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"width": "abc"}, "width: 'abc' is not an integer (allowed: integer 1..4096)"),
        ({"width": 0}, "width: 0 is below the minimum 1 (allowed: integer 1..4096)"),
        ({"width": "5000"}, "width: 5000 is above the maximum 4096 (allowed: integer 1..4096)"),
        ({"width": 2.5}, "width: 2.5 is not an integer"),
        ({"lr": "-1"}, "lr: -1.0 is below the minimum 0.0"),
        ({"lr": "nan"}, "lr: 'nan' is not a finite number"),
        ({"dtype": "int8"}, "dtype: 'int8' is not one of the choices (allowed: one of float32, bfloat16)"),
        ({"train": "maybe"}, "train: 'maybe' is not a boolean (allowed: true or false)"),
        ({"depth": 3}, "unknown parameter 'depth' (parameters: width, lr, dtype, train)"),
        ({"width": "2**8"}, "width: '2**8' is not an integer literal (expressions are not evaluated"),
        ({"width": "2**-1"}, "width: '2**-1' is not an integer literal"),
        ({"width": "1e19"}, "width: '1e19' is above the maximum 4096 (allowed: integer 1..4096)"),
        ({"width": "1e99"}, "width: '1e99' is above the maximum 4096"),  # the parameter's bound, not int64's
        ({"width": "-1e99"}, "width: '-1e99' is below the minimum 1"),
        ({"width": "9" * 30}, f"width: '{'9' * 30}' is above the maximum 4096"),
        ({"width": "9.3e18"}, "width: '9.3e18' is above the maximum 4096"),
        ({"width": "1.5e4"}, "width: 15000 is above the maximum 4096"),
        ({"width": "1.25e1"}, "'1.25e1' is not an integer"),
        ({"width": "٣"}, "'٣' is not an integer"),
        ({"width": "9" * 65}, "is longer than 64 characters"),
        ({"lr": "1e400"}, "lr: '1e400' is not a finite number"),
        ({"lr": "0x1p3"}, "lr: '0x1p3' is not a number"),
        ({"dtype": "[/]"}, "dtype: '[/]' is not one of the choices"),
        ({"dtype": "\x1b]52;c;eA==\x07"}, "dtype: '␛]52;c;eA==␇' is not one of the choices"),
    ],
)
def test_invalid_values_name_the_parameter_and_what_is_allowed(values, message):
    with pytest.raises(ParamError) as info:
        validate(SPECS, values)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_invalid_declarations_are_rejected():
    with pytest.raises(ParamError, match="default 0 is below the minimum 1"):
        Scenario(title="t", question="q", params={"n": Int(0, min=1)})
    with pytest.raises(ParamError, match="needs at least one choice"):
        Scenario(title="t", question="q", params={"c": Choice("a")})
    with pytest.raises(ScenarioError, match="must be Int, Float, Choice or Bool"):
        Scenario(title="t", question="q", params={"n": 3})


def test_assignments_sweeps_and_name_lists():
    from tuiperf.api.params import parse_assignments, parse_name_list, parse_sweep

    assert parse_assignment("width = 8") == ("width", "8")
    with pytest.raises(ParamError, match="expected NAME=VALUE"):
        parse_assignment("width")
    with pytest.raises(ParamError, match="width is set twice"):
        parse_assignments(["width=8", "width=16"])
    assert parse_sweep("n = 1, 8,64") == ("n", ["1", "8", "64"])
    with pytest.raises(ParamError, match="without empty ones"):
        parse_sweep("n=1,,8")
    with pytest.raises(ParamError, match="at most 1000"):
        parse_sweep("n=" + ",".join(["1"] * 1001))
    assert parse_name_list("a, b,a") == ["a", "b"]
    with pytest.raises(ParamError, match="empty variant name"):
        parse_name_list("a,,b")


def test_declarations_take_only_the_default_positionally():
    with pytest.raises(ScenarioError, match=r"write Int\(8, min=..., max=..., help=...\)"):
        Int(8, 1, 4096)
    with pytest.raises(ScenarioError, match=r"write Choice\('no', choices=..., help=...\)"):
        Choice("no", ["no", "abort"], help="what to do")
    with pytest.raises(ScenarioError, match=r"takes no name=.*comes from the key"):
        Int(8, name="sneaky")  # the name comes from the dict key, never from the author
    with pytest.raises(ScenarioError, match="Float takes no maximum=; its keywords are min, max, help"):
        Float(1.0, maximum=2.0)


def test_a_scenario_check_rejects_values_that_do_not_fit_together(runner):
    from tuiperf.contract.options import RunSettings
    from tuiperf.contract.request import RunRequest

    with pytest.raises(ParamError, match="padding: 3 must be at most kernel-1 = 2"):
        runner.run(
            RunRequest(
                scenario="conv-transpose-3d", params={"kernel": 3, "padding": 3}, settings=RunSettings(dispatch="sync")
            )
        )


def test_every_kind_survives_the_round_trip_through_the_catalog():
    import msgspec

    from tuiperf.contract.catalog import ParamSpec

    for spec in SPECS.values():
        described = msgspec.json.decode(msgspec.json.encode(ParamSpec.of(spec)), type=ParamSpec)
        again = described.to_param()
        assert again == spec and again.name == spec.name and again.allowed() == spec.allowed()
    with pytest.raises(msgspec.ValidationError, match="kind"):
        msgspec.json.decode(b'{"name": "z", "kind": "complex", "default": 1}', type=ParamSpec)


def test_edge_values_from_python_code_are_refused_with_param_errors():
    assert Int(8).named("n").parse("00000000000000000001") == 1  # leading zeros are not magnitude
    with pytest.raises(ParamError):
        Choice("a", choices=("a",)).named("c").parse(10**5000)
    with pytest.raises(ParamError, match="unknown parameter"):
        validate(SPECS, {1: 2, "z": 3})


def test_an_unbounded_integer_names_the_limit_every_integer_has():
    unbounded, above = Int(8).named("n"), Int(8, min=1).named("n")
    with pytest.raises(ParamError, match="'1e99' is larger than 9,223,372,036,854,775,807 in magnitude"):
        unbounded.parse("1e99")
    with pytest.raises(ParamError, match="'1e99' is larger than 9,223,372,036,854,775,807"):
        above.parse("1e99")  # a minimum says nothing of how large a value may be
    with pytest.raises(ParamError, match="'-1e99' is below the minimum 1"):
        above.parse("-1e99")
