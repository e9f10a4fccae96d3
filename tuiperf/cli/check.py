"""`tuiperf check FILE`: what a run of a scenario file would find, without measuring it.

The file is imported by a loader process of its own (as `tuiperf list` does: an import that raises,
exits, crashes or hangs is one line), then run once in a measuring process with the smallest settings
there are: one sample per variant, no profile, a budget too small to sample anything further. That
builds every variant, makes its first call and a few warm-up calls, and runs the equivalence guard;
the times it takes are not shown. Exit 0: every variant ran (or skipped, saying why) and the guard
found nothing; 1: a variant failed, the setup failed or the guard found equivalent variants that
differ; 2: bad input (no such file, a file that does not load, a bad --set value).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from tuiperf.api.params import parse_assignments, parse_name_list
from tuiperf.common.errors import ParamError, ScenarioError
from tuiperf.common.text import one_line
from tuiperf.common.units import counted
from tuiperf.contract.catalog import LoadError, ScenarioEntry
from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import Runner, RunRequest
from tuiperf.results.model import RunResult

FINE, FAILS, BAD_INPUT = 0, 1, 2


def check_settings(dispatch: str | None) -> RunSettings:
    """The smallest run: every variant built, called and guarded; sampling and the breakdown end at once."""
    return RunSettings(samples=1, budget_s=0.01, profile=False, dispatch=dispatch or RunSettings().dispatch)


Describe = Callable[[Path], ScenarioEntry | LoadError]


def describe_isolated(path: Path) -> ScenarioEntry | LoadError:
    """The file as a disposable loader process describes it (what `tuiperf list` would show)."""
    from tuiperf.contract.protocol import DescribeFile
    from tuiperf.processes.loader import IMPORT_TIMEOUT_S, import_failure
    from tuiperf.processes.process import MeasuringProcess, ProcessStopped

    child = MeasuringProcess(role="loader")
    try:
        return child.request(DescribeFile(str(path)), timeout_s=IMPORT_TIMEOUT_S).entry
    except ProcessStopped as stop:
        return LoadError(path=str(path), error=import_failure(stop))
    finally:
        child.close()


def cmd_check(args: argparse.Namespace) -> int:
    for name in args.files:
        if not Path(name).is_file():
            raise ParamError(f"{one_line(name)}: no such scenario file")
    values = parse_assignments(args.set)
    variants = parse_name_list(args.variants) if args.variants else None
    from tuiperf.processes.runner import ProcessRunner

    worst = FINE
    for name in args.files:
        runner = ProcessRunner(calibrate_first=False)  # a fresh measuring process per file, closed after it
        try:
            found = check_file(Path(name), describe_isolated, runner, values, variants, args.device, args.dispatch)
        finally:
            runner.close()
        worst = max(worst, found)
    return worst


def check_file(
    path: Path,
    describe: Describe,
    runner: Runner,
    values: dict[str, str] | None = None,
    variants: list[str] | None = None,
    device: str | None = None,
    dispatch: str | None = None,
) -> int:
    """Check one file, printing what a run would find; its exit status."""
    path = path.resolve()
    entry = describe(path)
    if isinstance(entry, LoadError):
        print(f"{one_line(entry.where)}: does not load: {one_line(entry.error)}")
        return BAD_INPUT
    values = values or {}
    print(f"{one_line(entry.id)}: {one_line(entry.title)} ({one_line(path)})")
    if entry.params:
        shown = ", ".join(f"{one_line(p.name)}={one_line(values.get(p.name, p.default))}" for p in entry.params)
        print(f"parameters: {shown}")
    settings = check_settings(dispatch)
    request = RunRequest(
        scenario=entry.id, params=values, variants=variants, device=device, scenario_path=str(path), settings=settings
    )
    try:
        result = runner.run(request)
    except ScenarioError as exc:  # the file loads, but a run cannot start (its setup raised)
        print(f"FAILED: {one_line(exc)}")
        return FAILS
    return report(result)


def report(result: RunResult) -> int:
    """One line per variant, then the guard's findings; the exit status."""
    failed = False
    for variant in result.variants:
        name = one_line(variant.name)
        if variant.skipped:
            print(f"  skipped  {name}: {one_line('; '.join(variant.notes) or 'no reason given')}")
        elif not variant.ok:
            failed = True
            failure = variant.failure
            phase = f" ({failure.phase})" if failure is not None and failure.phase else ""
            print(f"  FAILED   {name}{phase}: {one_line(failure.error if failure is not None else 'no error given')}")
        else:
            print(f"  ok       {name}")
    if result.error:
        failed = True
        print(f"FAILED: {one_line(result.error)}")
    guard = result.equivalence
    for mismatch in guard.mismatches:
        failed = True
        a, b, quantity = one_line(mismatch.a), one_line(mismatch.b), one_line(mismatch.quantity)
        print(f"guard: {a} differs from {b} in {quantity}: {one_line(mismatch.detail)}")
    if len(guard.checked) > 1 and not guard.mismatches:
        # the reference is among the checked: "2 equivalent variants agree with jit" counted jit
        others = len([name for name in guard.checked if name != guard.reference])
        verb = "agrees" if others == 1 else "agree"
        print(f"guard: {counted(others, 'other variant')} {verb} with {one_line(guard.reference)}")
    for note in guard.notes:
        print(f"guard note: {one_line(note)}")
    print("FAILED: a run would report the failures above" if failed else "fine: a run would measure every variant")
    return FAILS if failed else FINE
