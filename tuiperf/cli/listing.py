"""`tuiperf list` and `tuiperf devices`."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.console import Console
from rich.text import Text

from tuiperf.cli.wrap import Flow, Hanging, checked_width, print_trimmed
from tuiperf.common.files import user_path
from tuiperf.common.text import one_line


def cmd_list(args: argparse.Namespace) -> int:
    """Scenario files are described by a loader process: one that exits, crashes or hangs at import is
    reported, and the others (the built-ins always) are still listed; exit 0 all the same. Where no
    scenario file changed since the last list, that list is printed without starting the loader."""
    from tuiperf.processes.runner import ProcessRunner

    runner = ProcessRunner(args.scenarios)
    try:
        # The last catalog where no scenario file changed since (no loader process: a third of a second);
        # --fresh imports every file again (a helper module a scenario imports is not watched).
        catalog = (None if args.fresh else runner.cached_catalog()) or runner.catalog()
    finally:
        runner.close()
    if args.json:
        import msgspec

        from tuiperf.contract.catalog import encode

        print(msgspec.json.format(encode(catalog), indent=1).decode())
        return 0
    console = Console(width=checked_width(args.width), highlight=False)
    parts: list[Any] = []
    for s in catalog.scenarios:
        title = Text(one_line(s.title))
        parts.append(Flow([title], lead=Text.assemble((one_line(s.id), "bold"), "  "), indent=4))
        params = [f"{one_line(p.name)}={one_line(p.default)}" for p in s.params] or ["(none)"]
        parts.append(Flow(params, lead="  params:   ", indent=12))
        parts.append(Flow([one_line(v.name) for v in s.variants], lead="  variants: ", sep=", ", indent=12))
        if s.shadows:  # a file of the user's with a built-in's id replaces it: say so, not only in --json
            shadow = [f"replaces the built-in {one_line(s.id)} ({one_line(s.shadows)}):", one_line(s.path)]
            parts.append(Flow([Text(item, style="yellow") for item in shadow], lead="  ", sep=" ", indent=4))
    for b in catalog.broken:
        parts.append(Hanging(Text.assemble(("broken ", "red"), one_line(b.where), ": ", one_line(b.error))))
    if catalog.broken:
        count = len(catalog.broken)
        summary = f"{len(catalog.scenarios)} scenarios, {count} file{'s' * (count != 1)} broken"
        parts.append(Text(summary, style="dim"))
    print_trimmed(console, *parts)
    return 0


def cmd_devices(args: argparse.Namespace) -> int:
    from tuiperf.measuring.env import list_devices

    devices = list_devices()
    if args.json:
        print(
            json.dumps(
                [{"id": d.id, "platform": d.platform, "kind": d.kind, "index": d.index} for d in devices], indent=1
            )
        )
    else:
        for d in devices:
            print(f"{d.id:10} {d.kind}")
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    """Write NAME.py from a template into --dir, the first scenarios folder (--scenarios, then
    $TUIPERF_SCENARIOS) or the user's folder."""
    from pathlib import Path

    from tuiperf.catalog.folders import env_scenario_dirs, user_scenarios_dir
    from tuiperf.catalog.templates import new_scenario

    named = [*(args.scenarios or []), *env_scenario_dirs()]
    folder = Path(args.dir) if args.dir else user_path(named[0]) if named else user_scenarios_dir()
    print(new_scenario(args.name, folder, args.template, force=args.force))
    return 0
