"""``t``: a JAX profiler trace of the shown result's first measured variant, with its values (before any
result, the selected scenario's first chosen variant with the form's values).

Run as a ``tuiperf trace`` subprocess (JAX never enters the UI process); its file paths are shown
when it ends; a failure is said (from the thread, as a :class:`CommandFailed` message the screen handles).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuiperf.common.errors import TuiperfError
from tuiperf.common.text import one_line
from tuiperf.tui.messages import CommandFailed
from tuiperf.tui.output_folders import path_lines, toast_text_width

if TYPE_CHECKING:
    from textual.screen import Screen

    from tuiperf.contract.request import RunRequest
    from tuiperf.results.model import RunResult
    from tuiperf.tui.shell import ReportError

TRACE_CALLS = 100
TRACE_TIMEOUT_S = 600


def trace_request_of(shown: RunResult, scenario_dirs: list[str]) -> tuple[RunRequest, list[str]]:
    """A request for the scenario, values, device and dispatch of ``shown`` (a sweep: the point on
    screen), and its variants, measured ones first (the first is traced)."""
    from tuiperf.contract.options import RunSettings
    from tuiperf.contract.request import RunRequest

    point = shown.shown
    settings = RunSettings(dispatch=point.options.dispatch, devices=point.options.devices)
    request = RunRequest(
        scenario=point.scenario.id,
        params=dict(point.params),
        device=point.device.id or None,
        scenario_dirs=list(scenario_dirs),
        settings=settings,
    )
    names = [v.name for v in point.variants]
    measured = [v.name for v in point.variants if v.ok]
    return request, measured + [n for n in names if n not in measured]


def trace_command(request: RunRequest, variants: list[str], out: Path) -> list[str]:
    """``variants``: the chosen ones, else all the scenario's: the first is traced."""
    if not variants:
        raise TuiperfError("choose a variant to trace")
    command = [sys.executable, "-m", "tuiperf", "trace", request.scenario, "--variant", variants[0]]
    command += ["--calls", str(TRACE_CALLS), "--out", str(out), "--dispatch", request.settings.dispatch]
    command += ["--devices", str(request.settings.devices)] if request.settings.devices > 1 else []
    command += [f"--set={name}={value}" for name, value in request.params.items()]
    command += [arg for d in request.scenario_dirs for arg in ("--scenarios", d)]
    return command + (["--device", request.device] if request.device else [])


def start_trace(
    screen: Screen[Any], request: RunRequest, variants: list[str], out: Path, report_error: ReportError
) -> None:
    """Trace in a ``tuiperf trace`` subprocess into ``out``; ``screen`` notifies and starts the thread."""
    app = screen.app
    try:
        command = trace_command(request, variants, out)
    except TuiperfError as exc:
        report_error(exc.title, str(exc))
        return
    variant = command[command.index("--variant") + 1]
    screen.notify(f"tracing {TRACE_CALLS} calls of {variant}…", title="Trace", markup=False)

    def work() -> None:
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=TRACE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            screen.post_message(CommandFailed("Trace failed", f"no answer within {TRACE_TIMEOUT_S} s"))
            return
        if done.returncode != 0:
            reason = one_line(
                done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
            )
            screen.post_message(CommandFailed("Trace failed", reason))
            return
        files = done.stdout.strip().splitlines()
        written = path_lines(files[0] if files else out, toast_text_width(app.size.width))
        message = f"{written}\nopen it at https://ui.perfetto.dev (Open trace file)"
        app.call_from_thread(screen.notify, message, title="Trace written", timeout=20, markup=False)

    screen.run_worker(work, thread=True, group="trace", exit_on_error=False)
