"""`tuiperf env add | create | list | remove`: the Python environments a run can measure in.

Each environment is shown as its name, Python (version and path), the measured libraries' versions and
a status, asked of its interpreter now (:func:`tuiperf.processes.python_envs.probe`); one that cannot
be asked says why and the others are still listed. What an interpreter reports is data: shown inert.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import msgspec
from rich.console import Console, RenderableType
from rich.text import Text

from tuiperf.cli import flags
from tuiperf.cli.wrap import Flow, Hanging, checked_width, print_trimmed
from tuiperf.common.errors import PythonEnvError
from tuiperf.common.text import inert, inert_json, one_line
from tuiperf.processes import python_envs
from tuiperf.processes.python_envs import LIBRARIES, Probe, PythonEnv

INTERRUPTED = 130


def add_parser(commands: Any) -> None:
    """The `env` command and its four subcommands (``commands``: the top-level subparsers)."""
    env = commands.add_parser("env", help="Python environments to measure in: add, create, list, remove")
    verbs = env.add_subparsers(dest="env_command", required=True, metavar="{add,create,list,remove}")
    add = verbs.add_parser("add", help="register an interpreter that has jax")
    add.add_argument("name", metavar="NAME", help="letters, digits and - _ . (not 'current')")
    add.add_argument("python", metavar="PYTHON", help="its interpreter: a path (a venv's bin/python) or a name on PATH")
    create = verbs.add_parser(
        "create", help="build a virtual environment in your data folder with pip (downloads) and register it"
    )
    create.add_argument("name", metavar="NAME", help="letters, digits and - _ . (not 'current')")
    create.add_argument("requirements", nargs="+", metavar="REQ", help="what to install: 'jax==0.7.2' 'flax==0.12.0' …")
    listing = verbs.add_parser("list", help="each environment's Python, library versions and status")
    flags.print_json(listing)
    flags.width(listing)
    remove = verbs.add_parser("remove", help="unregister one (one `env create` built is deleted)")
    remove.add_argument("name", metavar="NAME", help="the environment's name (`tuiperf env list`)")


def cmd_env(args: argparse.Namespace) -> int:
    verbs = {"add": _add, "create": _create, "list": _list, "remove": _remove}
    return verbs[args.env_command](args)


def _add(args: argparse.Namespace) -> int:
    already = python_envs.registered_as(args.python)
    env, found = python_envs.add(args.name, args.python)
    lines: list[RenderableType] = [Text(f"added {env.name}"), *describe(env, found)]
    if already:
        names = ", ".join(already)
        lines.append(Text(f"note: the same interpreter as {names} (one environment under {len(already) + 1} names)"))
    print_trimmed(Console(highlight=False), *lines)
    return 0


def _create(args: argparse.Namespace) -> int:
    def show(line: str) -> None:
        print(inert(line), file=sys.stderr, flush=True)

    started = time.monotonic()
    try:
        env, found = python_envs.create(args.name, args.requirements, show)
    except KeyboardInterrupt:
        print(f"tuiperf: env create {one_line(args.name)} stopped; nothing was kept", file=sys.stderr)
        return INTERRUPTED
    took = time.monotonic() - started
    print_trimmed(Console(highlight=False), Text(f"created {env.name} in {took:.0f} s"), *describe(env, found))
    return 0


def _list(args: argparse.Namespace) -> int:
    environments = python_envs.registered()
    found = python_envs.survey(environments)
    if args.json:
        listed = msgspec.json.encode([_as_json(e, f) for e, f in zip(environments, found)])
        print(inert_json(msgspec.json.format(listed)).decode())  # a probed answer's C1 controls escaped
        return 0
    console = Console(width=checked_width(args.width), highlight=False)
    parts: list[RenderableType] = []
    for env, answer in zip(environments, found):
        parts.extend(describe(env, answer))
    broken = sum(not (isinstance(a, Probe) and a.ok) for a in found)
    if broken:
        parts.append(Text(f"{len(environments)} environments, {broken} cannot measure", style="dim"))
    print_trimmed(console, *parts)
    return 0


def _remove(args: argparse.Namespace) -> int:
    env, files = python_envs.remove(args.name)
    print(f"removed {env.name}" + (f": {files}" if files else ""))
    return 0


def describe(env: PythonEnv, found: Probe | PythonEnvError) -> list[RenderableType]:
    """An environment in three or four lines: name, Python and path; library versions; status; how it was built."""
    lead = Text.assemble((one_line(env.name), "bold"), "  ")
    if isinstance(found, PythonEnvError):
        status = Text.assemble(("broken: ", "red"), one_line(found.message))
        parts: list[RenderableType] = [Flow([one_line(env.python)], lead=lead, indent=4)]
    else:
        facts = [f"Python {one_line(found.version)}", one_line(env.python)]
        parts = [Flow(facts, lead=lead, indent=4)]
        versions = [_version(name, found.versions.get(name)) for name in LIBRARIES]
        parts.append(Flow(versions, lead="  ", indent=4))
        said = one_line(found.status)
        status = Text(said, style="green") if found.ok else Text.assemble(("cannot measure: ", "red"), said)
    parts.append(Hanging(Text("  ") + status, indent=4))
    if env.managed:
        built = f"  built by `tuiperf env create` {one_line(env.created_at)} from " + " ".join(
            one_line(r) for r in env.requirements
        )
        parts.append(Hanging(Text(built, style="dim"), indent=4))
    return parts


def _version(name: str, version: str | None) -> str:
    return f"{name} {one_line(version)}" if version else f"no {name}"


def _as_json(env: PythonEnv, found: Probe | PythonEnvError) -> dict[str, Any]:
    if isinstance(found, PythonEnvError):
        return {**msgspec.to_builtins(env), "ok": False, "status": f"broken: {found.message}", "probe": None}
    return {**msgspec.to_builtins(env), "ok": found.ok, "status": found.status, "probe": msgspec.to_builtins(found)}
