"""The command line: ``tuiperf`` opens the explorer; subcommands run the same core headless.

Options given before the command (``tuiperf --dispatch sync run X``) apply to the command as if given
after it; folders given in both places add up. User errors (unknown scenario, bad parameter, bad
device, a file that exists) exit with status 2 and one line on stderr, before anything is measured.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tuiperf.catalog.templates import DEFAULT_TEMPLATE, TEMPLATES
from tuiperf.cli import flags
from tuiperf.cli.completion import KINDS, add_print_completion, print_words, with_completion
from tuiperf.common.errors import TuiperfError
from tuiperf.common.version import __version__
from tuiperf.contract import options

USAGE_ERROR = 2
COMMANDS = (
    *("app", "list", "devices", "run", "show", "compare", "screenshot", "new", "history", "export", "trace"),
    "env",  # Python environments (issue 28)
    "check",
    "serve",  # the explorer in a browser tab (issue 39)
    "calibrate",  # this machine's process-to-process spread (issue 42)
    "machine",  # what would make runs unstable here (issue 55)
    "time",  # statements timed against each other (issue 55)
)
EXIT_STATUSES = """exit status:
  0    done
  1    a variant failed (run, check), the guard found an unfair pair (check), a slowdown beyond
       --fail-above (compare), a result file not written (run)
  2    bad input, said in one line before anything is measured
  130  interrupted (Ctrl-C): what was measured so far is kept"""


def _global(parser: argparse.ArgumentParser) -> None:
    """Options also accepted before the command (``tuiperf --dispatch async run X``), under their own
    names: :func:`parse_args` merges them with the command's."""
    dispatch = next(row for row in options.declared() if row.name == "dispatch")
    parser.add_argument(
        dispatch.option.flag or "", choices=dispatch.option.choices, dest="global_dispatch", help=dispatch.option.help
    )
    flags.scenario_dirs(parser, dest="global_scenarios")
    flags.history(parser, stores=True, prefix="global_")
    flags.screenshots(parser, dest="global_screenshots")


def _measuring(parser: argparse.ArgumentParser, command: str) -> None:
    """What to measure and how: the options `run`, `screenshot`, `trace` and the app's initial form share
    (the run options come from their one table, :mod:`tuiperf.contract.options`)."""
    with_completion(
        parser.add_argument(
            "--set", action="append", default=[], metavar="NAME=VALUE", help="parameter value (repeatable)"
        ),
        "params",
    )
    with_completion(
        parser.add_argument("--variants", metavar="A,B", help="comma-separated variants to run (default: all)"),
        "variants",
    )
    parser.add_argument("--device", metavar="DEV", help="cpu:0, gpu, 1, ... (default: the first device)")
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME",
        dest="environments",
        help="measure in this Python environment (`tuiperf env list`); repeat to compare environments in one "
        "interleaved run, the first being the reference (default: current)",
    )
    options.add_arguments(parser, command)


def _run_outputs(parser: argparse.ArgumentParser) -> None:
    """Where a measuring command writes its result besides the report (``run``, ``time``)."""
    parser.add_argument("--out", metavar="FILE.json", help="also write the result document (JSON) to this file")
    parser.add_argument("--json", dest="out", help=argparse.SUPPRESS)  # the older name of --out
    parser.add_argument("--export-markdown", metavar="FILE.md", help="also write the result as Markdown (an issue)")
    parser.add_argument("--export-csv", metavar="FILE.csv", help="also write every sample as CSV")
    flags.force(parser, "the --out and --export-* files")
    parser.add_argument("--profiles", action="store_true", help="print the Python profile of each variant")
    flags.width(parser)
    parser.add_argument("--in-process", action="store_true", help="measure in this process (no measuring process)")


def _scenario_id(parser: argparse.ArgumentParser) -> None:
    with_completion(
        parser.add_argument("scenario", metavar="ID", help="the scenario's id (`tuiperf list` shows them)"), "ids"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tuiperf",
        description="Explore the per-call cost of JAX code. `tuiperf` alone opens the explorer.",
        epilog=EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"tuiperf {__version__}")
    add_print_completion(parser)
    _global(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    app = commands.add_parser("app", help="the explorer (the default; `tuiperf ID` opens it on scenario ID)")
    flags.scenario_dirs(app)
    flags.history(app, stores=True)
    flags.screenshots(app)
    _measuring(app, "app")
    with_completion(app.add_argument("scenario", metavar="ID", nargs="?", help="select this scenario at start"), "ids")
    app.add_argument("--no-mouse", action="store_true", help="leave the mouse to the terminal (copy and paste)")

    serve = commands.add_parser(
        "serve", help="the explorer in a browser tab at http://127.0.0.1:PORT (textual-serve); options as for app"
    )
    flags.scenario_dirs(serve)
    flags.history(serve, stores=True)
    flags.screenshots(serve)
    _measuring(serve, "app")
    with_completion(
        serve.add_argument("scenario", metavar="ID", nargs="?", help="select this scenario at start"), "ids"
    )
    serve.add_argument("--no-mouse", action="store_true", help=argparse.SUPPRESS)
    serve.add_argument("--port", type=int, default=8000, help="the port on 127.0.0.1 (default 8000)")
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the browser may use besides 127.0.0.1, localhost and [::1] (repeatable)",
    )

    listing = commands.add_parser("list", help="list scenarios, their parameters and variants")
    flags.scenario_dirs(listing)
    listing.add_argument(
        "--fresh",
        action="store_true",
        help="import every scenario file again (default: the last list where no scenario file changed since)",
    )
    listing.add_argument("--complete", choices=KINDS, help=argparse.SUPPRESS)  # for the completion scripts
    listing.add_argument("--line", default="", help=argparse.SUPPRESS)
    flags.print_json(listing)
    flags.width(listing)

    devices = commands.add_parser("devices", help="list JAX devices")
    flags.print_json(devices)

    run = commands.add_parser("run", help="measure a scenario and print a report", epilog=EXIT_STATUSES)
    run.formatter_class = argparse.RawDescriptionHelpFormatter
    flags.scenario_dirs(run)
    flags.history(run, stores=True)
    _measuring(run, "run")
    _scenario_id(run)
    flags.sweep(run)
    _run_outputs(run)

    timed = commands.add_parser(
        "time",
        help="measure Python statements against each other (each a variant, as `run` measures them)",
        epilog=EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    flags.history(timed, stores=True)
    _measuring(timed, "run")
    timed.add_argument("statements", nargs="+", metavar="STATEMENT", help="a statement to time, e.g. 'f(x)'")
    timed.add_argument(
        "-s",
        "--setup",
        action="append",
        default=[],
        metavar="CODE",
        help="run once before timing, in every statement's namespace (repeatable: one line each)",
    )
    _run_outputs(timed)

    show = commands.add_parser("show", help="print a saved result: a history run id or a JSON file")
    flags.scenario_dirs(show)
    flags.history(show, stores=False)
    show.add_argument("path", metavar="RUN", help="a run id from `tuiperf history`, or a result file")
    show.add_argument("--profiles", action="store_true", help="print the Python profile of each variant")
    flags.width(show)

    compare = commands.add_parser("compare", help="compare two saved results (run ids or files), variant by variant")
    flags.scenario_dirs(compare)
    flags.history(compare, stores=False)
    compare.add_argument("old", metavar="OLD", help="a history run id or a result file")
    compare.add_argument("new", metavar="NEW", help="a history run id or a result file")
    compare.add_argument(
        "--any-scenario", action="store_true", help="compare results of different scenarios (same-named variants)"
    )
    compare.add_argument("--force", dest="any_scenario", action="store_true", help=argparse.SUPPRESS)  # older name
    compare.add_argument(
        "--fail-above",
        type=float,
        metavar="PCT",
        help="exit 1 if a variant is slower by more than PCT %% (the whole 95%% CI above it)",
    )
    flags.width(compare)

    history = commands.add_parser("history", help="list stored runs (newest first), or prune them")
    flags.history(history, stores=False)
    history.add_argument("--scenario", metavar="ID", help="only this scenario's runs")
    history.add_argument(
        "--by-commit",
        metavar="ID",
        help="scenario ID's medians per git commit with 95%% intervals, marking steps beyond the intervals",
    )
    history.add_argument(
        "--measure",
        choices=("call", "compile"),
        help="compile: only the runs measured with --measure compile, and with --by-commit their compile times "
        "(trace + lower + compile) per commit; call: with --by-commit, the medians per call (the default)",
    )
    history.add_argument("--since", metavar="DATE", help="only runs started on or after DATE (2026-11-01, UTC)")
    history.add_argument("--limit", type=int, default=50, metavar="N", help="at most N runs (default 50; 0: all)")
    flags.print_json(history)
    flags.width(history)
    history.add_argument(
        "--prune-before", metavar="DATE", help="delete runs started before DATE (2026-11-01 or 2026-11-01T12:00, UTC)"
    )
    history.add_argument("--keep", type=int, metavar="N", help="delete all but the newest N runs")
    history.add_argument("--yes", action="store_true", help="delete without asking (needed when not at a terminal)")

    export = commands.add_parser("export", help="write a stored run as Markdown, CSV (samples), JSON, HTML or a script")
    flags.scenario_dirs(export)
    flags.history(export, stores=False)
    export.add_argument("run", metavar="RUN", help="a history run id or a result file")
    export.add_argument(
        "--format",
        choices=("json", "csv", "markdown", "script", "ops-csv", "html"),
        default="markdown",
        help="markdown: for an issue; csv: every sample; script: a Python file that re-times it without tuiperf; "
        "ops-csv: every row of each variant's operations table; html: one self-contained page with the run and "
        "its scenario's medians by git commit from the history, for a CI artifact (default: markdown)",
    )
    export.add_argument("--out", metavar="FILE", help="where to write (default: print it)")
    flags.force(export, "the --out file")

    trace = commands.add_parser("trace", help="a JAX profiler trace of a variant's steady-state calls (Perfetto)")
    flags.scenario_dirs(trace)
    _measuring(trace, "trace")
    _scenario_id(trace)
    trace.add_argument("--variant", required=True, metavar="NAME", help="the variant to trace")
    trace.add_argument("--calls", type=int, default=100, metavar="N", help="calls to record (default 100)")
    trace.add_argument("--out", default="traces", metavar="DIR", help="folder for the trace (default ./traces)")

    new = commands.add_parser("new", help="create a scenario file from a template and print its path")
    new.add_argument("name", metavar="NAME", help="the scenario's id, e.g. my-mlp (the file is my_mlp.py)")
    new.add_argument(
        "--template",
        default=DEFAULT_TEMPLATE,
        choices=[t.name for t in TEMPLATES],
        help=f"what the file starts as (default: {DEFAULT_TEMPLATE})",
    )
    new.add_argument(
        "--dir",
        metavar="DIR",
        help="folder to write into (default: the first --scenarios or $TUIPERF_SCENARIOS folder, else your own)",
    )
    flags.force(new, "the scenario file")
    flags.scenario_dirs(new)

    shot = commands.add_parser("screenshot", help="run a scenario headless and save an SVG of the explorer")
    flags.scenario_dirs(shot)
    _measuring(shot, "screenshot")
    _scenario_id(shot)
    flags.sweep(shot)
    shot.add_argument("--out", required=True, metavar="FILE.svg", help="the SVG to write (and FILE.png with `png`)")
    flags.force(shot, "the --out file")
    shot.add_argument("--tab", default=None, help="result tab to show (histogram, breakdown, stats, ...)")
    shot.add_argument("--size", default="120x40", metavar="WxH", help="terminal size in cells (default 120x40)")

    check = commands.add_parser(
        "check",
        help="load a scenario file and call each variant once, timing nothing: what a run would find",
        epilog=EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument(
        "files", nargs="+", metavar="FILE", help="scenario files (each a .py defining `scenario = Scenario(...)`)"
    )
    check.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="parameter value (repeatable)")
    check.add_argument("--variants", metavar="A,B", help="comma-separated variants to check (default: all)")
    check.add_argument("--device", metavar="DEV", help="cpu:0, gpu, 1, ... (default: the first device)")
    dispatch = next(row for row in options.declared() if row.name == "dispatch")
    check.add_argument(dispatch.option.flag or "", choices=dispatch.option.choices, help=dispatch.option.help)

    from tuiperf.cli import calibrate, envs, machine

    envs.add_parser(commands)
    calibrate.add_parser(commands)
    machine.add_parser(commands)
    return parser


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    argv = list(sys.argv[1:] if argv is None else argv)
    first = _first_positional(argv)
    if first == len(argv) and any(a in ("-h", "--help", "--version") for a in argv):
        pass  # the top-level help, or the version
    elif first == len(argv) or argv[first] not in COMMANDS:
        argv = [*argv[:first], "app", *argv[first:]]  # `tuiperf` and `tuiperf ID` open the explorer
    args = build_parser().parse_args(argv)
    args.argv, args.command_at = argv, first  # as parsed (`serve` gives the explorer the same words)
    args.scenarios = [*args.global_scenarios, *getattr(args, "scenarios", [])]
    args.dispatch = getattr(args, "dispatch", None) or args.global_dispatch  # None: the table's default
    args.history = getattr(args, "history", None) or args.global_history
    args.no_history = getattr(args, "no_history", False) or args.global_no_history
    args.screenshots = getattr(args, "screenshots", None) or args.global_screenshots  # None: the app's default
    return args


def _first_positional(argv: list[str]) -> int:
    """Index of the first word that is neither a top-level option nor its value."""
    takes_value = {"--scenarios", "--dispatch", "--screenshots", "--history", "--print-completion"}
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] in takes_value else 1
    return min(i, len(argv))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    from tuiperf.cli import calibrate, check, envs, listing, machine, measure, results, serve, timing

    handlers = {
        "app": measure.cmd_app,
        "list": lambda args: (
            print_words(args.complete, args.line, args.scenarios or [], build_parser)
            if args.complete
            else listing.cmd_list(args)
        ),
        "devices": listing.cmd_devices,
        "run": measure.cmd_run,
        "show": results.cmd_show,
        "compare": results.cmd_compare,
        "screenshot": measure.cmd_screenshot,
        "new": listing.cmd_new,
        "history": results.cmd_history,
        "export": results.cmd_export,
        "trace": measure.cmd_trace,
        "env": envs.cmd_env,
        "check": check.cmd_check,
        "serve": serve.cmd_serve,
        "calibrate": calibrate.cmd_calibrate,
        "machine": machine.cmd_machine,
        "time": timing.cmd_time,
    }
    try:
        return handlers[args.command](args)
    except TuiperfError as exc:
        from tuiperf.common.text import one_line

        print(f"tuiperf: {one_line(exc)}", file=sys.stderr)
        return USAGE_ERROR
