"""The why of compile time, from evidence (issue #53): each variant's program size (jaxpr equations, HLO
instructions lowered and compiled) and a Python profile of its trace, stored in its compile part; the
compile-gap sentence says a size ratio as explaining the gap only where size and compile time move the
same way; a remedy for compile time is said only where the evidence names it."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

import tests.factories as factories
from tests.test_compile_time import compile_sweep, series, shown, with_stages
from tuiperf.results import compile_time as ct
from tuiperf.results import hlo
from tuiperf.results.model import ProfileRow, Program, ProgramSize, RunResult, TraceProfile, VariantResult

HLO = Path(__file__).parent / "fixtures" / "hlo"
INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%[\w.\-]+ = ", re.MULTILINE)


def sized(
    v: VariantResult, compiled: int, jaxpr: int, loops: list[int | None], calls: float | None = None
) -> VariantResult:
    """``v`` with a program size, its loops, and (``calls``) a trace profile where the scenario's ``step``
    was called that many times."""
    rows = [ProfileRow(function="bind (jax/…/core.py:660)", ncalls=9, cumtime_us=900.0, tottime_us=80.0)]
    if calls is not None:
        rows.append(
            ProfileRow(function="step (loop.py:3)", ncalls=calls, cumtime_us=500.0, tottime_us=9.0, kind="scenario")
        )
    stages = msgspec.structs.replace(
        v.stages,
        size=ProgramSize(jaxpr_equations=jaxpr, jaxpr_outer=1 if loops else jaxpr, compiled_instructions=compiled),
        trace_profile=TraceProfile(rows=rows, traces=3, profiled_ms=5.0),
    )
    return msgspec.structs.replace(v, stages=stages, program=Program(loops=loops))


def scan_vs_unrolled(scan_total: float = 30.0, unrolled_total: float = 160.0, unrolled_calls: float = 64) -> RunResult:
    result = factories.result({"scan": factories.steady(10.0), "unrolled": factories.steady(12.0)})
    result = with_stages(result, {"scan": scan_total, "unrolled": unrolled_total})
    scan, unrolled = result.variants
    variants = [sized(scan, 34, 4, [64], calls=1), sized(unrolled, 199, 192, [], calls=unrolled_calls)]
    return msgspec.structs.replace(result, variants=variants)


# -- pure: counting ------------------------------------------------------------------------------------
def test_the_compiled_hlo_instructions_are_counted_in_every_computation():
    text = (HLO / "scan_einsum.txt").read_text()
    # the module's FileNames/StackFrames tables are not instructions; fusions' and the loop's bodies are
    assert hlo.instruction_count(text) == len(INSTRUCTION.findall(text)) == 40


# -- pure: the gap sentence ----------------------------------------------------------------------------
def test_the_gap_sentence_gives_the_size_ratio_where_size_and_compile_move_the_same_way():
    [said] = ct.gap_sentences(scan_vs_unrolled(), "scan")
    assert (
        "unrolled's program has 5.85× the HLO instructions of scan's (199 vs 34 HLO instructions; 192 vs 4 "
        "jaxpr equations); its compile is 5.33× as long" in said
    )
    assert "one trace of unrolled calls step (loop.py:3) 64 times (scan's: 1)" in said


def test_a_similar_or_opposite_size_names_no_cause_of_the_gap():
    result = scan_vs_unrolled()
    scan, unrolled = result.variants
    similar = msgspec.structs.replace(result, variants=[scan, sized(unrolled, 36, 4, [])])
    [said] = ct.gap_sentences(similar, "scan")
    assert (
        "their programs are of similar size in HLO instructions, what XLA's backend compile works on (36 vs 34 HLO "
        "instructions; 4 vs 4 jaxpr equations): size names no cause of the gap" in said
    )
    assert "5.33× as long" not in said.split("similar size")[1]
    smaller = msgspec.structs.replace(result, variants=[scan, sized(unrolled, 17, 2, [])])
    [said] = ct.gap_sentences(smaller, "scan")
    assert "unrolled's program has 0.5× the HLO instructions of scan's (17 vs 34 HLO instructions; 2 vs 4 " in said
    assert "yet its compile is 5.33× as long: size names no cause of the gap" in said


def test_a_gap_held_by_tracing_compares_the_jaxprs():
    result = scan_vs_unrolled()
    scan, unrolled = result.variants
    repeated = {**scan.stages.repeated, "trace": series(101.0), "total": series(130.0)}  # only tracing is longer
    unrolled = msgspec.structs.replace(unrolled, stages=msgspec.structs.replace(unrolled.stages, repeated=repeated))
    [said] = ct.gap_sentences(msgspec.structs.replace(result, variants=[scan, unrolled]), "scan")
    assert "tracing (Python) +100 ms (100%)" in said
    assert "unrolled's program has 48× the jaxpr equations of scan's (199 vs 34 HLO instructions; 192 vs 4" in said


# -- pure: remedies only where the evidence names them ------------------------------------------------
def test_a_python_loop_unrolled_at_trace_time_is_named_with_its_remedy():
    [said] = ct.remedies(scan_vs_unrolled())
    assert said.startswith(
        "unrolled looks like a Python loop unrolled at trace time: it compiles 5.33× as long as scan"
    )
    assert "calls step (loop.py:3) 64 times where scan's 64-step while loop traces it once" in said
    assert "199 HLO instructions against 34. lax.scan or lax.fori_loop traces the body once" in said
    assert "not tried here" in said
    text = shown(scan_vs_unrolled(), width=80)
    assert "what the evidence names for compile time" in text


def test_no_remedy_without_the_evidence():
    assert ct.remedies(scan_vs_unrolled(unrolled_calls=10)) == []  # calls not the loop's trip count
    assert ct.remedies(scan_vs_unrolled(unrolled_total=30.0)) == []  # compile not longer beyond its interval
    result = scan_vs_unrolled()
    scan, unrolled = result.variants
    unprofiled = msgspec.structs.replace(unrolled, stages=msgspec.structs.replace(unrolled.stages, trace_profile=None))
    assert ct.remedies(msgspec.structs.replace(result, variants=[scan, unprofiled])) == []
    assert "what the evidence names" not in shown(msgspec.structs.replace(result, variants=[scan, unprofiled]))


def sized_sweep(scan_loops: list[int | None] | None = None) -> RunResult:
    result = compile_sweep()  # unrolled's compile ∝ steps, scan's flat
    points = []
    for point, steps in zip(result.points, [8, 32, 128], strict=True):
        scan, unrolled = point.variants
        variants = [
            sized(scan, 34, 4, [steps] if scan_loops is None else scan_loops),
            sized(unrolled, 3 * steps + 7, 3 * steps, []),
        ]
        points.append(msgspec.structs.replace(point, variants=variants))
    return msgspec.structs.replace(result, points=points)


def test_a_sweep_names_the_unrolled_loop_where_its_size_grows_and_the_loops_stays_flat():
    result = sized_sweep()
    assert ct.sweep_sizes(result) == {"scan": [34, 34, 34], "unrolled": [31, 103, 391]}
    [said] = ct.sweep_remedies(result)
    assert said.startswith(
        "unrolled's program holds no loop and grows with steps (HLO instructions 31 → 391, ∝ steps^0.9; its "
        "compile ∝ steps^1.0), while each with a while loop stays the same size (measured here: scan 34 "
        "instructions at every point): an unrolled Python loop. lax.scan or lax.fori_loop"
    )
    text = shown(result, width=80)
    assert "sweep over steps: compiled program size, HLO instructions" in text
    rows = [line.split() for line in text.splitlines()]
    assert ["scan", "34", "34", "34", "0.00"] in rows and ["unrolled", "31", "103", "391", "0.91"] in rows
    assert "· unrolled's program holds no loop and grows with steps" in text
    from tuiperf.results.export import markdown

    text = markdown(result)
    assert "| 128 | 34 | 391 |" in text and "| log-log slope | 0.00 | 0.91 |" in text
    assert "- unrolled's program holds no loop and grows with steps" in text
    assert "| `unrolled` | 384 | – | 391 | none |" in text  # the last point's program size
    # no variant with a while loop beside it: nothing named
    assert ct.sweep_remedies(sized_sweep(scan_loops=[])) == []


def test_a_grid_shows_each_cells_program_size_in_the_report_and_the_markdown():
    from tuiperf.results import document
    from tuiperf.results.export import markdown

    base = factories.grid({"scan": [10.0] * 4, "unrolled": [12.0] * 4}, ("steps", (8, 32)), ("size", (4, 64)))
    points = []
    for point in base.points:
        steps = point.params["steps"]
        point = with_stages(point, {"scan": 30.0, "unrolled": 5.0 * steps})
        scan, unrolled = point.variants
        variants = [sized(scan, 34, 4, [steps]), sized(unrolled, 3 * steps + 7, 3 * steps, [])]
        points.append(msgspec.structs.replace(point, variants=variants))
    header = factories.header(params={"steps": 8, "size": 4})
    result = document.sweep_result("steps", [8, 32], points, header, duration_s=4.0, columns=("size", [4, 64]))
    assert ct.sweep_sizes(result) == {"scan": [34, 34, 34, 34], "unrolled": [31, 31, 103, 103]}
    text = shown(result)
    assert "grid over steps × size (4 cells): compiled program size, HLO instructions" in text
    rows = [line.split() for line in text.splitlines()]
    assert ["scan", "34", "34", "34", "34"] in rows and ["unrolled", "31", "31", "103", "103"] in rows
    text = markdown(result)
    assert "| cell | `scan` | `unrolled` |" in text
    assert "| `steps=32, size=64` | 34 | 103 |" in text and "log-log slope | 0.00" not in text


def test_the_markdown_gives_each_variants_trace_profile():
    from tuiperf.results.export import markdown

    text = markdown(scan_vs_unrolled())
    assert "Tracing's Python profile, one trace, functions by own time:" in text
    assert "`unrolled`:\n\n| function | calls | own | cum. |" in text
    assert "| ◆ `step (loop.py:3)` | 64 | 9.00 µs | 500 µs |" in text
    assert "| `bind (jax/…/core.py:660)` | 9 | 80.0 µs | 900 µs |" in text
    assert "the median over the traces profiled (scan 3 traces of 5.00 ms, unrolled 3 traces of 5.00 ms)" in text


# -- the report -----------------------------------------------------------------------------------------
def test_the_report_shows_each_variants_program_size_and_trace_profile_at_80_columns():
    text = shown(scan_vs_unrolled(), width=80)
    assert "program size, counted once per variant" in text
    rows = [line.split() for line in text.splitlines()]
    assert ["scan", "4", "(1", "outer)", "–", "34", "a", "64-step", "loop"] in rows
    assert ["unrolled", "192", "–", "199", "none"] in rows
    assert "tracing's Python profile: one trace, functions by own time" in text
    assert ["◆", "step", "(loop.py:3)", "64", "9.00", "µs", "500", "µs"] in rows
    assert "(scan 3 traces of 5.00 ms, unrolled 3 traces of 5.00 ms)" in text.replace("\n  ", " ")
    assert max(len(line) for line in text.splitlines()) <= 80


def test_a_run_without_sizes_or_profiles_shows_neither():
    result = with_stages(factories.result({"a": factories.steady(10.0)}), {"a": 30.0})
    text = shown(result)
    assert "program size" not in text and "tracing's Python profile" not in text


# -- in this process: counted and profiled from a real compile ------------------------------------------
def helper(
    x,
):  # the "scenario file's" function a trace calls: Python work of its own, so it is among the top by own time
    import jax.numpy as jnp

    for _ in range(50_000):
        pass
    return jnp.sin(x) + 1


def test_a_real_compile_is_counted_and_its_trace_profiled(monkeypatch):
    import jax
    import jax.numpy as jnp
    from jax import lax

    from tuiperf.measuring.compile_time import Subject, jaxpr_equations, repeat_compiles, trace_profile

    def unrolled(x):
        for _ in range(6):
            x = helper(x)
        return x

    def scanned(x):
        return lax.scan(lambda c, _: (helper(c), None), x, None, length=6)[0]

    x = jnp.ones(4)
    assert jaxpr_equations(jax.make_jaxpr(unrolled)(x)) == (12, 12)  # sin and add, 6 times
    assert jaxpr_equations(jax.make_jaxpr(scanned)(x)) == (3, 1)  # the scan, and its body's two
    subjects = [Subject("unrolled", jax.jit(unrolled), (x,)), Subject("scan", jax.jit(scanned), (x,))]
    repeat_compiles(subjects, budget_s=0.0)
    for subject in subjects:
        size = subject.size
        assert size is not None and size.compiled_instructions and size.lowered_instructions
        compiled = jax.jit(subject.fn).lower(x).compile().as_text()  # a plain count, by line
        assert size.compiled_instructions == len(INSTRUCTION.findall(compiled))
    assert subjects[0].size is not None and subjects[0].size.jaxpr_equations == 12
    import tuiperf.measuring.compile_time as compile_time

    monkeypatch.setattr(compile_time, "CHEAP_MS", float("inf"))  # every profiled trace cheap: three of them
    profile = trace_profile(subjects[0], __file__)
    # among the functions with most own time, and still marked as the scenario's own (its calls are evidence)
    assert profile.rows[0].function.startswith("helper ")
    [mine] = [row for row in profile.rows if row.kind == "scenario" and row.function.startswith("helper ")]
    assert mine.ncalls == 6 and mine.function == f"helper (test_compile_why.py:{helper.__code__.co_firstlineno})"
    assert profile.traces == 3 and profile.profiled_ms is not None and profile.profiled_ms > 0
    assert [row for row in profile.rows if row.kind == "python"]
    monkeypatch.setattr(compile_time, "CHEAP_MS", 0.0)  # none cheap: one
    assert trace_profile(subjects[0], __file__).traces == 1
    import gc

    assert gc.isenabled()  # off while profiled only


def test_the_apps_profile_tab_shows_each_variants_trace_profile():
    from tuiperf.tui.widgets.profile_table import TRACE_MARK, profile_content

    content = profile_content(scan_vs_unrolled())
    cells = {key: [c.plain for c in row] for key, row in content.rows if key.startswith("trace")}
    assert cells["trace1.1"] == ["500.00", "9.00", "64", "", f"{TRACE_MARK} ◆ step (loop.py:3)"]
    assert cells["trace0.0"] == ["900.00", "80.00", "9", "scan", f"{TRACE_MARK} bind (jax/…/core.py:660)"]
    assert "one trace of the variant (--measure compile)" in str(content.note)
    assert not [key for key, _ in profile_content(factories.result({"a": [1.0]})).rows if key.startswith("trace")]


def test_a_trace_that_fails_under_the_profiler_says_why_and_the_run_goes_on():
    from tuiperf.measuring.compile_time import Subject, trace_profile

    class Broken:
        def trace(self, *args):
            raise RuntimeError("traced twice")

    found = trace_profile(Subject("broken", Broken(), ()))
    assert found.rows == [] and found.note == "not profiled: RuntimeError: traced twice"


def test_a_stage_that_shortens_the_gap_reads_with_the_same_minus_as_its_time():
    """loop-compile (steps=8) read "lowering to StableHLO −2.72 ms (-182%)": two minus signs."""
    from tests.test_compile_time import series

    result = scan_vs_unrolled()
    scan, unrolled = result.variants
    faster_lowering = {**unrolled.stages.repeated, "lower": series(1.0)}
    stages = msgspec.structs.replace(unrolled.stages, repeated=faster_lowering)
    result = msgspec.structs.replace(result, variants=[scan, msgspec.structs.replace(unrolled, stages=stages)])
    [said] = ct.gap_sentences(result, "scan")
    assert "lowering to StableHLO −1.00 ms (−1%)" in said and "(-" not in said


def test_the_gap_sentence_gives_the_wholes_difference_as_the_pay_off_does():
    """loop-compile (steps=8) read "unrolled compiles 1.50 ms longer than lax.scan" (the sum of the
    stages' median differences) and, below, "unrolled compiles 1.59 ms longer than lax.scan [95 % CI …]"
    (the difference of the whole's medians): medians do not add up."""
    from tests.test_compile_time import series

    result = scan_vs_unrolled()
    scan, unrolled = result.variants
    longer_whole = {**unrolled.stages.repeated, "total": series(170.0)}  # its stages' medians add to 160
    stages = msgspec.structs.replace(unrolled.stages, repeated=longer_whole)
    result = msgspec.structs.replace(result, variants=[scan, msgspec.structs.replace(unrolled, stages=stages)])
    [said] = ct.gap_sentences(result, "scan")
    assert said.startswith("unrolled compiles 140 ms longer than scan (5.67×): XLA's backend compile +130 ms (93%)")
