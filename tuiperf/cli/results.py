"""`tuiperf show` and `tuiperf compare`: saved results, read as untrusted files."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.text import Text

from tuiperf.core.errors import TuiperfError


def cmd_show(args: argparse.Namespace) -> int:
    from tuiperf import report
    from tuiperf.core import resultfile

    report.print_result(resultfile.load(args.path), profiles=args.profiles, width=args.width)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    import math

    from tuiperf.core import resultfile
    from tuiperf.core.compare import compare_runs
    from tuiperf.core.text import one_line
    from tuiperf.core.units import format_ns, format_p
    from tuiperf.report import grid

    if args.fail_above is not None and not (math.isfinite(args.fail_above) and args.fail_above >= 0):
        raise TuiperfError(f"--fail-above must be a percentage of 0 or more, got {args.fail_above}")
    old, new = resultfile.load(args.old), resultfile.load(args.new)
    comparison = compare_runs(old, new, force=args.force)
    if not comparison.rows:
        raise TuiperfError("the two results have no measured variant in common")
    console = Console(width=args.width, highlight=False)
    err = Console(stderr=True, width=args.width, highlight=False)
    rows, regressions = [], []
    for row in comparison.rows:
        lo, hi = row.ci95
        slower = args.fail_above is not None and lo > 1 + args.fail_above / 100
        regressions += [row.variant] if slower else []
        rows.append(
            [
                one_line(row.variant) + (" ✗" if slower else ""),
                format_ns(row.old_ns),
                format_ns(row.new_ns),
                f"{row.ratio:.3f}",
                f"{lo:.3f}–{hi:.3f}",
                format_p(row.p_value),
            ]
        )
    title = f"{one_line(new.scenario.id)}: new / old median"
    console.print(grid(title, ["variant", "old", "new", "new/old", "95% CI", "p"], rows, console.width, console))
    for difference in comparison.differences:
        err.print(Text(f"note: the runs differ: {one_line(difference)}", style="yellow"))
    if regressions:
        err.print(Text(f"slower by more than {args.fail_above:g} %: {', '.join(map(one_line, regressions))}"))
        return 1
    return 0
