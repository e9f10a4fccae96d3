"""The guard step of a pass: check that the measured variants meant to compute the same thing do
(:mod:`tuiperf.measuring.guard` compares), say where they differ, and keep each variant's output for
the comparison across environments when the run was asked for it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tuiperf.common.units import format_bytes
from tuiperf.contract.events import PhaseChanged
from tuiperf.measuring.context import Outcomes, RunContext
from tuiperf.measuring.guard import Costs, Subject, check, describe, digest
from tuiperf.measuring.prepare import Prepared
from tuiperf.results.model import Equivalence, Mismatch, Scalar
from tuiperf.results.ops import program_differences


def guard(ctx: RunContext, params: dict[str, Scalar], prepared: list[Prepared], found: Outcomes) -> None:
    scenario = ctx.resolved.scenario
    ctx.emit(PhaseChanged("guard", None, "checking that equivalent variants compute the same thing"))
    checked = [p for p in prepared if scenario.variants[p.name].same_as_default and found.results[p.name].ok]
    outputs = ctx.policy.guard_outputs(checked)
    subjects = [
        subject_of(p, output, check_costs=scenario.variants[p.name].check_costs)
        for p, output in zip(checked, outputs, strict=True)
    ]
    reference = scenario.reference_name()
    reference = reference if any(s.name == reference for s in subjects) else None
    tolerance = scenario.tolerance_for(SimpleNamespace(**params))
    keep_outputs(ctx, prepared, tolerance, found)
    findings = check(subjects, tolerance, reference)
    mismatches = findings.mismatches
    found.warnings.extend(describe(mismatches))
    for m in mismatches:
        found.amend(m["a"], warnings=[f"differs from {m['b']} in {m['quantity']}: {m['detail']}"])
    found.equivalence = Equivalence(
        reference=reference or (subjects[0].name if subjects else None),
        checked=[s.name for s in subjects],
        mismatches=[Mismatch(**m) for m in mismatches],
        notes=[with_operations(note, subjects, found) for note in findings.notes] + constant_notes(checked),
    )


BAKED_MIN_BYTES = 64 * 1024  # smaller constants are the program's own (iota tables, padding values)


def constant_notes(checked: list[Prepared]) -> list[str]:
    """Each equivalent variant whose program holds arrays as constants (a closure's captured weights are
    compiled into the program) where another's holds a quarter as much or less: both sizes, measured
    in the compiled HLO."""
    sized = [(p.name, p.built.program.constant_bytes) for p in checked if p.built.program.constant_bytes is not None]
    notes = []
    for name, held in sized:
        others = [(n, b) for n, b in sized if n != name]
        if held < BAKED_MIN_BYTES or not others:
            continue
        least_name, least = min(others, key=lambda nb: nb[1])
        if least * 4 <= held:
            notes.append(
                f"{name}'s program holds {format_bytes(held)} of constants, {least_name}'s {format_bytes(least)}: "
                "arrays a closure captures are compiled into the program (other values mean another compile)"
            )
    return notes


def with_operations(note: str, subjects: list[Subject], found: Outcomes) -> str:
    """The guard's "same result, different programs" note, with the operations that differ where both
    variants have an operations table."""
    for a in subjects:
        for b in subjects:
            if a is not b and note.startswith(f"{a.name} and {b.name}: same result, different programs"):
                a_ops, b_ops = found.results[a.name].program.ops, found.results[b.name].program.ops
                said = program_differences(a.name, a_ops, b.name, b_ops)
                return f"{note}; {said}" if said else note
    return note


def subject_of(p: Prepared, output: Any, *, check_costs: bool = True) -> Subject:
    """What the guard compares of a prepared variant: its output, its costs, how the author compares it."""
    program = p.built.program
    loops = tuple(program.loops or ())
    costs = Costs(program.flops, program.transcendentals, program.param_count, checked=check_costs, loops=loops)
    return Subject(p.name, output, costs, compare=p.bench.compare, tolerance=p.bench.tolerance)


def keep_outputs(ctx: RunContext, prepared: list[Prepared], tolerance: float, found: Outcomes) -> None:
    """Each measured variant's output, for the comparison across environments (when asked)."""
    digests = ctx.hooks.digests
    if digests is None:
        return
    for p in prepared:
        if not found.results[p.name].ok:
            continue
        try:
            digests[p.name] = digest(subject_of(p, p.first.output), tolerance)
        except BaseException as exc:  # noqa: BLE001 - a projection that fails is reported by the guard
            found.amend(
                p.name,
                notes=[
                    f"its output could not be carried out for the comparison across environments: {type(exc).__name__}"
                ],
            )
