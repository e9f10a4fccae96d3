"""The operations table: HLO text and profiler traces read (synthetic and stored inputs, no JAX), rows
matched to source lines, two tables side by side, and what the why and the guard say of them."""

from __future__ import annotations

from pathlib import Path

import factories
import msgspec
import pytest

from tuiperf.results import document, hlo, ops
from tuiperf.results.model import NOT_ATTRIBUTED, Operations, OpRow, Program
from tuiperf.results.op_trace import CallOps, calls_of, self_times
from tuiperf.results.verdict import verdict

HLO = Path(__file__).parent / "fixtures" / "hlo"

# jax 0.10's format: stack frames at the top, parent_frame_id printed one above the frame it names
# (a convolution from flax's file called from the user's line 6, a transpose, a host callback).
FRAMES = (HLO / "frames.txt").read_text()

# Older XLA: the source line in the metadata itself (a 1-D convolution).
OLD = (HLO / "old_source_line.txt").read_text()


def test_each_instruction_is_read_with_its_shapes_kind_and_the_users_line_through_the_stack_frames():
    program = hlo.parse(FRAMES)
    assert (program.module, program.entry) == ("jit_top", "main.1")
    conv = program.instruction("conv_fusion")
    assert conv is not None
    # the frame of flax's file, then its callers: g's line 6, top's line 8, the module's line 9
    assert conv.frames == (
        ("/venv/lib/python3.11/site-packages/flax/linen/linear.py", 1040),
        ("/home/user/model.py", 6),
        ("/home/user/model.py", 8),
        ("/home/user/model.py", 9),
    )
    assert hlo.where(hlo.user_frame(conv.frames, "/home/user/model.py")) == "model.py:6"
    assert hlo.library_frame(conv.frames) == "flax/linen/linear.py:1040"
    assert hlo.kind_of(program, conv) == hlo.CONVOLUTION
    assert hlo.shapes(program, conv) == "f32[1,4,4,4,2] × f32[3,3,3,2,2] → f32[1,4,4,4,2]"
    assert hlo.detail(program, conv) == "3-D, window 3x3x3"
    transpose = program.instruction("transpose_fusion")
    assert transpose is not None and hlo.kind_of(program, transpose) == hlo.TRANSPOSE
    assert hlo.where(hlo.user_frame(transpose.frames)) == "model.py:5"
    callback = program.instruction("cb")
    assert callback is not None and hlo.kind_of(program, callback) == hlo.HOST_CALLBACK


def test_older_xla_source_lines_and_a_one_dimensional_convolution():
    program = hlo.parse(OLD)
    conv = program.instruction("conv")
    assert conv is not None
    assert conv.frames == (("/home/user/old.py", 12),)
    assert hlo.detail(program, conv) == "1-D, window 3"
    assert hlo.shapes(program, conv) == "f32[8,3] × f32[3,1] → f32[8,1]"


def test_a_scan_body_and_its_loop_are_read_from_a_stored_program():
    program = hlo.parse((HLO / "scan_einsum.txt").read_text())
    loop = program.instruction("while.5")
    assert loop is not None and loop.trip_count == 8
    assert hlo.kind_of(program, loop) == hlo.LOOP and hlo.detail(program, loop) == "8 steps"
    body = program.instruction("broadcast_multiply_fusion")
    assert body is not None and hlo.where(hlo.user_frame(body.frames)) == "model.py:6"
    dot = program.instruction("ynn_fusion.1")
    assert dot is not None and hlo.kind_of(program, dot) == hlo.MATMUL
    assert hlo.shapes(program, dot) == "f32[64,336] × f32[512,336] → f32[64,512]"
    reduce = program.instruction("ynn_fusion")
    assert reduce is not None and hlo.kind_of(program, reduce) == hlo.REDUCTION
    # the entry's work instructions, and the loop's body 8 times (its condition fused away)
    assert hlo.events_per_call(program) == 4 + 8 * 3


def _event(name, ts, dur, tid=2, module="jit_f"):
    return {
        "ph": "X",
        "pid": 1,
        "tid": tid,
        "ts": ts,
        "dur": dur,
        "name": name,
        "args": {"hlo_module": module, "hlo_op": name},
    }


def _marker(ts, dur):
    return {"ph": "X", "pid": 1, "tid": 1, "ts": ts, "dur": dur, "name": "tuiperf_call", "args": {}}


def test_a_loops_own_time_excludes_its_body_and_each_event_counts_in_its_calls_window():
    events = [
        _marker(0, 100),
        _event("dot", 10, 20),
        _event("while.5", 30, 50),
        _event("body", 35, 10),
        _event("body", 50, 15),
        _marker(200, 100),
        _event("dot", 210, 30),
        _event("while.5", 240, 40),
        _event("body", 245, 20),
        _event("dot", 500, 5),  # outside every call: not counted
        {"ph": "X", "pid": 1, "tid": 2, "ts": 20, "dur": 1, "name": "no op"},  # not an instruction
    ]
    own = sorted(self_times(events))
    assert own[:4] == [
        (10.0, 20.0, ("jit_f", "dot")),
        (30.0, 25.0, ("jit_f", "while.5")),
        (35.0, 10.0, ("jit_f", "body")),
        (50.0, 15.0, ("jit_f", "body")),
    ]
    calls = calls_of({"traceEvents": events}, "tuiperf_call")
    assert len(calls) == 2
    first, second = calls
    assert first.self_us == {("jit_f", "dot"): 20.0, ("jit_f", "while.5"): 25.0, ("jit_f", "body"): 25.0}
    assert first.count[("jit_f", "body")] == 2
    assert second.self_us == {("jit_f", "dot"): 30.0, ("jit_f", "while.5"): 20.0, ("jit_f", "body"): 20.0}


def _calls(times: dict[str, list[float]], module="jit_f") -> list[CallOps]:
    n = len(next(iter(times.values())))
    return [
        CallOps(
            i * 100.0,
            i * 100.0 + 99,
            {(module, op): t[i] for op, t in times.items()},
            {(module, op): 1 for op in times},
        )
        for i in range(n)
    ]


def test_the_table_adds_up_to_compute_with_a_row_for_what_the_trace_does_not_attribute():
    program = hlo.parse(FRAMES)
    calls = _calls({"conv_fusion": [8.0, 10.0, 12.0, 10.0, 10.0], "transpose_fusion": [1.0] * 5}, module="jit_top")
    table = ops.table(calls, program, compute_ns=12_000.0, user_file="/home/user/model.py", batches=5)
    conv, transpose, rest = table.rows
    assert (conv.op, conv.kind, conv.source, conv.via) == (
        "conv_fusion",
        "convolution",
        "model.py:6",
        "flax/linen/linear.py:1040",
    )
    assert conv.ns == pytest.approx(10_000.0) and conv.calls == 1
    low, high = conv.ci95_ns
    # Student's t (4 degrees of freedom) × the batches' standard deviation (1.414 µs) / √5
    assert (low, high) == (pytest.approx(10_000.0 - 1_755.7, abs=1), pytest.approx(10_000.0 + 1_755.7, abs=1))
    assert transpose.kind == "transpose/copy" and transpose.ns == pytest.approx(1_000.0)
    assert (rest.kind, rest.ns) == (NOT_ATTRIBUTED, pytest.approx(1_000.0))
    assert sum(r.ns for r in table.rows) == pytest.approx(12_000.0)
    assert sum(r.share for r in table.rows) == pytest.approx(1.0)
    assert (table.calls, table.batches, table.traced_ns) == (5, 5, pytest.approx(11_000.0))


def test_traced_operations_beyond_the_compute_stage_leave_no_negative_row_and_say_why():
    # The report read "(not attributed) −471 ns, −28 %" where the traced calls ran slower than the sampled ones.
    program = hlo.parse(FRAMES)
    calls = _calls({"conv_fusion": [10.0] * 5, "transpose_fusion": [1.0] * 5}, module="jit_top")
    table = ops.table(calls, program, compute_ns=8_000.0, user_file="/home/user/model.py", batches=5)
    assert [r.kind for r in table.rows if r.kind == NOT_ATTRIBUTED] == [] and len(table.rows) == 2
    assert table.note is not None and "(11.0 µs vs 8.00 µs): the traced calls ran slower" in table.note
    assert sum(r.share for r in table.rows) == pytest.approx(11 / 8)


def test_without_a_compute_stage_shares_are_of_the_traced_time_and_the_table_says_so():
    table = ops.table(_calls({"a": [3.0] * 4, "b": [1.0] * 4}), None, compute_ns=None, batches=2)
    assert [r.op for r in table.rows] == ["a", "b"]
    assert [r.share for r in table.rows] == [pytest.approx(0.75), pytest.approx(0.25)]
    assert "no compute stage" in (table.note or "")
    assert ops.table([], None, None).note is not None


def _row(op, kind, ns, shapes="f32[4]", source="m.py:1", detail=""):
    return OpRow(op=op, kind=kind, shapes=shapes, source=source, detail=detail, ns=ns, calls=1.0)


def _table(*rows, compute=None):
    return Operations(
        rows=list(rows),
        calls=10,
        batches=5,
        traced_ns=sum(r.ns for r in rows if r.kind != NOT_ATTRIBUTED),
        compute_ns=compute,
    )


def test_rows_are_matched_by_line_kind_and_shapes_then_by_kind_and_shapes_across_lines():
    a = _table(
        _row(
            "convolution",
            "convolution",
            1_000_000,
            "f32[2,8,8,8,4] × f32[3,3,3,4,4] → f32[2,8,8,8,4]",
            "c.py:111",
            "3-D, window 3x3x3",
        ),
        _row("add", "elementwise", 1_000, "f32[8]", "c.py:111"),
        _row("transpose_copy_fusion", "transpose/copy", 900, "f32[4,4] → f32[4,4]", ""),
    )
    b = _table(
        _row("conv.1", "convolution", 40_000, "f32[128,8,4] × f32[3,4,4] → f32[128,8,4]", "c.py:128", "1-D, window 3"),
        _row("add.1", "elementwise", 800, "f32[8]", "c.py:128"),
    )
    matches = ops.compare(a, b)
    same = [m for m in matches if m.same]
    assert [(m.a.op, m.b.op, m.how) for m in same] == [("add", "add.1", "kind, shapes")]
    assert same[0].ratio == pytest.approx(1.25)
    only_a = sorted(m.a.op for m in matches if m.b is None)
    only_b = [m.b.op for m in matches if m.a is None]
    assert only_a == ["transpose_copy_fusion"] and only_b == []
    # the largest difference first: eqx's 3-D convolution where linen runs a 1-D one (matched by kind alone)
    assert (matches[0].a.op, matches[0].b.op, matches[0].how, matches[0].ratio) == (
        "convolution",
        "conv.1",
        "kind",
        25.0,
    )
    said = ops.differences_words("eqx", a, "linen", b)
    assert said.startswith(
        "operations that differ: `convolution` (convolution, 3-D, window 3x3x3, f32[2,8,8,8,4] × f32[3,3,3,4,4] → "
        "f32[2,8,8,8,4], c.py:111) in eqx where linen runs `conv.1` (convolution, 1-D, window 3, f32[128,8,4] × "
        "f32[3,4,4] → f32[128,8,4], c.py:128): 1.00 ms vs 40.0 µs (×25.00)"
    )
    assert "`transpose_copy_fusion` (transpose/copy, f32[4,4] → f32[4,4]): 900 ns a call, only in eqx" in said


def test_the_same_line_with_other_shapes_is_matched_as_a_different_operation():
    a = _table(_row("dot", "matrix product", 300, "f32[64,336] × f32[336,512] → f32[64,512]", "m.py:42"))
    b = _table(_row("dot.1", "matrix product", 200, "f32[64,336] × f32[512,336] → f32[64,512]", "m.py:42"))
    (match,) = ops.compare(a, b)
    assert match.how == "line, kind" and not match.same and match.ratio == pytest.approx(1.5)
    assert "where b runs `dot.1`" in ops.match_words(match, "a", "b")
    assert ops.program_differences("a", a, "a2", a) == "the same operations run in both (kind, shapes)"


def _variant(name, median, paths, table):
    base = factories.variant(name, samples=factories.steady(median), breakdown=factories.breakdown(paths))
    return msgspec.structs.replace(base, program=Program(ops=table))


BASE = {"call": 10_000.0, "jit": 10_000.0, "flat_jit": 10_000.0, "flat_leaves": 9_500.0}
BASE |= {"noop_jit": 3_000.0, "noop_execute": 2_500.0}  # compute 6.5 µs
SLOW = {**BASE, "call": 40_000.0, "jit": 40_000.0, "flat_jit": 40_000.0, "flat_leaves": 39_500.0}  # compute 36.5 µs


def test_the_why_names_the_operations_that_hold_a_compute_gap():
    base = _variant(
        "einsum",
        10_000.0,
        BASE,
        _table(_row("dot", "matrix product", 6_000, "f32[64,512]", "m.py:50"), compute=6_500.0),
    )
    slow = _variant(
        "vmap",
        40_000.0,
        SLOW,
        _table(
            _row("dot_general", "matrix product", 6_000, "f32[64,512]", "m.py:42"),
            _row("transpose", "transpose/copy", 29_000, "f32[512,336] → f32[336,512]", "m.py:42"),
            compute=36_500.0,
        ),
    )
    result = document.run_result(factories.header(), [base, slow], duration_s=1.0)
    sentence = verdict(result, "vmap", "einsum")
    assert "vmap's compute (+30.0 µs) explains 100 % of the gap" in sentence
    assert (
        "compute +30.0 µs: 97% in `transpose` (transpose/copy, f32[512,336] → f32[336,512], m.py:42), absent from "
        "einsum's program" in sentence
    )


def test_operations_within_noise_are_not_named_and_traced_times_beyond_the_gap_are_not_said_as_shares():
    """loop-compile (steps=8, size=8), lax.scan against unrolled: the why read "compute +236 ns: 233% in
    `copy.6` …; 146% in `call` …, where unrolled runs `multiply_add_fusion` … (×1.37); 132% in `copy.7`":
    shares of the gap adding to 511 % (the traced calls ran 1.6× the sampled median), and `call`
    named although its interval (1.28 µs ±1.92 µs) holds unrolled's 935 ns."""

    def ci(row, half):
        return msgspec.structs.replace(row, ci95_ns=(row.ns - half, row.ns + half))

    scan = _table(
        ci(_row("call", "elementwise", 1_280, "(s32[], f32[8]) → (s32[], f32[8])", "l.py:46"), 1_920),
        ci(_row("copy.6", "transpose/copy", 550, "f32[8] → f32[8]", ""), 375),
        ci(_row("copy.7", "transpose/copy", 310, "s32[] → s32[]", ""), 88),
        compute=1_670.0,
    )
    unrolled = _table(
        ci(_row("multiply_add_fusion", "elementwise", 935, "f32[8] → f32[8]", "l.py:33"), 167), compute=1_434.0
    )
    said = ops.compute_gap_words("lax.scan", scan, "unrolled", unrolled)
    assert said == (
        "compute +236 ns: 550 ns a call in `copy.6` (transpose/copy, f32[8] → f32[8]), absent from unrolled's "
        "program; 310 ns a call in `copy.7` (transpose/copy, s32[] → s32[]), absent from unrolled's program "
        "(the traced calls' times: 860 ns in all, more than compute's gap, so no share of it is said)"
    )
    assert "%" not in said and "call` (" not in said


def test_a_compute_gap_the_operations_do_not_explain_is_said_as_unexplained():
    slow_ops = _table(_row("dot", "matrix product", 6_100, "f32[64,512]", "m.py:42"), compute=36_500.0)
    fast_ops = _table(_row("dot", "matrix product", 6_000, "f32[64,512]", "m.py:42"), compute=6_500.0)
    said = ops.compute_gap_words("slow", slow_ops, "fast", fast_ops)
    assert said == "the operations explain 0% of compute's +30.0 µs: the rest is unexplained"
    assert ops.compute_gap_words("slow", None, "fast", fast_ops) == ""


def test_a_stored_result_without_an_operations_table_reads_as_untraced():
    assert Program().ops is None
    decoded = msgspec.json.decode(b'{"flops": 1.0}', type=Program)
    assert decoded.ops is None


@pytest.mark.slow
def test_a_real_trace_of_a_tiny_scan_names_its_loop_body_and_the_users_lines():
    import jax
    import jax.numpy as jnp

    from tuiperf.measuring.ops_step import OpsTarget, Programs, operations
    from tuiperf.measuring.xla_costs import hlo_of

    def body(c, _):
        return jnp.sin(c) * 1.01, None  # the loop's body line

    def f(w, x):
        y = x @ w  # the product's line
        return jax.lax.scan(body, y, None, length=8)[0]

    jitted = jax.jit(f)
    w, x = jnp.ones((64, 64)), jnp.ones((32, 64))
    compiled = jitted.lower(w, x).compile()
    jax.block_until_ready(jitted(w, x))
    target = OpsTarget("f", lambda: jax.block_until_ready(jitted(w, x)), Programs((hlo_of(compiled),)), None, 50_000.0)
    table = operations([target], __file__)["f"]
    assert table.calls >= 5 and table.batches == 5
    lines = {row.kind: row for row in table.rows}
    assert lines["while loop"].detail == "8 steps" and lines["while loop"].calls == 1
    inside = [row for row in table.rows if row.detail.startswith("inside while")]
    assert inside and all(row.calls == 8 for row in inside)  # the body runs 8 times a call
    assert "test_ops.py:" in lines["matrix product"].source
    assert all(row.ns >= 0 for row in table.rows) and table.traced_ns > 0


@pytest.mark.slow
def test_the_traced_pass_comes_after_sampling_and_the_breakdown_and_leaves_the_samples_untouched(runner):
    from tuiperf.contract.events import PhaseChanged, SamplesAdded
    from tuiperf.contract.options import RunSettings
    from tuiperf.contract.request import RunRequest

    seen: list[object] = []
    settings = RunSettings(samples=30, budget_s=0.3, dispatch="sync")
    result = runner.run(RunRequest(scenario="tiny", variants=["jax.jit"], settings=settings), on_event=seen.append)
    phases = [e.phase for e in seen if isinstance(e, PhaseChanged)]
    assert "ops" in phases
    ops_at = next(i for i, e in enumerate(seen) if isinstance(e, PhaseChanged) and e.phase == "ops")
    streamed = [s for e in seen[:ops_at] if isinstance(e, SamplesAdded) for s in e.samples_ns]
    assert not [e for e in seen[ops_at:] if isinstance(e, SamplesAdded)]  # no sample after the traced pass began
    assert phases.index("ops") > phases.index("sample") and phases.index("ops") > phases.index("breakdown")
    (variant,) = result.variants
    assert variant.sampling.samples_ns == streamed and len(streamed) == 30  # exactly the samples taken before
    table = variant.program.ops
    assert table is not None and table.rows and "tiny.py:" in table.rows[0].source
    if variant.breakdown.reliable:  # the rows add up to the compute stage, the not-attributed row included
        assert table.compute_ns == variant.breakdown.stages["compute"].ns
        assert sum(r.ns for r in table.rows) == pytest.approx(table.compute_ns)
    else:  # an unreliable split's compute stage is not what the rows are read against
        assert table.compute_ns is None and "no compute stage" in table.note
    off = runner.run(RunRequest(scenario="tiny", variants=["jax.jit"], settings=RunSettings(samples=5, ops=False)))
    assert off.variants[0].program.ops is None


def _unattributed(ns):
    return OpRow(op="(not attributed)", kind=NOT_ATTRIBUTED, ns=ns)


def _traced_result():
    base = _variant(
        "eqx",
        10_000.0,
        BASE,
        _table(
            _row("conv", "convolution", 6_000, "f32[8] × f32[3] → f32[8]", "c.py:1", "3-D, window 3x3x3"),
            _unattributed(500.0),
            compute=6_500.0,
        ),
    )
    other = _variant(
        "linen",
        10_000.0,
        BASE,
        _table(
            _row("conv.1", "convolution", 5_000, "f32[8] × f32[3,1] → f32[8]", "c.py:2", "1-D, window 3"),
            _unattributed(1_500.0),
            compute=6_500.0,
        ),
    )
    return document.run_result(factories.header(), [base, other], duration_s=1.0)


def test_the_report_and_the_exports_show_each_table_and_the_operations_against_the_baseline():
    from rich.console import Console

    from tuiperf.cli.report import render
    from tuiperf.results.export import export

    result = _traced_result()
    console = Console(width=200, record=True, highlight=False)
    console.print(render(result, 200, console))
    text = console.export_text()
    assert "operations of eqx: 10 calls traced in 5 batches; the operations hold 6.00 µs of compute's 6.50 µs" in text
    assert "(not attributed)" in text and "500 ns" in text
    assert "operations against eqx" in text and "`conv.1` (convolution, 1-D, window 3" in text
    markdown = export(result, "markdown")
    assert "Operations inside compute" in markdown and "in linen where eqx runs" in markdown
    # the operations' names as code spans, as in the report (they read "\\`conv.1\\`" before)
    said = next(line for line in markdown.splitlines() if line.startswith("- `linen`"))
    assert "`conv.1` (convolution, 1-D, window 3" in said and "\\`" not in said
    rows = export(result, "ops-csv").splitlines()
    assert rows[0].startswith("run,point,variant,operation,kind")
    assert rows[1].split(",")[2:5] == ["eqx", "conv", "convolution"]
    assert len(rows) == 1 + 2 * 2  # each variant's operation and its not-attributed row


def test_an_operation_whose_program_was_not_at_hand_is_matched_by_name_and_slow_traced_calls_are_said():
    described = _table(_row("ynn_fusion.1", "convolution", 1_000, "f32[8] × f32[3] → f32[8]", "m.py:1"))
    bare = _table(OpRow(op="ynn_fusion.1", kind="other", ns=2_000, calls=1.0), OpRow(op="copy.5", kind="other", ns=9))
    matches = ops.compare(bare, described)
    assert [(m.how, m.ratio) for m in matches if m.a and m.b] == [("name", 2.0)]
    assert [m.a.op for m in matches if m.b is None] == ["copy.5"]
    slow = Operations(rows=described.rows, calls=5, batches=5, call_ns=15_000.0)
    assert "the traced calls took 1.5× the sampled median" in (ops.traced_slower(slow, 10_000.0).note or "")
    assert ops.traced_slower(slow, 14_000.0).note is None


def test_where_no_stage_names_a_cause_the_why_still_says_which_operations_only_the_slower_program_runs():
    copies = _table(
        _row("conv", "convolution", 900_000, "f32[8] × f32[3] → f32[8]", "m.py:1"),
        _row("copy.5", "transpose/copy", 630_000, "f32[3136,256] → f32[3136,256]", ""),
        _row("copy.3", "transpose/copy", 4_000, "f32[3,3,32,64] → f32[3,3,32,64]", ""),
    )
    plain = _table(_row("conv", "convolution", 900_000, "f32[8] × f32[3] → f32[8]", "m.py:2"))
    slow = msgspec.structs.replace(
        factories.variant("nnx", samples=factories.steady(2_000_000.0)), program=Program(ops=copies)
    )
    fast = msgspec.structs.replace(
        factories.variant("linen", samples=factories.steady(900_000.0)), program=Program(ops=plain)
    )
    assert ops.extra_work_words(slow, fast) == (
        "nnx's program runs operations linen's does not: `copy.5` (transpose/copy, f32[3136,256] → f32[3136,256]), "
        "630 µs a call and 1 more (634 µs a call in all)"
    )
    result = document.run_result(factories.header(), [fast, slow], duration_s=1.0)
    assert "nnx's program runs operations linen's does not" in verdict(result, "nnx", "linen")
    assert ops.extra_work_words(fast, slow) is None


def test_the_guards_different_programs_note_says_which_operations_differ():
    from types import SimpleNamespace

    from tuiperf.measuring.context import Outcomes
    from tuiperf.measuring.guard_step import with_operations

    found = Outcomes(lambda event: None)
    loop = _table(_row("while.5", "while loop", 900, "f32[64]", "m.py:7", "16 steps"))
    unrolled = _table(_row("fusion.3", "elementwise", 800, "f32[64]", "m.py:9"))
    for name, table in (("scan", loop), ("unrolled", unrolled), ("plain", None)):
        found.results[name] = msgspec.structs.replace(factories.variant(name), program=Program(ops=table))
    subjects = [SimpleNamespace(name=n) for n in ("scan", "unrolled", "plain")]
    note = "unrolled and scan: same result, different programs (XLA FLOPs 1.02 kFLOP vs 66 FLOP)"
    assert with_operations(note, subjects, found) == (
        note + "; operations that differ: `while.5` (while loop, 16 steps, f32[64], m.py:7): 900 ns a call, only in "
        "scan; `fusion.3` (elementwise, f32[64], m.py:9): 800 ns a call, only in unrolled"
    )
    untraced = "plain and scan: same result, different programs (a 16-step loop)"
    assert with_operations(untraced, subjects, found) == untraced  # no table for plain: the note as it was


def test_between_environments_the_same_variant_is_read_against_itself_in_the_reference_environment():
    """`--env old --env new`: which operation changed between versions (jax#33338: a transpose fusion
    21.8 → 128 µs from jax 0.7.2 to 0.8.0), not the new version's variant against the old baseline's."""
    from rich.console import Console

    from tuiperf.cli.report import render
    from tuiperf.results.environments import qualified
    from tuiperf.results.export import export
    from tuiperf.results.model import EnvironmentRun

    def timed(row, ns):
        return msgspec.structs.replace(row, ci95_ns=(0.97 * ns, 1.03 * ns))

    def variant(name, env, transpose_ns, dot_ns=50_000.0):
        table = _table(
            timed(_row("dot", "matrix product", dot_ns, "f32[64,336] × f32[336,512] → f32[64,512]", "m.py:3"), dot_ns),
            timed(
                _row(
                    "transpose_copy_fusion.1", "transpose/copy", transpose_ns, "f32[512,336] → f32[336,512]", "m.py:3"
                ),
                transpose_ns,
            ),
            compute=dot_ns + transpose_ns,
        )
        v = _variant(qualified(name, env), 60_000.0 + transpose_ns, BASE, table)
        return msgspec.structs.replace(v, environment=env)

    variants = [variant("plain", "old", 1_000), variant("mlp", "old", 21_800)]
    variants += [variant("plain", "new", 1_000, dot_ns=50_500.0), variant("mlp", "new", 128_000)]
    result = document.run_result(factories.header(), variants, duration_s=1.0)
    result.environments = [EnvironmentRun(name="old", python="/py"), EnvironmentRun(name="new", python="/py")]
    console = Console(width=200, record=True, highlight=False)
    console.print(render(result, 200, console))
    text = console.export_text()
    said = text.replace("\n", " ")
    assert "• mlp @ new against mlp @ old: the same operations at other times: `transpose_copy_fusion.1`" in said
    assert "128 µs vs 21.8 µs (×5.87)" in said
    assert "• plain @ new: the same operations (kind, shapes)" in said  # 1 % apart, inside both intervals
    assert "- `mlp @ new` against `mlp @ old`: the same operations at other times" in export(result, "markdown")


def test_a_sweep_says_which_operations_grew_or_appeared_from_its_first_point_to_its_last():
    from rich.console import Console

    from tuiperf.cli.report import render

    def point(size, dot_ns, extra=None):
        rows = [_row("dot", "matrix product", dot_ns, f"f32[{size},8] × f32[8,8] → f32[{size},8]", "m.py:3")]
        rows += [extra] if extra else []
        table = _table(*rows, compute=sum(r.ns for r in rows))
        v = _variant("mlp", 10_000.0 + dot_ns, BASE, table)
        return document.run_result(factories.header(params={"size": size}), [v], duration_s=1.0)

    copy = _row("copy.5", "transpose/copy", 40_000, "f32[4096,8] → f32[4096,8]", "m.py:4")
    points = [point(8, 1_000), point(64, 8_000), point(4096, 500_000, copy)]
    result = document.sweep_result("size", [8, 64, 4096], points, factories.header(params={"size": 8}), duration_s=3.0)
    console = Console(width=200, record=True, highlight=False)
    console.print(render(result, 200, console))
    said = console.export_text().replace("\n", " ")
    assert "operations from size=8 to size=4096" in said
    assert (  # the largest difference first: the same line's product at other shapes, then the new copy
        "• mlp at size=4096: operations that differ: `dot` (matrix product, f32[4096,8] × f32[8,8] → f32[4096,8], "
        "m.py:3) in mlp at size=4096 where mlp at size=8 runs `dot`"
    ) in said
    assert (
        "`copy.5` (transpose/copy, f32[4096,8] → f32[4096,8], m.py:4): 40.0 µs a call, only in mlp at size=4096" in said
    )


def test_the_markdown_gives_the_operations_and_the_guards_note_as_code_and_counts_the_others():
    """`tuiperf export 13 --format markdown` (loop-compile): "Operations against `lax.scan`" and the
    guard's note escaped their backticks (\\`copy.6\\` showed the backticks), and "3 variants compute the
    same outputs … as `lax.scan`" counted lax.scan among them."""
    from tuiperf.results.export import markdown
    from tuiperf.results.model import Equivalence

    scan = _variant("lax.scan", 5_500.0, BASE, _table(_row("copy.6", "transpose/copy", 550), compute=1_670.0))
    unrolled = _variant("unrolled", 5_250.0, BASE, _table(_row("fusion", "elementwise", 935), compute=1_430.0))
    result = document.run_result(factories.header(), [scan, unrolled], duration_s=1.0)
    note = "unrolled and lax.scan: same result, different programs; operations that differ: `copy.6` (…)"
    result = msgspec.structs.replace(
        result, equivalence=Equivalence(reference="lax.scan", checked=["lax.scan", "unrolled"], notes=[note])
    )
    text = markdown(result)
    assert "- `unrolled`: operations that differ: `fusion` (elementwise, f32\\[4\\], m.py:1): 935 ns a call" in text
    assert "- unrolled and lax.scan: same result, different programs; operations that differ: `copy.6` (…)" in text
    assert "\\`" not in text
    assert "1 other variant computes the same outputs, FLOPs and parameter counts as `lax.scan`." in text
