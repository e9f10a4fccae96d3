"""Programs with loops: XLA's cost analysis counts a while loop's body once, so a scan and its
unrolled twin read 66 and 1,024 FLOPs for the same work. The trip counts are read from the compiled
HLO, and neither the guard nor the verdict reads a FLOP ratio as other work where a loop is held."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import pytest
from jax import lax
from test_session import run, variant

from tuiperf.measuring.xla_costs import loops_of


def step(c):
    return jnp.sin(c) * 1.01


def compiled(body):
    return jax.jit(body).lower(jnp.ones(8)).compile()


def test_the_trip_count_of_each_loop_is_read_from_the_compiled_program():
    scan = compiled(lambda c: lax.scan(lambda c, _: (step(c), None), c, None, length=16)[0])
    fori = compiled(lambda c: lax.fori_loop(0, 16, lambda i, c: step(c), c))
    nested = compiled(lambda c: lax.fori_loop(0, 3, lambda i, c: lax.fori_loop(0, 5, lambda j, c: step(c), c), c))
    unrolled = compiled(lambda c: step(step(step(c))))
    assert loops_of(scan) == (16,) and loops_of(fori) == (16,)
    assert sorted(loops_of(nested)) == [3, 5]
    assert loops_of(unrolled) == ()
    assert loops_of(object()) is None  # no HLO text to read


def test_a_fori_loop_whose_bound_is_an_argument_has_a_loop_of_unknown_trip_count():
    program = jax.jit(lambda c, n: lax.fori_loop(0, n, lambda i, c: step(c), c)).lower(jnp.ones(8), 4).compile()
    assert loops_of(program) == (None,)


@pytest.mark.slow
def test_a_scan_and_its_unrolled_twin_are_the_same_work_to_the_guard(runner):
    doc, _ = run(runner, scenario="scan-unrolled", samples=20, budget_s=0.5, params={"steps": "16"})
    scan, unrolled = variant(doc, "scan"), variant(doc, "unrolled")
    assert scan.program.loops == [16] and unrolled.program.loops == []
    assert scan.program.flops is not None and unrolled.program.flops is not None
    assert unrolled.program.flops > 10 * scan.program.flops  # what XLA says: the body of the loop once
    equivalence = doc.equivalence
    assert equivalence is not None and equivalence.mismatches == []
    said = [n for n in equivalence.notes if n.startswith("unrolled and scan")]
    [note] = said  # the loop said, then the operations only one program runs (results/ops.py)
    assert note.startswith(
        "unrolled and scan: same result, different programs (scan holds a 16-step loop, whose body XLA counts"
        " once: their FLOPs are not compared)"
    )
    assert "FLOPs)" not in note and "other work" not in note
    assert not any("× the XLA FLOPs" in n for n in equivalence.notes)
    assert not any("other work" in w for w in doc.warnings)
    from rich.console import Console

    from tuiperf.cli.report import LOOP_NOTE, stages

    console = Console(width=120, record=True, file=open(os.devnull, "w"))  # noqa: SIM115 - closed with the test
    console.print(stages(doc, 120, console))
    table = console.export_text()
    assert LOOP_NOTE in table and f"{scan.program.flops:.3g} ↻" in table
    assert f"{unrolled.program.flops:.3g} ↻" not in table
