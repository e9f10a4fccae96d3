"""The options several commands take, each declared here once with one meaning and one help text.

A command adds the ones that mean something for it: `--no-history` only where a run is stored, `--json`
only where text can be printed as JSON instead, `--force` only where a file is written.
"""

from __future__ import annotations

import argparse

from tuiperf.cli.wrap import MIN_WIDTH


def columns(text: str) -> int:
    """``--width``'s value: a whole number of columns, at least what any layout needs."""
    try:
        width = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of columns: {text!r}") from None
    if width < MIN_WIDTH:
        raise argparse.ArgumentTypeError(f"at least {MIN_WIDTH} columns, got {width}")
    return width


def width(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--width",
        type=columns,
        metavar="COLUMNS",
        help="lay the text out for this many columns (default: $COLUMNS, else the terminal's, else 80, also piped)",
    )


def print_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def force(parser: argparse.ArgumentParser, what: str) -> None:
    """``--force``: replace an existing output file (a regular file only, never a link or a device)."""
    parser.add_argument("--force", action="store_true", help=f"replace {what} if it exists")


def scenario_dirs(parser: argparse.ArgumentParser, dest: str = "scenarios") -> None:
    parser.add_argument(
        "--scenarios",
        action="append",
        default=[],
        metavar="DIR",
        dest=dest,
        help="extra folder of scenario files (repeatable; also $TUIPERF_SCENARIOS)",
    )


def history(parser: argparse.ArgumentParser, *, stores: bool, prefix: str = "") -> None:
    """``--history PATH`` where the history is read or written; ``--no-history`` only where a run is stored."""
    parser.add_argument(
        "--history",
        default=None,
        metavar="PATH",
        dest=f"{prefix}history",
        help="the run history database (default: $TUIPERF_HISTORY, else your data folder)",
    )
    if stores:
        parser.add_argument(
            "--no-history", action="store_true", dest=f"{prefix}no_history", help="do not store this run in the history"
        )


def screenshots(parser: argparse.ArgumentParser, dest: str = "screenshots") -> None:
    parser.add_argument(
        "--screenshots",
        default=None,
        metavar="DIR",
        dest=dest,
        help="where the app's `s` saves screenshots (and `t` traces, in DIR/../traces) "
        "(default: tuiperf/screenshots in your documents folder)",
    )


def sweep(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sweep",
        action="append",
        default=[],
        metavar="NAME=V1,V2,...",
        help="measure once per value of one parameter (log-log plot, slopes); "
        "given twice, once per cell of the grid of both (a table per variant)",
    )
