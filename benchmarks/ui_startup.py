"""How fast is the explorer's first useful screen, against an empty Textual app started the same way?

Each probe is a fresh Python process that runs an app headless (same size, same machine, same run)
and prints, from the process's first line: the first frame, and for tuiperf the moment the scenario
list is on screen (from the catalog cache when the files did not change, else from the loader
process). Also checks that the UI process never imports JAX or a framework. Targets (issue 14):
scenario list <= 2x the empty app's first frame; first frame <= 1.5x.

    python benchmarks/ui_startup.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

# Both probes time the first screen update Textual hands to the terminal (App._display, which a
# headless app calls and then skips writing), not the moment the message queue first drains.
FRAME_HOOK = r"""
import time
started = time.perf_counter()
import json, sys
from textual.app import App

report = {}
_display = App._display


def timed_display(self, screen, renderable):
    now = time.perf_counter() - started
    if renderable is not None:
        report.setdefault("first_frame_s", now)
        if "list_s" not in report and LISTED(self):
            report["list_s"] = now
    _display(self, screen, renderable)


App._display = timed_display
"""

EMPTY = (
    FRAME_HOOK
    + r"""
from textual.widgets import Footer, Header, OptionList

LISTED = lambda app: True


class Empty(App):
    def compose(self):
        yield Header()
        yield OptionList("one", "two")
        yield Footer()


async def first_frame(pilot):
    while "first_frame_s" not in report:
        await pilot.pause(0.01)
    pilot.app.exit()

Empty().run(headless=True, size=(120, 40), auto_pilot=first_frame)
print(json.dumps(report))
"""
)

TUIPERF = (
    FRAME_HOOK
    + r"""
from tuiperf.processes.runner import ProcessRunner
from tuiperf.tui.app import TuiperfApp


def LISTED(app):
    options = app.screen.query("#scenario-options")
    return bool(options) and options.first().option_count > 0


async def first_frame(pilot):
    while "list_s" not in report:
        await pilot.pause(0.01)
    report["frameworks_in_ui"] = sorted(m for m in ("jax", "jaxlib", "equinox", "flax", "numpy") if m in sys.modules)
    pilot.app.exit()

runner = ProcessRunner(spare=True)  # as tuiperf.tui.app.main builds it (the spare starts after the loader)
try:
    TuiperfApp(runner, freeze_gc=True).run(headless=True, size=(120, 40), auto_pilot=first_frame)
finally:
    runner.close()
print(json.dumps(report))
"""
)


def probe(code: str) -> dict:
    # As a user starts it: with compiled bytecode cached (a sandbox that sets PYTHONDONTWRITEBYTECODE
    # would recompile every tuiperf module at each start, and only tuiperf's: site-packages has its .pyc).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120, env=env
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def verdict(value: float, target: float) -> str:
    return "ok" if value <= target else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    probe(TUIPERF)  # once untimed: fills the catalog cache as a user's second start finds it
    empty, ours = [], []
    for _ in range(args.repeats):  # alternate, so drift hits both alike
        empty.append(probe(EMPTY))
        ours.append(probe(TUIPERF))
    empty_frame = statistics.median(r["first_frame_s"] for r in empty)
    frame = statistics.median(r["first_frame_s"] for r in ours)
    listed = statistics.median(r["list_s"] for r in ours)
    leaked = sorted({m for r in ours for m in r["frameworks_in_ui"]})
    print(f"empty Textual app, first frame: {empty_frame:.3f} s (median of {args.repeats})")
    for label, seconds, target in (("tuiperf first frame", frame, 1.5), ("tuiperf scenario list shown", listed, 2.0)):
        ratio = seconds / empty_frame
        print(f"{label:31s} {seconds:.3f} s = {ratio:.2f}x  target <= {target:g}x  {verdict(ratio, target)}")
    print(f"imported by the UI process: {', '.join(leaked) if leaked else 'no jax, jaxlib, equinox, flax or numpy'}")


if __name__ == "__main__":
    main()
