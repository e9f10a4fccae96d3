"""`tuiperf machine`: what on this machine would make runs unstable, and how to fix it (changes nothing)."""

from __future__ import annotations

import argparse
from typing import Any

from tuiperf.common.units import format_bytes


def add_parser(commands: Any) -> None:
    machine = commands.add_parser(
        "machine", help="what on this machine would make runs unstable, and how to fix it (changes nothing)"
    )
    machine.add_argument(
        "--seconds", type=float, default=1.0, metavar="S", help="how long to watch the other processes (default 1)"
    )


def cmd_machine(args: argparse.Namespace) -> int:
    from tuiperf.common.text import one_line
    from tuiperf.results.machine import advice, look

    m = look(max(args.seconds, 0.1))
    facts = [
        f"{m.cpu_count or '?'} × {one_line(m.cpu_model or 'CPU')}",
        f"governor {one_line(m.governor)}" if m.governor else "",
        "" if m.boost is None else ("boost on" if m.boost else "boost off"),
        f"memory {format_bytes(m.memory_available_bytes)} free of {format_bytes(m.memory_total_bytes)}"
        if m.memory_total_bytes and m.memory_available_bytes is not None
        else "",
        f"load {' '.join(f'{x:.2f}' for x in m.load_after)}" if m.load_after else "",
        f"accelerator {one_line(m.accelerator)}" if m.accelerator else "",
    ]
    print("machine: " + " · ".join(f for f in facts if f))
    found = advice(m)
    unstable = [a for a in found if a.unstable]
    print(f"watched {m.seconds or 0:.1f} s; {len(unstable) or 'nothing'} that would make runs unstable")
    for a in found:
        print(f"{'!' if a.unstable else '·'} {a.finding}")
        if a.fix:
            print(f"    fix: {a.fix}")
    return 0
