"""`tuiperf list` and `tuiperf devices`."""

from __future__ import annotations

import argparse
import json

from rich.console import Console
from rich.text import Text

from tuiperf.core.text import one_line


def cmd_list(args: argparse.Namespace) -> int:
    from tuiperf.core.catalog import load_catalog

    catalog = load_catalog(args.scenarios).describe()
    if args.json:
        print(json.dumps(catalog, indent=1))
        return 0
    console = Console(highlight=False)
    for s in catalog["scenarios"]:
        console.print(Text.assemble((one_line(s["id"]), "bold"), "  ", one_line(s["title"])))
        params = "  ".join(f"{p['name']}={one_line(p['default'])}" for p in s["params"])
        console.print(Text(f"  params:   {params or '(none)'}"))
        console.print(Text(f"  variants: {', '.join(one_line(v['name']) for v in s['variants'])}"))
    for b in catalog["broken"]:
        where = f"{b['path']}:{b['line']}" if b["line"] else b["path"]
        console.print(Text.assemble(("broken ", "red"), one_line(where), ": ", one_line(b["error"])))
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
