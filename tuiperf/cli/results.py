"""`tuiperf show`, `compare`, `history` and `export`: stored runs (history ids or files, read as untrusted)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from tuiperf.common.errors import TuiperfError
from tuiperf.common.files import user_path
from tuiperf.results.model import RunResult

if TYPE_CHECKING:
    from tuiperf.results.compare import CompileChange
    from tuiperf.results.history import StoredRun


def cmd_show(args: argparse.Namespace) -> int:
    from tuiperf.cli import report
    from tuiperf.cli.wrap import checked_width

    report.print_result(load_run(args.path, args)[0], profiles=args.profiles, width=checked_width(args.width))
    return 0


def _covers_note(rows: list[Any]) -> str:
    """What the 95 % intervals of new / old cover (and so what --fail-above gates on)."""
    from tuiperf.results.covers import CALIBRATE_HINT, PROCESSES, ROUNDS

    kinds = {row.covers for row in rows}
    if kinds == {PROCESSES}:
        return "95 % intervals: each run's median over its rounds and process-to-process spread, combined"
    if kinds <= {PROCESSES, ROUNDS}:
        return f"95 % intervals: each run's median over its rounds, in one process each; {CALIBRATE_HINT}"
    return "95 % intervals cover the samples only (a run stored before intervals covered rounds and processes)"


def cmd_compare(args: argparse.Namespace) -> int:
    import math

    from tuiperf.cli.report import grid
    from tuiperf.cli.wrap import Hanging, checked_width, print_trimmed
    from tuiperf.common.text import one_line
    from tuiperf.common.units import format_ns
    from tuiperf.results.compare import compare_runs
    from tuiperf.results.findings import p_cell

    if args.fail_above is not None and not (math.isfinite(args.fail_above) and args.fail_above >= 0):
        raise TuiperfError(f"--fail-above must be a percentage of 0 or more, got {args.fail_above}")
    (old, _), (new, _) = load_run(args.old, args), load_run(args.new, args)
    comparison = compare_runs(old, new, force=args.any_scenario)
    if not comparison.rows:
        unmatched = "; ".join(d for d in comparison.differences if "run only" in d)
        raise TuiperfError(
            "the two results have no measured variant in common" + (f" ({unmatched})" if unmatched else "")
        )
    width = checked_width(args.width)
    console = Console(width=width, highlight=False)
    err = Console(stderr=True, width=width, highlight=False)
    rows, regressions = [], []
    by_point = any(row.point for row in comparison.rows)
    for row in comparison.rows:
        lo, hi = row.ci95
        slower = args.fail_above is not None and lo > 1 + args.fail_above / 100
        regressions += [f"{row.variant} at {row.point}" if row.point else row.variant] if slower else []
        rows.append(
            [one_line(row.point)] * by_point
            + [
                one_line(row.variant) + (" ✗" if slower else ""),
                format_ns(row.old_ns),
                format_ns(row.new_ns),
                f"{row.ratio:.3f}",
                f"{lo:.3f}–{hi:.3f}",
                p_cell(row.p_value, row.finding),
            ]
        )
    title = f"{one_line(new.scenario.id)}: new / old median"
    headers = ["point"] * by_point + ["variant", "old", "new", "new/old", "95% CI", "p"]
    print_trimmed(console, grid(title, headers, rows, console.width, console))
    if comparison.compile_rows:
        print_trimmed(console, compile_grid(comparison.compile_rows, new.scenario.id, console))
    print_trimmed(err, Hanging(_covers_note(comparison.rows), style="dim"))
    for difference in comparison.differences:
        print_trimmed(err, Hanging(f"note: the runs differ: {one_line(difference)}", style="yellow"))
    if regressions:
        slower = ", ".join(map(one_line, regressions))
        print_trimmed(err, Hanging(f"slower by more than {args.fail_above:g} %: {slower}"))
        return 1
    return 0


def compile_grid(changes: list[CompileChange], scenario: str, console: Console) -> Any:
    """``compare``'s second table: compile time (trace + lower + compile, repeated) new / old."""
    from tuiperf.cli.report import grid
    from tuiperf.common.text import one_line
    from tuiperf.common.units import format_ns

    by_point = any(c.point for c in changes)
    rows = [
        [one_line(c.point)] * by_point
        + [
            one_line(c.variant),
            format_ns(c.old_ms * 1e6),  # (".3g ms" read 1.33e+04 ms for a 13.3 s compile)
            format_ns(c.new_ms * 1e6),
            f"{c.ratio:.3f}",
            f"{c.ci95[0]:.3f}–{c.ci95[1]:.3f}",
            "within noise" if c.ci95[0] <= 1 <= c.ci95[1] else "undecided (one process each)" if not c.finding else "",
        ]
        for c in changes
    ]
    title = f"{one_line(scenario)}: compile time (trace + lower + compile, repeated), new / old median"
    headers = ["point"] * by_point + ["variant", "old", "new", "new/old", "95% CI", "verdict"]  # it had none
    return grid(title, headers, rows, console.width, console)


def history_path(args: argparse.Namespace) -> Path | None:
    """--no-history, else --history PATH, else $TUIPERF_HISTORY / the user's data folder."""
    from tuiperf.results.history import default_path

    if getattr(args, "no_history", False):
        return None
    return user_path(args.history) if getattr(args, "history", None) else default_path()


def load_run(ref: str, args: argparse.Namespace) -> tuple[RunResult, str]:
    """A result file, or a run id of the history (a file of that name wins); and a label for it."""
    from tuiperf.results import resultfile
    from tuiperf.results.history import History

    if ref.isascii() and ref.isdigit() and not Path(ref).exists():  # '²'.isdigit() too
        path = history_path(args)
        if path is None:
            raise TuiperfError(f"{ref} is a run id, but the history is turned off (--no-history)")
        with History(path, readonly=True) as history:
            return history.get(int(ref)), f"run {ref}"
    return resultfile.load(ref), ref


def store(result: RunResult, args: argparse.Namespace, err: Console) -> bool:
    """Keep ``result`` in the history; whether it was. A history that cannot be written (a full
    disk, a corrupt page, a read-only folder, a file size limit) is one line, never fatal."""
    import sqlite3

    from tuiperf.common.text import one_line
    from tuiperf.results.history import record

    try:
        run_id = record(result, history_path(args))
    except (TuiperfError, sqlite3.Error, OSError, MemoryError) as exc:
        err.print(Text(f"not stored in the history: {one_line(exc)}", style="yellow"))
        return False
    if run_id is not None:
        err.print(Text(f"stored as run {run_id} (tuiperf show {run_id})", style="dim"))
    return True


def cmd_history(args: argparse.Namespace) -> int:
    import dataclasses
    import json

    from tuiperf.cli.report import Cell, grid
    from tuiperf.cli.wrap import checked_width, print_trimmed
    from tuiperf.common.text import one_line
    from tuiperf.results.history import COMPILE_WORDS, History

    path = history_path(args)
    if path is None:
        raise TuiperfError("the history is turned off (--no-history or TUIPERF_HISTORY=off)")
    if args.prune_before is not None or args.keep is not None:
        return prune(path, args)
    if args.by_commit is not None:
        return history_by_commit(path, args)
    compile_only = args.measure == "compile"
    with History(path, readonly=True) as history:
        runs = history.list(scenario=args.scenario, since=args.since, limit=args.limit or None, measure=args.measure)
        total = history.count(scenario=args.scenario, since=args.since, measure=args.measure)
    if args.json:
        print(json.dumps([dataclasses.asdict(run) for run in runs], indent=1))
        return 0
    console = Console(width=checked_width(args.width), highlight=False)
    # compile times in a column of their own, where a listed run measured them (a listing of runs that
    # measured calls only is as it was)
    compiled = any(run.measured_compile for run in runs)
    rows: list[list[Cell]] = [
        [
            str(run.id),
            one_line(run.started_at[:19].replace("T", " ")),
            one_line(run.scenario),
            _sweep_label(run) + _params(run.params),
            one_line(f"{run.device} {run.dispatch}"),
            one_line(run.jax_version),
            one_line(run.status),
            _medians(run),
            *[[one_line(line) for line in run.compile_texts(" · ")]] * compiled,
        ]
        for run in runs
    ]
    header = ["run", "started", "scenario", "parameters", "device", "jax", "status", "medians"]
    header += ["compile time"] * compiled
    plural = "s" * (total != 1)
    which = " measured with --measure compile" if compile_only else ""
    shown = f"{len(runs)} of {total} runs" if len(runs) < total else f"{total} run{plural}"
    title = f"{shown}{which} in {one_line(path)}" + (f" (medians: per call; {COMPILE_WORDS})" if compiled else "")
    print_trimmed(console, grid(title, header, rows, console.width, console, "run "))
    return 0


def history_by_commit(path: Path, args: argparse.Namespace) -> int:
    """``history --by-commit ID``: the scenario's medians per commit (the runs measured as its newest
    was: same parameters, device, dispatch), steps marked (:mod:`tuiperf.results.by_commit`)."""
    import json

    from tuiperf.cli.report import Cell, grid
    from tuiperf.cli.wrap import checked_width, print_trimmed
    from tuiperf.common.text import one_line
    from tuiperf.common.units import counted, format_ns
    from tuiperf.results.by_commit import commits_in
    from tuiperf.results.history import History

    measure = args.measure or "call"
    with History(path, readonly=True) as history:
        commits = commits_in(history, args.by_commit, since=args.since, measure=measure)
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "commit": c.commit,
                        "dirty": c.dirty,
                        "branch": c.branch,
                        "first_run": c.first_run,
                        "runs": list(c.run_ids),
                        "variants": {name: vars(m) for name, m in c.variants.items()},
                    }
                    | ({"compile": {name: vars(m) for name, m in c.compile.items()}} if c.compile else {})
                    for c in commits
                ],
                indent=1,
            )
        )
        return 0
    if not commits:
        measured = " measured with --measure compile" if measure == "compile" else ""
        print(f"no run of {one_line(args.by_commit)}{measured} with a git commit in {one_line(path)}")
        return 0
    console = Console(width=checked_width(args.width), highlight=False)
    rows: list[list[Cell]] = []
    for c in commits:
        for name, m in c.series(measure).items():
            step = ""
            if m.step is not None:
                step = f"{'▲' if m.step > 1 else '▼'} {(m.step - 1) * 100:+.1f} %"
            rows.append(
                [
                    one_line(c.label),
                    one_line(c.branch),
                    ",".join(str(i) for i in c.run_ids),
                    one_line(name),
                    format_ns(m.median_ns),
                    f"{format_ns(m.low_ns)} – {format_ns(m.high_ns)}",
                    step,
                ]
            )
    steps = sum(1 for c in commits for m in c.series(measure).values() if m.step is not None)
    what = ": compile time (trace + lower + compile, repeated)" if measure == "compile" else ""
    title = (
        f"{one_line(args.by_commit)}{what} by commit ({counted(len(commits), 'commit')}, oldest first; "
        f"{steps or 'no'} step{'s' * (steps != 1)} beyond the 95 % intervals; * changes not committed)"
    )
    headers = ["commit", "branch", "run ids", "variant", "compile" if measure == "compile" else "median"]
    headers += ["95% interval", "step"]
    print_trimmed(console, grid(title, headers, rows, console.width, console))
    return 0


def _sweep_label(run: StoredRun) -> list[str]:
    """A sweep's first line in the parameters column: what it swept, over how many points."""
    if not run.sweep:
        return []
    from tuiperf.common.text import one_line

    return [one_line(run.shape)]


def _medians(run: StoredRun) -> list[str]:
    """A line per variant of a single run; a sweep's a line per point (``n=1: a 1.00 µs · b 2.00 µs``: a
    listing laid out as a record joins the points with ", ")."""
    from tuiperf.common.text import one_line

    return [one_line(line) for line in run.median_texts(" · ")]


def prune(path: Path, args: argparse.Namespace) -> int:
    """Delete stored runs: say which first, then ask (a terminal) or need --yes (a script)."""
    import sys

    from tuiperf.common.text import one_line
    from tuiperf.results.history import History, parse_date

    before = parse_date(args.prune_before, "--prune-before") if args.prune_before is not None else None
    with History(path) as history:
        ids = history.prunable(before=before, keep=args.keep)
        which = [f"started before {before}"] if before else []
        which += [f"all but the newest {args.keep}"] if args.keep is not None else []
        if not ids:
            print(f"no run to delete ({' and '.join(which)}) in {one_line(path)}")
            return 0
        plural = "s" * (len(ids) != 1)
        what = f"{len(ids)} run{plural} ({' and '.join(which)}; ids {_id_ranges(ids)}) from {one_line(path)}"
        if not args.yes:
            if not sys.stdin.isatty():
                raise TuiperfError(f"would delete {what}: pass --yes to delete them")
            answer = input(f"delete {what}? [y/N] ").strip().lower()
            if answer not in ("y", "yes"):
                print("nothing deleted")
                return 1
        deleted = history.delete(ids)
    print(f"deleted {deleted} run{'s' * (deleted != 1)} from {one_line(path)}")
    return 0


def _id_ranges(ids: list[int]) -> str:
    """``1-4, 7, 9-10``: run ids in ranges (a prune of thousands stays one line)."""
    spans: list[list[int]] = []
    for run_id in ids:
        if spans and run_id == spans[-1][1] + 1:
            spans[-1][1] = run_id
        else:
            spans.append([run_id, run_id])
    text = ", ".join(f"{a}-{b}" if b > a else str(a) for a, b in spans[:20])
    return text + (", …" if len(spans) > 20 else "")


def cmd_export(args: argparse.Namespace) -> int:
    from tuiperf.common.files import write_atomic
    from tuiperf.results.export import export

    result, label = load_run(args.run, args)
    from tuiperf.catalog.folders import scenario_files

    if args.format == "html":
        text = html_export(result, args)
    else:
        text = export(result, args.format, run_label=label, scenario_files=scenario_files(args.scenarios))
    if args.out:
        print(write_atomic(args.out, text.encode("utf-8"), force=args.force))
    else:
        print(text, end="")
    return 0


def html_export(result: RunResult, args: argparse.Namespace) -> str:
    """The run's page, with its scenario's runs by commit from the history (none where it is off or
    does not exist yet)."""
    from tuiperf.results.by_commit import commits_in
    from tuiperf.results.history import History
    from tuiperf.results.html_page import page

    path = history_path(args)
    if path is None or not Path(path).exists():
        return page(result)
    with History(path, readonly=True) as history:
        return page(result, commits_in(history, result.scenario.id))


def _params(stored: str) -> list[str]:
    """The history's ``a=1 b=x y`` as its assignments (a value may hold a space: split before ``name=``)."""
    import re

    from tuiperf.common.text import one_line

    return [item for item in re.split(r" (?=[A-Za-z_]\w*=)", one_line(stored)) if item]
