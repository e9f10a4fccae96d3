"""Weights a closure captures are compiled into the program as constants: read from the compiled HLO
and said by the guard beside a variant that takes them as arguments (mlp-closure-vs-argument)."""

from __future__ import annotations

from types import SimpleNamespace

from tuiperf.measuring.guard_step import constant_notes
from tuiperf.results.hlo import constant_bytes, parse, shape_bytes
from tuiperf.results.model import Program

HLO = """HloModule jit__lambda, entry_computation_layout={(f32[4,336]{1,0})->f32[4,512]{1,0}}

ENTRY %main.4 (Arg_0.1: f32[4,336]) -> f32[4,512] {
  %Arg_0.1 = f32[4,336]{1,0} parameter(0)
  %constant.1 = f32[336,512]{1,0} constant({...})
  %constant.2 = bf16[] constant(1)
  ROOT %dot.3 = f32[4,512]{1,0} dot(f32[4,336]{1,0} %Arg_0.1, f32[336,512]{1,0} %constant.1), DIMS
}
""".replace("DIMS", "lhs_contracting_dims={1}, rhs_contracting_dims={0}")


def test_the_bytes_of_a_programs_constants_are_read_from_its_hlo():
    assert shape_bytes("f32[336,512]") == 336 * 512 * 4 and shape_bytes("bf16[]") == 2
    assert shape_bytes("(s32[], f32[8])") is None and shape_bytes("weird[3]") is None
    assert constant_bytes(parse(HLO)) == 336 * 512 * 4 + 2


def _prepared(name: str, held: int | None) -> SimpleNamespace:
    return SimpleNamespace(name=name, built=SimpleNamespace(program=Program(constant_bytes=held)))


def test_the_guard_says_which_program_holds_its_weights_as_constants():
    notes = constant_notes([_prepared("argument", 8), _prepared("closure", 688_128), _prepared("unread", None)])
    assert notes == [
        "closure's program holds 672 KiB of constants, argument's 8 B: arrays a closure captures are compiled "
        "into the program (other values mean another compile)"
    ]
    assert constant_notes([_prepared("a", 688_128), _prepared("b", 600_000)]) == []  # both hold them
    assert constant_notes([_prepared("a", 60_000), _prepared("b", 0)]) == []  # a small table of its own
