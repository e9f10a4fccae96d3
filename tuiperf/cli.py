"""The command line: ``tuiperf`` opens the explorer; subcommands run the same core headless.

User errors (unknown scenario, bad parameter, bad device) exit with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Sequence
from typing import Any

from tuiperf.core.errors import TuiperfError
from tuiperf.core.params import parse_assignment
from tuiperf.core.runner import DISPATCH_MODES, RunRequest

USAGE_ERROR = 2


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scenarios",
        action="append",
        default=[],
        metavar="DIR",
        help="extra folder of scenario files (repeatable; also $TUIPERF_SCENARIOS)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tuiperf", description="Explore the per-call cost of JAX code.")
    _common(parser)
    parser.add_argument("--screenshots", default="screenshots", metavar="DIR", help="where `s` saves screenshots")
    parser.add_argument("--dispatch", choices=DISPATCH_MODES, default="async", help="JAX CPU dispatch mode")
    commands = parser.add_subparsers(dest="command")

    listing = commands.add_parser("list", help="list scenarios, their parameters and variants")
    _common(listing)
    listing.add_argument("--json", action="store_true", help="print JSON")

    devices = commands.add_parser("devices", help="list JAX devices")
    devices.add_argument("--json", action="store_true", help="print JSON")

    run = commands.add_parser("run", help="measure a scenario and print a report")
    _common(run)
    run.add_argument("scenario", metavar="ID")
    run.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="parameter value (repeatable)")
    run.add_argument("--variants", metavar="A,B", help="comma-separated variants to run (default: all)")
    run.add_argument("--device", metavar="DEV", help="cpu:0, gpu, 1, ... (default: the first device)")
    amount = run.add_mutually_exclusive_group()
    amount.add_argument("--samples", type=int, metavar="N", help="fixed number of samples per variant")
    amount.add_argument(
        "--budget",
        type=float,
        default=3.0,
        metavar="SECONDS",
        help="auto mode: sample until each median's 95%% CI is within ±1%% or this budget ends",
    )
    run.add_argument("--dispatch", choices=DISPATCH_MODES, default="async", help="JAX CPU dispatch mode")
    run.add_argument("--sweep", metavar="NAME=V1,V2,...", help="run once per value of one parameter")
    run.add_argument("--json", metavar="PATH", help="also write the result document to PATH")
    run.add_argument("--force", action="store_true", help="replace the --json file if it exists")
    run.add_argument("--no-profile", action="store_true", help="skip the Python profile of each variant")
    run.add_argument("--profiles", action="store_true", help="print the Python profile of each variant")
    run.add_argument("--in-process", action="store_true", help="measure in this process (no worker process)")

    show = commands.add_parser("show", help="print a saved result document")
    show.add_argument("path")
    show.add_argument("--profiles", action="store_true")

    compare = commands.add_parser("compare", help="compare two saved results, variant by variant")
    compare.add_argument("old")
    compare.add_argument("new")
    compare.add_argument("--force", action="store_true", help="compare results of different scenarios")
    compare.add_argument(
        "--fail-above",
        type=float,
        metavar="PCT",
        help="exit 1 if a variant is slower by more than PCT %% (the whole 95%% CI above it)",
    )

    shot = commands.add_parser("screenshot", help="run a scenario headless and save an SVG of the explorer")
    _common(shot)
    shot.add_argument("scenario", metavar="ID")
    shot.add_argument("--out", required=True, metavar="FILE.svg")
    shot.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    shot.add_argument("--tab", default=None, help="result tab to show (histogram, breakdown, stats, ...)")
    shot.add_argument("--size", default="160x48", metavar="WxH")
    shot.add_argument("--budget", type=float, default=2.0, metavar="SECONDS")
    shot.add_argument("--dispatch", choices=DISPATCH_MODES, default="async")
    return parser


def _params(assignments: Sequence[str]) -> dict[str, str]:
    return dict(parse_assignment(a) for a in assignments)


def _sweep(text: str | None) -> tuple[str, list[str]] | None:
    if text is None:
        return None
    name, values = parse_assignment(text)
    return name, [v.strip() for v in values.split(",") if v.strip()]


def _runner(args: argparse.Namespace, dispatch: str = "async") -> Any:
    if getattr(args, "in_process", False):
        from tuiperf.core.inprocess import InProcessRunner

        return InProcessRunner(args.scenarios)
    from tuiperf.core.worker import WorkerRunner

    return WorkerRunner(dispatch, args.scenarios)


def cmd_list(args: argparse.Namespace) -> int:
    from tuiperf.core.catalog import load_catalog

    catalog = load_catalog(args.scenarios).describe()  # scenario files import JAX; fine for the CLI
    if args.json:
        print(json.dumps(catalog, indent=1))
        return 0
    from rich.console import Console

    console = Console()
    for s in catalog["scenarios"]:
        console.print(f"[bold]{s['id']}[/bold]  {s['title']}")
        params = "  ".join(f"{p['name']}={p['default']}" for p in s["params"])
        console.print(f"  params:   {params or '(none)'}", highlight=False)
        console.print(f"  variants: {', '.join(v['name'] for v in s['variants'])}", highlight=False)
    for b in catalog["broken"]:
        where = f"{b['path']}:{b['line']}" if b["line"] else b["path"]
        console.print(f"[red]broken[/red] {where}: {b['error']}", highlight=False)
    return 0


def cmd_devices(args: argparse.Namespace) -> int:
    from tuiperf.core.env import list_devices

    devices = list_devices()
    if args.json:
        print(json.dumps(devices, indent=1))
    else:
        for d in devices:
            print(f"{d['id']:10} {d['kind']}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from tuiperf import report
    from tuiperf.core import resultfile
    from tuiperf.core.files import check_writable

    if args.json is not None:
        check_writable(args.json, force=args.force)  # fail now, not after the run
    request = RunRequest(
        scenario=args.scenario,
        params=_params(args.set),
        variants=[v.strip() for v in args.variants.split(",")] if args.variants else None,
        device=args.device,
        dispatch=args.dispatch,
        samples=args.samples,
        budget_s=args.budget,
        sweep=_sweep(args.sweep),
        scenario_dirs=args.scenarios,
        profile=not args.no_profile,
    )
    runner = _runner(args, args.dispatch)
    cancel = threading.Event()
    err = Console(stderr=True)
    try:
        with _progress(err) as on_event:
            doc = runner.run(request, on_event, cancel)
    except KeyboardInterrupt:
        cancel.set()
        err.print("cancelled")
        return 130
    finally:
        runner.close()
    report.print_result(doc, Console(), profiles=args.profiles)
    if args.json is not None:
        path = resultfile.save(doc, args.json, force=args.force)
        err.print(f"wrote {path}")
    points = doc.points or [doc]
    failed = [v.name for point in points for v in point.variants if v.status == "failed"]
    return 1 if failed or doc.error else 0


class _progress:
    """A one-line live status on stderr (phase, progress, current medians) when it is a terminal."""

    def __init__(self, console: Any) -> None:
        self.console = console
        self.status = None
        self.phase = ""

    def __enter__(self):
        from tuiperf.core.events import PhaseChanged, Progress
        from tuiperf.core.stats import format_ns

        if self.console.is_terminal:
            self.status = self.console.status("starting the measuring process…")
            self.status.start()

        def on_event(event: Any) -> None:
            if self.status is None:
                return
            if isinstance(event, PhaseChanged):
                self.phase = f"{event.phase} {event.variant or ''}".strip()
            if isinstance(event, Progress):
                eta = f", ~{event.eta_s:.0f} s left" if event.eta_s is not None else ""
                best = "  ".join(f"{k} {format_ns(v)}" for k, v in list(event.estimates_ns.items())[:4])
                self.status.update(f"{self.phase}: {100 * event.fraction:.0f} %{eta}  {best}")
            elif isinstance(event, PhaseChanged):
                self.status.update(self.phase)

        return on_event

    def __exit__(self, *exc: object) -> None:
        if self.status is not None:
            self.status.stop()


def cmd_show(args: argparse.Namespace) -> int:
    from tuiperf import report
    from tuiperf.core import resultfile

    report.print_result(resultfile.load(args.path), profiles=args.profiles)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from tuiperf.core import resultfile
    from tuiperf.core.compare import compare_runs
    from tuiperf.core.units import format_ns

    old, new = resultfile.load(args.old), resultfile.load(args.new)
    comparison = compare_runs(old, new, force=args.force)
    if not comparison.rows:
        raise TuiperfError("the two results have no measured variant in common")
    table = Table(title=f"{new.scenario.id}: new / old median", title_justify="left")
    for column in ("variant", "old", "new", "new/old", "95% CI", "p"):
        table.add_column(column, justify="left" if column == "variant" else "right", no_wrap=True)
    regressions = []
    for row in comparison.rows:
        lo, hi = row.ci95
        slower = args.fail_above is not None and lo > 1 + args.fail_above / 100
        regressions += [row.variant] if slower else []
        table.add_row(
            row.variant,
            format_ns(row.old_ns),
            format_ns(row.new_ns),
            f"{row.ratio:.3f}",
            f"{lo:.3f}–{hi:.3f}",
            f"{row.p_value:.2g}",
            style="red" if slower else None,
        )
    Console().print(table)
    for difference in comparison.differences:
        print(f"note: the runs differ: {difference}", file=sys.stderr)
    if regressions:
        print(f"slower by more than {args.fail_above:g} %: {', '.join(regressions)}", file=sys.stderr)
        return 1
    return 0


def cmd_screenshot(args: argparse.Namespace) -> int:
    from tuiperf.tui.screenshot import take_screenshot

    try:
        width, height = (int(x) for x in args.size.lower().split("x"))
    except ValueError:
        raise TuiperfError(f"--size must look like 120x40, got {args.size!r}") from None
    runner = _runner(args, args.dispatch)
    try:
        path = take_screenshot(
            runner,
            args.scenario,
            args.out,
            params=_params(args.set),
            tab=args.tab,
            size=(width, height),
            budget_s=args.budget,
            dispatch=args.dispatch,
        )
    finally:
        runner.close()
    print(f"wrote {path}")
    return 0


def cmd_app(args: argparse.Namespace) -> int:
    from tuiperf.tui.app import main as run_app

    run_app(scenario_dirs=args.scenarios, screenshots_dir=args.screenshots, dispatch=args.dispatch)
    return 0


COMMANDS = {
    "list": cmd_list,
    "devices": cmd_devices,
    "run": cmd_run,
    "show": cmd_show,
    "compare": cmd_compare,
    "screenshot": cmd_screenshot,
    None: cmd_app,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except TuiperfError as exc:
        print(f"tuiperf: {exc}", file=sys.stderr)
        return USAGE_ERROR


if __name__ == "__main__":
    sys.exit(main())
