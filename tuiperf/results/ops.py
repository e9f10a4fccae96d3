"""The operations table of a variant, and two variants' tables side by side.

:func:`table` joins a trace's per-call instruction times (:mod:`tuiperf.results.op_trace`) with the
compiled program's HLO (:mod:`tuiperf.results.hlo`): one row per executed instruction (a fusion is
one) with its kind, shapes, the user's line it came from, runs per call, time per call with a 95 %
interval over batches of calls, and its share of the breakdown's compute stage; a last row holds what
the trace does not attribute, so that the rows add up to compute.

:func:`compare` matches two tables' rows by source line, kind and shapes (then by line and kind,
then by kind and shapes): each operation is in one program only, or in both with the ratio of
their times. No JAX here.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from tuiperf.common.units import format_ns
from tuiperf.results import hlo
from tuiperf.results.environments import pairs
from tuiperf.results.model import NOT_ATTRIBUTED, Operations, OpRow, RunResult, VariantResult
from tuiperf.results.op_trace import CallOps, OpKey
from tuiperf.results.reconcile import Reconciliation

# Student's t at 97.5 % for 1..9 degrees of freedom (batches - 1); 1.96 beyond.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262)
NOT_ATTRIBUTED_OP = "(not attributed)"


def _t(df: int) -> float:
    return _T975[df - 1] if 1 <= df <= len(_T975) else 1.96


def batches_of(calls: Sequence[CallOps], batches: int) -> list[list[CallOps]]:
    """``calls`` cut into at most ``batches`` contiguous batches of (nearly) equal size."""
    count = max(1, min(batches, len(calls)))
    size, extra = divmod(len(calls), count)
    cut, at = [], 0
    for index in range(count):
        step = size + (1 if index < extra else 0)
        cut.append(list(calls[at : at + step]))
        at += step
    return [b for b in cut if b]


def _mean_and_interval(per_batch: list[float]) -> tuple[float, tuple[float, float] | None]:
    mean = statistics.fmean(per_batch)
    if len(per_batch) < 2:
        return mean, None
    half = _t(len(per_batch) - 1) * statistics.stdev(per_batch) / math.sqrt(len(per_batch))
    return mean, (mean - half, mean + half)


def guess_kind(op: str) -> str:
    """An instruction's kind from its name alone (where the program's HLO is not at hand)."""
    name = op.lower()
    for words, kind in (
        (("convolution", "conv"), hlo.CONVOLUTION),
        (("dot", "gemm", "matmul", "cublas"), hlo.MATMUL),
        (("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective", "nccl"), hlo.COLLECTIVE),
        (("memcpy", "copy-start", "copy-done", "infeed", "outfeed", "send", "recv"), hlo.TRANSFER),
        (("while",), hlo.LOOP),
        (("reduce",), hlo.REDUCTION),
        (("transpose", "copy", "bitcast"), hlo.TRANSPOSE),
        (("custom-call", "custom_call"), hlo.CUSTOM_CALL),
    ):
        if any(word in name for word in words):
            return kind
    return hlo.OTHER


@dataclass(frozen=True)
class Described:
    """What the HLO says of one executed instruction."""

    kind: str
    shapes: str = ""
    detail: str = ""
    source: str = ""
    via: str = ""


def describe(program: hlo.Program | None, key: OpKey, user_file: str) -> Described:
    module, op = key
    found = program.instruction(op) if program is not None and module == program.module else None
    if program is None or found is None:
        elsewhere = program is not None and module != program.module
        return Described(guess_kind(op), detail="another program" if elsewhere else "")
    where = hlo.detail(program, found)
    if found.computation != program.entry and not where:
        everything = [i for c in program.computations.values() for i in c]
        loops = [i for i in everything if i.opcode == "while" and found.computation in i.called]
        where = f"inside {loops[0].name}" if loops else ""
    return Described(
        hlo.kind_of(program, found),
        hlo.shapes(program, found),
        where,
        hlo.where(hlo.user_frame(found.frames, user_file)),
        hlo.library_frame(found.frames),
    )


def table(
    calls: Sequence[CallOps],
    program: hlo.Program | None,
    compute_ns: float | None,
    *,
    user_file: str = "",
    batches: int = 5,
) -> Operations:
    """The operations table of ``calls`` (a trace's marked calls of one variant)."""
    calls = [c for c in calls if c.self_us]
    if not calls:
        return Operations(note="the trace holds no operation of the program: nothing to attribute")
    cut = batches_of(calls, batches)
    keys = sorted({key for call in calls for key in call.self_us})
    rows = []
    for key in keys:
        per_batch = [statistics.fmean(c.self_us.get(key, 0.0) * 1e3 for c in b) for b in cut]
        ns, interval = _mean_and_interval(per_batch)
        runs = statistics.fmean(c.count.get(key, 0) for c in calls)
        said = describe(program, key, user_file)
        rows.append(
            OpRow(
                op=key[1],
                kind=said.kind,
                shapes=said.shapes,
                detail=said.detail,
                source=said.source,
                via=said.via,
                module=key[0],
                calls=runs,
                ns=ns,
                ci95_ns=interval,
            )
        )
    traced = sum(r.ns for r in rows)
    whole = compute_ns if compute_ns is not None and compute_ns > 0 else traced
    rows.sort(key=lambda r: -r.ns)
    rows = [_with_share(r, whole) for r in rows]
    note = None
    if compute_ns is not None and compute_ns >= traced:
        rest = compute_ns - traced
        rows.append(OpRow(op=NOT_ATTRIBUTED_OP, kind=NOT_ATTRIBUTED, ns=rest, share=rest / whole if whole else None))
    elif compute_ns is not None:  # a negative "(not attributed)" row read as time the program gave back
        note = (
            f"the traced operations hold more than the compute stage measured while sampling ({format_ns(traced)} "
            f"vs {format_ns(compute_ns)}): the traced calls ran slower, so nothing is left unattributed and the "
            "shares add up to more than 100 %"
        )
    else:
        note = "no compute stage to compare with (no reliable breakdown): shares are of the traced operations' time"
    call_ns = statistics.median((c.end_us - c.start_us) * 1e3 for c in calls)
    counts = {"calls": len(calls), "batches": len(cut)}
    return Operations(rows=rows, traced_ns=traced, compute_ns=compute_ns, note=note, call_ns=call_ns, **counts)


SLOWER_WHEN_TRACED = 1.2  # traced calls slower than the sampled median by more than this: said


def traced_slower(table: Operations, median_ns: float) -> Operations:
    """The table with a note where its traced calls took clearly longer than the sampled ones."""
    if table.call_ns is None or median_ns <= 0 or table.call_ns <= SLOWER_WHEN_TRACED * median_ns:
        return table
    said = (
        f"the traced calls took {table.call_ns / median_ns:.2g}× the sampled median ({format_ns(table.call_ns)} vs "
        f"{format_ns(median_ns)}: a busier machine, or the profiler's own cost); the rows are the traced calls' times"
    )
    return msgspec.structs.replace(table, note="; ".join(x for x in (table.note, said) if x))


def ops_summary(table: Operations) -> str:
    """``200 calls traced in 5 batches; the operations hold 1.15 ms of compute's 1.18 ms (97 %)``."""
    said = f"{table.calls} calls traced in {table.batches} batches; the operations hold {format_ns(table.traced_ns)}"
    if table.compute_ns is not None and table.compute_ns > 0:
        said += f" of compute's {format_ns(table.compute_ns)} ({table.traced_ns / table.compute_ns:.0%})"
    return said + " a call"


def _with_share(row: OpRow, whole: float) -> OpRow:
    return msgspec.structs.replace(row, share=row.ns / whole if whole > 0 else None)


# -- side by side ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    """One operation of two programs: in ``a`` only, in ``b`` only, or in both (``how`` says what
    matched: "line, kind, shapes" (and dimensions), "kind, shapes", "line, kind", "name" or "kind")."""

    a: OpRow | None
    b: OpRow | None
    how: str = ""

    @property
    def ratio(self) -> float | None:
        """a's time per call over b's."""
        if self.a is None or self.b is None or self.b.ns <= 0:
            return None
        return self.a.ns / self.b.ns

    @property
    def difference_ns(self) -> float:
        return (self.a.ns if self.a else 0.0) - (self.b.ns if self.b else 0.0)

    @property
    def same(self) -> bool:
        """The same operation in both programs: its kind, shapes and dimensions (variants of one file
        run it from different lines)."""
        return self.a is not None and self.b is not None and self.how in (LEVELS[0][0], LEVELS[1][0])


LEVELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("line, kind, shapes", ("source", "kind", "shapes", "detail")),
    ("kind, shapes", ("kind", "shapes", "detail")),
    ("line, kind", ("source", "kind")),
    ("name", ("op",)),  # only where one program's HLO was not at hand (no shapes to match by)
    ("kind", ("kind",)),  # what is left: one program's convolution in place of the other's
)


def compare(a: Operations, b: Operations) -> list[Match]:
    """``a``'s and ``b``'s operations matched, largest difference first (the not-attributed rows apart):
    by line, kind, shapes and dimensions; then by kind, shapes and dimensions (another line: variants of
    one file); then by line and kind (the same line, other shapes); then, where one side's HLO was not at
    hand, by the instruction's name; what is left, by kind alone (one program's 3-D convolution where the
    other runs a 1-D one)."""
    left, right = list(a.operations), list(b.operations)
    matches: list[Match] = []
    for how, fields in LEVELS:
        for row in sorted(left, key=lambda r: -r.ns):
            key = tuple(getattr(row, f) for f in fields)
            if any(not getattr(row, f) for f in fields if f in ("source", "shapes")):
                continue  # an operation the HLO does not describe matches nothing by an empty field
            partner = next((r for r in right if _matches(r, row, fields, key)), None)
            if partner is not None:
                matches.append(Match(row, partner, how))
                left.remove(row)
                right.remove(partner)
    matches.extend(Match(row, None) for row in left)
    matches.extend(Match(None, row) for row in right)
    return sorted(matches, key=lambda m: -abs(m.difference_ns))


def _matches(candidate: OpRow, row: OpRow, fields: tuple[str, ...], key: tuple[object, ...]) -> bool:
    if tuple(getattr(candidate, f) for f in fields) != key:
        return False
    return fields != ("op",) or not (candidate.shapes and row.shapes)  # by name: one side undescribed


def differing(matches: Sequence[Match]) -> list[Match]:
    """The matches that are not the same operation in both programs."""
    return [m for m in matches if not m.same]


def row_words(row: OpRow) -> str:
    """``convolution.3 (convolution, 3-D, window 3x3x3, f32[…] → f32[…], model.py:42)``."""
    what = ", ".join(x for x in (row.kind, row.detail, row.shapes, row.source) if x)
    return f"`{row.op}` ({what})"


def match_words(match: Match, a_name: str, b_name: str) -> str:
    """One line for one match: in one program only, or in both with the ratio."""
    if match.a is not None and match.b is None:
        return f"{row_words(match.a)}: {format_ns(match.a.ns)} a call, only in {a_name}"
    if match.b is not None and match.a is None:
        return f"{row_words(match.b)}: {format_ns(match.b.ns)} a call, only in {b_name}"
    assert match.a is not None and match.b is not None
    ratio = match.ratio
    times = f"{format_ns(match.a.ns)} vs {format_ns(match.b.ns)}" + (f" (×{ratio:.2f})" if ratio is not None else "")
    if match.same:
        return f"{row_words(match.a)}: {times}"
    return f"{row_words(match.a)} in {a_name} where {b_name} runs {row_words(match.b)}: {times}"


def retimed(matches: Sequence[Match]) -> list[Match]:
    """The same operation in both programs, at times per call whose 95 % intervals do not overlap (a
    fusion that got slower between versions). Rows without an interval are never said to differ."""
    return [m for m in matches if m.same and _apart(m.a, m.b)]


def _apart(a: OpRow | None, b: OpRow | None) -> bool:
    if a is None or b is None or a.ci95_ns is None or b.ci95_ns is None:
        return False
    return a.ci95_ns[0] > b.ci95_ns[1] or b.ci95_ns[0] > a.ci95_ns[1]


def differences_words(a_name: str, a: Operations, b_name: str, b: Operations, top: int = 3) -> str:
    """What differs between two variants' operations, in a sentence ("" where nothing does): operations
    in one program only or replaced by others, then the same operations at other times per call."""
    matches = compare(a, b)
    parts = []
    for words, found in (
        ("operations that differ", differing(matches)),
        ("the same operations at other times", retimed(matches)),
    ):
        if found:
            said = "; ".join(match_words(m, a_name, b_name) for m in found[:top])
            more = f" (and {len(found) - top} more)" if len(found) > top else ""
            parts.append(f"{words}: {said}{more}")
    return "; ".join(parts)


# -- in the why --------------------------------------------------------------------------------------

EXPLAINED = 0.5  # operations whose differences hold at least this share of a compute gap explain it


def in_compute(cause: str | None, split: Reconciliation, slow: VariantResult, fast: VariantResult) -> str | None:
    """The verdict's cause, with the operations that hold the gap where compute is among the stages
    that explain it beyond noise."""
    if cause is None or not split.reliable or not any(s.key == "compute" for s in split.clear_stages()):
        return cause
    said = compute_gap_words(slow.name, slow.program.ops, fast.name, fast.program.ops)
    return f"{cause}; {said}" if said else cause


def compute_gap_words(slow: str, slow_ops: Operations | None, fast: str, fast_ops: Operations | None) -> str:
    """Which operations hold the compute stage's gap between ``slow`` and ``fast`` ("" without both
    tables): the largest differences, how much of the gap each holds, and what the operations leave
    unexplained."""
    if slow_ops is None or fast_ops is None or not slow_ops.rows or not fast_ops.rows:
        return ""
    if slow_ops.compute_ns is None or fast_ops.compute_ns is None:
        return ""
    gap = slow_ops.compute_ns - fast_ops.compute_ns
    if gap <= 0:
        return ""
    matches = [m for m in compare(slow_ops, fast_ops) if m.difference_ns > 0 and beyond_noise(m)]
    found = [m for m in matches[:3] if m.difference_ns / gap >= 0.05]
    held = sum(m.difference_ns for m in found)
    if held > OVER * gap:
        # The traced calls' differences exceed the sampled gap (they ran under the profiler, slower):
        # shares of the gap would read "233% in …; 132% in …", so each is said in time instead.
        named = [f"{format_ns(m.difference_ns)} a call in {_held_by(m, slow, fast)}" for m in found]
        return (
            f"compute {signed_ns(gap)}: " + "; ".join(named) + f" (the traced calls' times: {format_ns(held)} "
            "in all, more than compute's gap, so no share of it is said)"
        )
    named = [f"{min(m.difference_ns / gap, 9.99):.0%} in {_held_by(m, slow, fast)}" for m in found]
    explained = sum(m.difference_ns for m in compare(slow_ops, fast_ops)) / gap
    if not named or held / gap < EXPLAINED:
        return f"the operations explain {explained:.0%} of compute's {signed_ns(gap)}: the rest is unexplained" + (
            f" ({'; '.join(named)})" if named else ""
        )
    rest = "" if explained >= 0.9 else f"; the operations explain {explained:.0%} of it, the rest is unexplained"
    return f"compute {signed_ns(gap)}: " + "; ".join(named) + rest


OVER = 1.2  # named operations holding more than this share of a compute gap are said in time, not in shares


def beyond_noise(match: Match) -> bool:
    """Whether a difference is more than its 95 % intervals hold: an operation of one program only
    whose interval stays above zero, or two whose intervals do not overlap (rows without an interval,
    whose precision is unknown, count as beyond it, as before intervals were kept)."""
    if match.a is not None and match.b is not None:
        return match.a.ci95_ns is None or match.b.ci95_ns is None or _apart(match.a, match.b)
    row = match.a if match.a is not None else match.b
    return row is None or row.ci95_ns is None or row.ci95_ns[0] > 0


def _held_by(match: Match, slow: str, fast: str) -> str:
    if match.a is not None and match.b is None:
        return f"{row_words(match.a)}, absent from {fast}'s program"
    assert match.a is not None and match.b is not None
    ratio = match.ratio
    times = f"×{ratio:.2f}" if ratio is not None else ""
    if match.same:
        return f"{row_words(match.a)} ({times} {fast}'s)"
    return f"{row_words(match.a)}, where {fast} runs {row_words(match.b)} ({times})"


def signed_ns(ns: float) -> str:
    return ("+" if ns > 0 else "−" if ns < 0 else "") + format_ns(abs(ns))


def program_differences(a: str, a_ops: Operations | None, b: str, b_ops: Operations | None) -> str:
    """For the guard's "same result, different programs": which operations differ ("" without both
    tables, or where they run the same operations)."""
    if a_ops is None or b_ops is None or not a_ops.rows or not b_ops.rows:
        return ""
    found = differing(compare(a_ops, b_ops))
    if not found:
        return "the same operations run in both (kind, shapes)"
    said = "; ".join(match_words(m, a, b) for m in found[:3])
    more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
    return f"operations that differ: {said}{more}"


def extra_work_words(slow: VariantResult, fast: VariantResult, share: float = 0.05) -> str | None:
    """Evidence where no stage split names a cause: the operations that only the slower variant's
    program runs, where they hold at least ``share`` of its median (None otherwise)."""
    a, b = slow.program.ops, fast.program.ops
    stats = slow.sampling.stats
    if a is None or b is None or not a.rows or not b.rows or stats is None:
        return None
    only = [m.a for m in compare(a, b) if m.a is not None and m.b is None]
    held = sum(row.ns for row in only)
    if not only or held < share * stats.median_ns:
        return None
    more = f" and {len(only) - 1} more ({format_ns(held)} a call in all)" if len(only) > 1 else ""
    return (
        f"{slow.name}'s program runs operations {fast.name}'s does not: {row_words(only[0])}, "
        f"{format_ns(only[0].ns)} a call{more}"
    )


@dataclass(frozen=True)
class SideBySide:
    """One variant's operations against another's: ``words`` says what differs, or that nothing does."""

    variant: str
    against: str
    words: str


def side_by_side(result: RunResult, baseline: str | None) -> list[SideBySide]:
    """Each traced variant against the one it is read against (:func:`~tuiperf.results.environments.pairs`):
    the baseline, or in a run over several environments the same variant in the reference environment
    (which operations changed between versions)."""
    if baseline is None:
        return []
    found = []
    for name, reference in pairs(result, baseline):
        a, b = result.variant(name), result.variant(reference)
        if a is None or b is None or a.program.ops is None or b.program.ops is None:
            continue
        if not a.program.ops.rows or not b.program.ops.rows:
            continue
        words = differences_words(a.name, a.program.ops, b.name, b.program.ops, top=4)
        found.append(SideBySide(a.name, b.name, words or "the same operations (kind, shapes)"))
    return found


def across_sweep(result: RunResult) -> list[SideBySide]:
    """Each variant's operations at a 1-D sweep's last point against its first (what grew, what
    appeared: shapes differ between points, so operations match by line and kind)."""
    sweep, points = result.sweep, result.points
    if sweep is None or sweep.grid or len(points) < 2:
        return []
    first, last = points[0], points[-1]
    found = []
    for v in last.variants:
        before = first.variant(v.name)
        if before is None or v.program.ops is None or before.program.ops is None:
            continue
        if not v.program.ops.rows or not before.program.ops.rows:
            continue
        a, b = f"{v.name} at {sweep.label(len(points) - 1)}", f"{v.name} at {sweep.label(0)}"
        words = differences_words(a, v.program.ops, b, before.program.ops, top=3)
        found.append(SideBySide(a, b, words or "the same operations (kind, shapes)"))
    return found
