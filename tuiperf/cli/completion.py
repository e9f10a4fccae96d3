"""Shell completion: ``tuiperf --print-completion bash|zsh|tcsh|fish|powershell`` (built by shtab from
the parser, so it offers exactly its commands and options), completing scenario ids, and a scenario's
variants (``--variants``) and parameter names (``--set``) from the catalog.

The script asks tuiperf itself at completion time: ``tuiperf list --complete ids|variants|params --line
LINE``, LINE being the command line typed so far (each shell names it differently), from which the
scenario id is read with the real parser. The catalog comes from its cache when no scenario file
changed, so a completion costs one short Python start, not a loader process.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable
from typing import Any

# The command line typed so far, as each shell names it (PowerShell: no line: ids only).
_LINE = {"bash": '"$COMP_LINE"', "zsh": "$BUFFER", "tcsh": '"$COMMAND_LINE"', "fish": "(commandline)"}
KINDS = ("ids", "variants", "params")


def complete(kind: str) -> dict[str, Any]:
    """A shtab ``complete`` value: the candidates of ``kind`` that ``tuiperf list --complete`` prints
    for the line typed so far (PowerShell, which names no line: shtab's default)."""
    line = {shell: f"tuiperf list --complete {kind} --line {quoted} 2>/dev/null" for shell, quoted in _LINE.items()}
    bash = f"_tuiperf_complete_{kind}"
    return {
        "bash": bash,
        "zsh": f"($({line['zsh']}))",
        "tcsh": f"`{line['tcsh']}`",
        "fish": f"({line['fish']})",
        "preamble": {"bash": f'{bash}() {{\n  compgen -W "$({line["bash"]})" -- "$1"\n}}'},
    }


def with_completion(action: argparse.Action, kind: str) -> argparse.Action:
    """``action`` (an argument just added) completing the catalog's words of ``kind``."""
    action.complete = complete(kind)  # type: ignore[attr-defined]  # shtab reads this attribute
    return action


def add_print_completion(parser: argparse.ArgumentParser) -> None:
    """``--print-completion SHELL``: a script built from this parser, so it offers exactly its options."""
    try:
        import shtab
    except ImportError:  # a broken install: everything else still works
        return
    shells = ", ".join(shtab.SUPPORTED_SHELLS)
    shtab.add_argument_to(parser, "--print-completion", help=f"print a shell completion script ({shells})")


def print_words(kind: str, line: str, dirs: list[str], parser: Callable[[], argparse.ArgumentParser]) -> int:
    """``tuiperf list --complete KIND --line LINE``: one candidate a line, from the catalog's cache
    where no scenario file changed since (a completion asks at every Tab), with the folders ``dirs``
    and those the line names."""
    from tuiperf.common.text import one_line
    from tuiperf.processes.runner import ProcessRunner

    runner = ProcessRunner([*dirs, *scenario_dirs(line, parser)])
    try:
        catalog = runner.cached_catalog() or runner.catalog()
    finally:
        runner.close()
    for word in words(kind, line, catalog.scenarios, parser):
        print(one_line(word))
    return 0


def words(kind: str, line: str, catalog_entries: Any, parser: Callable[[], argparse.ArgumentParser]) -> list[str]:
    """The candidates of ``kind`` for the command ``line`` typed so far: scenario ids; or the variants
    (after a comma, the list typed so far first) or ``name=`` of the parameters of the scenario the
    line names."""
    if kind == "ids":
        return [s.id for s in catalog_entries]
    typed = parsed(line, parser)
    scenario = getattr(typed, "scenario", None)
    entry = next((s for s in catalog_entries if s.id == scenario), None)
    if entry is None:
        return []
    if kind == "params":
        return [f"{p.name}=" for p in entry.params]
    last = _last_word(line)
    done = last.rsplit(",", 1)[0] + "," if "," in last else ""
    chosen = set(done.split(","))
    return [done + v.name for v in entry.variants if v.name not in chosen]


def scenario_dirs(line: str, parser: Callable[[], argparse.ArgumentParser]) -> list[str]:
    """The ``--scenarios`` folders a partial command line names (before or after its command)."""
    typed = parsed(line, parser)
    return [*(getattr(typed, "global_scenarios", None) or []), *(getattr(typed, "scenarios", None) or [])]


def parsed(line: str, parser: Callable[[], argparse.ArgumentParser]) -> argparse.Namespace | None:
    """A partial command line read by the real parser (``parser()`` builds it; None where the line
    cannot be read yet)."""
    try:
        tokens = shlex.split(line)
    except ValueError:  # an open quote: the word being typed
        return None
    lenient, typed = _lenient(parser()), tokens[1:]
    for end in (len(typed), len(typed) - 1):  # the last word may be an option still waiting for its value
        try:
            return _quietly(lenient, typed[: max(end, 0)])[0]
        except SystemExit:
            continue
    return None


def _lenient(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` with no option required (``screenshot --out``): a line being typed lacks them yet.
    argparse lists a parser's arguments only in ``_actions``."""
    for action in parser._actions:
        if action.option_strings:
            action.required = False
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _lenient(sub)
    return parser


def _quietly(parser: argparse.ArgumentParser, tokens: list[str]) -> tuple[argparse.Namespace, list[str]]:
    import contextlib
    import io

    with contextlib.redirect_stderr(io.StringIO()):  # a partial line is no error to print
        return parser.parse_known_args(tokens)


def _last_word(line: str) -> str:
    return "" if not line or line[-1].isspace() else line.split()[-1]
