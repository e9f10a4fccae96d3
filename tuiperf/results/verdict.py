"""Why is A slower than B? One sentence per pair, built only from evidence the result holds.

The evidence, strongest first: the guard (two variants that do not compute the same thing have no
"why"), recompiles during sampling (compile time, and what JAX says changed), then the breakdown's
stage differences that explain the gap beyond their resolution (how much of it each explains, the
profile's top function where the stage is Python work), with the usual remedy for that stage. Where
the evidence does not support a cause, the sentence says so. Pure: no numpy or JAX (the UI uses it).
Also the words for one stage's figure and for a gap split by stage, shared by every display.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from tuiperf.common.units import format_ns, how_much
from tuiperf.results import evidence, findings, ops, remedies, tried
from tuiperf.results.environments import changes, pairs, qualified
from tuiperf.results.model import RunResult, Stage, VariantResult
from tuiperf.results.ratios import against
from tuiperf.results.reconcile import Reconciliation, Resampled, StageDelta, reconcile

BY_CONSTRUCTION = "none by construction"
BY_CONSTRUCTION_NOTE = (
    "† none by construction: a jax.jit call is its own jit level (no framework), a program returning one "
    "array has no output pytree (no outputs); not a measured zero"
)
MAIN_SHARE = 0.5  # a stage that explains at least half of the gap is named as the cause

# The usual remedy when a stage other than framework (see results.remedies) explains the gap.
REMEDIES = {
    "jit_dispatch": remedies.PYTREE_FLATTENING.remedy,
    "outputs": "return a flat tuple of arrays instead of a module or nested pytree",
    "launch": "pass fewer, larger arrays (the executable is launched with every leaf)",
}


def stage_cell(stage: Stage | None, fmt: Callable[[float], str] = format_ns) -> str:
    """One stage as a table shows it: a figure, "< resolution" below it, "none†" by construction."""
    if stage is None:
        return "–"
    if stage.by_construction:
        return "none†"
    if stage.resolution_ns is not None and abs(stage.ns) < stage.resolution_ns:
        return f"< {fmt(stage.resolution_ns)}"
    return fmt(stage.ns)


def signed(ns: float) -> str:
    return ("+" if ns > 0 else "−" if ns < 0 else "") + format_ns(abs(ns))


def gap_words(split: Reconciliation) -> str:
    """The stages that explain a gap beyond noise, and what is left; never more than the gap to one
    stage without saying that the rest is noise."""
    if not split.reliable:
        return "not split: a breakdown involved is not reliable"
    clear = split.clear_stages()
    if not clear:
        return f"no stage beyond its resolution (unexplained {signed(split.unexplained_ns)})"
    named = []
    for s in clear:
        share = f", {100 * s.share:.0f} % of it" if s.share is not None and 0 < s.share <= 1 else ""
        over = " (more than the whole gap: the other stages offset it, within noise)" if (s.share or 0) > 1 else ""
        named.append(f"{s.label} {signed(s.delta_ns)}{share}{over}")
    rest = "; the other stages within noise" if len(clear) < len(split.stages) else ""
    return ", ".join(named) + rest + f"; unexplained {signed(split.unexplained_ns)}"


def _cause(
    split: Reconciliation,
    slow: VariantResult,
    fast: VariantResult,
    scenario_path: str | None = None,
    tried_here: bool = False,
) -> str | None:
    """The stage that explains the gap, with how much and the usual remedy (not where tuiperf tried
    one on ``slow``: the tried remedy is said with its measured effect instead); None when none does."""
    if not split.reliable:
        return None
    clear: list[StageDelta] = [s for s in split.clear_stages() if s.share is not None and s.share > 0]
    if not clear:
        return None
    main = max(clear, key=lambda s: s.share or 0.0)
    if (main.share or 0.0) < MAIN_SHARE:
        listed = ", ".join(f"{s.label} {signed(s.delta_ns)}" for s in clear)
        return f"the gap is spread over stages ({listed}), none of which explains half of it"
    if (main.share or 0) > 1:
        sentence = (
            f"{slow.name}'s {main.label} ({signed(main.delta_ns)}) is more than the whole gap "
            f"({signed(split.gap_ns)}; the other stages offset the rest, within noise)"
        )
    else:
        sentence = (
            f"{slow.name}'s {main.label} ({signed(main.delta_ns)}) explains {100 * (main.share or 0):.0f} % of the gap"
        )
    copy = evidence.host_copy_words(slow, fast)
    if copy is not None and main.key in ("framework", "jit_dispatch", "launch"):  # where a copy at the call lands
        return sentence + f": {copy}: {remedies.HOST_COPY.remedy}"
    if main.key == "framework":
        if slow.breakdown is not None and slow.breakdown.framework_holds:
            carried = remedies.STATE_CARRIED
            return sentence + f": the time is in {carried.holds}: {carried.remedy}"
        return sentence + f"; {remedies.framework_remedy(slow, scenario_path, suggest=not tried_here)}"
    if main.key == "compute":
        looped = [v for v in (slow, fast) if not v.program.counts_work]
        if looped:  # XLA counts a loop's body once: its FLOPs say nothing of the work
            held = " and ".join(f"{v.name}'s program holds {v.program.loop_words()}" for v in looped)
            return (
                sentence + f": {held}, whose body XLA counts once, so the FLOPs do not tell whether it does other work"
            )
        if slow.program.flops and fast.program.flops and abs(slow.program.flops / fast.program.flops - 1) > 0.05:
            return (
                sentence
                + f": the program does other work ({slow.program.flops / fast.program.flops:.3g}× the XLA FLOPs)"
            )
        a, b = slow.program.transcendentals, fast.program.transcendentals
        if a is not None and b is not None and abs(a - b) > 0.05 * max(a, b):
            times = f"{a / b:.3g}× the" if b else f"{a:.3g} vs {b:.3g}"
            return sentence + f": the program does other work ({times} XLA transcendental operations, same FLOPs)"
        same = "same FLOPs and transcendentals" if a is not None and b is not None else "same FLOPs"
        return sentence + f": the compiled programs themselves differ in speed ({same}); no framework remedy"
    return sentence + f": {REMEDIES[main.key]}"


def verdict(
    result: RunResult,
    name: str,
    baseline: str,
    split: Reconciliation | bool | None = True,
    cache: Resampled | None = None,
) -> str | None:
    """One sentence on why ``name`` is slower or faster than ``baseline``; None without a ratio.

    ``split`` is the pair's reconciliation when the caller has it (``True``: compute it here, with
    ``cache``, see :func:`~tuiperf.results.reconcile.reconcile`).
    """
    base_name, rows = against(result, baseline)
    row = rows.get(name)
    a, b = result.variant(name), result.variant(base_name or "")
    if row is None or a is None or b is None or base_name is None:
        return None
    lo, hi = row.ci95
    noise = not findings.comparison_finding(result, row)  # the one rule of what is a finding
    if lo <= 1.0 <= hi:
        opening = f"{name} and {base_name} take the same time within noise (ratio CI {lo:.3f}–{hi:.3f})"
    elif noise:
        opening = (
            f"{name} is {how_much(row.ratio)} {'as' if '×' in how_much(row.ratio) else 'than'} {base_name} in these "
            f"two processes, undecided: the ratio's interval ({lo:.3f}–{hi:.3f}) leaves out process-to-process "
            "spread (`tuiperf calibrate` measures it once for this machine)"
        )
    else:
        words = how_much(row.ratio)
        opening = f"{name} is {words} {'as' if '×' in words else 'than'} {base_name}"
    eq = result.equivalence
    unfair = [m for m in eq.mismatches if m.a in (name, base_name)]  # the one that differs from the reference
    if unfair:
        m = unfair[0]
        return f"{opening}, but {m.a} does not compute the same thing as {m.b} ({m.quantity}): no fair cause to give."
    if noise:
        first = evidence.first_call_note(a, b)
        return opening + (f"; {first}" if first else "") + "."
    slow, fast = (a, b) if row.ratio > 1 else (b, a)
    if slow.recompiles.recompiles:
        compiled = (
            f"{opening}: {slow.name} compiled {slow.recompiles.recompiles} time(s) while it was timed, so its time is "
        )
        cause = slow.recompiles.causes[0] if slow.recompiles.causes else None
        if cause is not None and "compares by identity" in cause:
            return compiled + f"mostly compilation: {cause}."  # the identity cause carries its own remedy
        causes = f" ({cause})" if cause else ""
        return (
            compiled
            + f"mostly compilation: what changes between calls{causes} must stay fixed or become an array argument."
        )
    if split is True:
        split = reconcile(slow, fast, cache)
    elif isinstance(split, Reconciliation) and split.variant != slow.name:
        split = reconcile(slow, fast, cache)  # the caller's was the other way round
    notes = [n for n in eq.notes if name in n and base_name in n]
    tail = f"; the guard notes {notes[0].split(': ', 1)[1]}" if notes else ""
    memory = evidence.memory_words(slow, fast)
    extra = ops.extra_work_words(slow, fast)  # operations only the slower program runs
    copy = evidence.host_copy_words(slow, fast)
    measured = tried.tried_for(result, slow.name)  # a remedy tuiperf tried replaces the profile's guess
    profiled = (
        f"{copy}: {remedies.HOST_COPY.remedy}"
        if copy
        else None
        if measured
        else _profile_only(slow, fast, result.scenario.path or None)
    )
    if not isinstance(split, Reconciliation):
        if memory or extra or profiled:
            found = "; ".join(x for x in (memory, extra, profiled) if x)
            return f"{opening}: no breakdown of both; the evidence that differs is {found}{tail}."
        if measured and tried.helps(measured[0]):  # the remedy tried, said after this, is the evidence
            return f"{opening}: no breakdown of both{tail}."
        return f"{opening}: no breakdown of both, so the evidence names no cause{tail}."
    cause = _cause(split, slow, fast, result.scenario.path or None, bool(measured))
    cause = ops.in_compute(cause, split, slow, fast)
    if cause is None:
        why = "a breakdown involved is not reliable" if not split.reliable else "no stage explains it beyond noise"
        wide = [s for s in split.stages if split.reliable and s.ci95_ns is not None and split.wider_than_gap(s)]
        if wide and split.reliable:
            widest = max(wide, key=lambda s: (s.ci95_ns or (0.0, 0.0))[1] - (s.ci95_ns or (0.0, 0.0))[0])
            lo, hi = widest.ci95_ns or (0.0, 0.0)
            why = (
                f"{widest.label}'s interval ({signed(lo)} to {signed(hi)}) is wider than the gap "
                f"({signed(split.gap_ns)}), so no stage can explain it"
            )
        also = "".join(f"; {x}" for x in (memory, extra, profiled if not split.reliable else None) if x)
        return f"{opening}: the evidence does not support a cause ({why}){also}{tail}."
    return f"{opening}: {cause}{tail}."


def _profile_only(slow: VariantResult, fast: VariantResult, scenario_path: str | None) -> str | None:
    """Where no breakdown can say which stage holds the gap, the slower variant's profile can still
    name the machinery that holds its time, when the faster one's profile does not hold it; "not
    decided" where its share is too near the threshold for a re-run to name the same remedy."""
    held = remedies.weighed(slow, scenario_path)
    if held is None:
        return None
    other = remedies.weighed(fast, scenario_path)
    if other is not None and other.entry.key == held.entry.key:
        return None
    alone = f"{slow.name}'s profile (alone: no stage split backs it)"
    if not held.decided:
        return f"{alone}: {remedies.undecided_words(held)}"
    return (
        f"{alone} puts its time in {held.row.function}, {held.entry.holds}, which {fast.name}'s does not: "
        f"{held.entry.remedy}"
    )


def verdicts(
    result: RunResult,
    baseline: str | None = None,
    splits: Mapping[str, Reconciliation | None] | None = None,
    cache: Resampled | None = None,
) -> list[tuple[str, str]]:
    """(variant, sentence) for every measured variant against the baseline; in a run over several
    Python environments, the reference environment's variants against the baseline, then each other
    environment's variant against the same variant in the reference, led by the versions that differ.

    ``splits``: each variant's gap to the baseline split by stage, where the caller made them already;
    ``cache``: each variant's resampled stages, kept between calls on one result."""
    base, _ = against(result, baseline)
    if base is None:
        return []
    versions = {(qualified(c.variant, c.environment)): c.versions for c in changes(result)}
    cache = {} if cache is None else cache  # each variant resampled once for all its pairs
    found = []
    said: set[str] = set()  # baselines whose tried remedy was said
    for name, against_name in pairs(result, base):
        known = splits is not None and against_name == base and name in splits
        split = splits[name] if known and splits is not None else True
        sentence = verdict(result, name, against_name, split, cache)
        attempt = tried.words(result, name, against_name)
        if attempt is None and against_name not in said:  # the baseline's own, said once
            attempt = tried.words(result, against_name, name, named=True)
            if attempt:
                said.add(against_name)
        if sentence and attempt:  # what tuiperf tried itself, with its measured effect
            sentence = f"{sentence.removesuffix('.')}; {attempt}."
        if sentence and name in versions:
            sentence = f"{versions[name]}: {sentence}"
        found.append((name, sentence))
    return [(name, sentence) for name, sentence in found if sentence]
