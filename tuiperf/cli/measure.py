"""Commands that measure: `tuiperf run`, `tuiperf screenshot` and the explorer itself."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from tuiperf.api.params import parse_assignments, parse_name_list, parse_sweeps
from tuiperf.common.errors import TuiperfError
from tuiperf.contract import options
from tuiperf.contract.events import Event
from tuiperf.contract.request import Runner, RunRequest

# A screenshot shows a run, not a precise figure; a trace's budget only paces its warm-up.
SCREENSHOT_DEFAULTS = {"budget_s": 2.0}
TRACE_DEFAULTS = {"budget_s": 1.0}


def request_from(args: argparse.Namespace, defaults: dict[str, Any] | None = None) -> RunRequest:
    """The run the options ask for, checked before anything starts; ``defaults`` (by option name) replace
    the table's defaults for this command."""
    sweeps = parse_sweeps(getattr(args, "sweep", None) or [])
    request = RunRequest(
        scenario=args.scenario,
        params=parse_assignments(args.set),
        variants=parse_name_list(args.variants) if args.variants else None,
        device=args.device,
        sweep=sweeps[0] if sweeps else None,
        grid=sweeps[1] if len(sweeps) > 1 else None,
        scenario_dirs=args.scenarios,
        settings=options.from_arguments(args, defaults),
        environments=list(getattr(args, "environments", None) or []),
    )
    options.check(request.settings)
    if request.environments:
        from tuiperf.processes.python_envs import lookup

        for name in request.environments:
            lookup(name)  # an unknown name is said now, before anything starts
    return request


def make_runner(args: argparse.Namespace) -> Runner:
    if getattr(args, "in_process", False):
        from tuiperf.contract import options
        from tuiperf.measuring.inprocess import InProcessRunner

        options.check_combination(
            options.TABLE(), environments=bool(getattr(args, "environments", None)), in_process=True
        )

        return InProcessRunner(args.scenarios)
    from tuiperf.processes.runner import ProcessRunner

    return ProcessRunner(args.scenarios)


def found_elsewhere(request: RunRequest) -> RunRequest:
    """``--in-process``: the file that defines the scenario, found as every other run finds it (the
    catalog cache, else a loader process that stops each file's import after ``TUIPERF_IMPORT_TIMEOUT``
    seconds, 10 by default), so that this process imports that file alone: an import here cannot be
    interrupted, and one that loops in a file of the folder, the run's own file included, is then one
    line ("did not finish importing within 10 s") instead of a silent hang."""
    from tuiperf.processes.runner import ProcessRunner

    finder = ProcessRunner(request.scenario_dirs)
    try:
        return finder.resolve(request)
    finally:
        finder.close()


def export_files(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """``--export-markdown`` and ``--export-csv``: (format, file or None)."""
    return [("markdown", getattr(args, "export_markdown", None)), ("csv", getattr(args, "export_csv", None))]


def write_export(result: Any, fmt: str, path: str, args: argparse.Namespace, err: Console) -> bool:
    """Write ``result`` as ``fmt`` to ``path`` (what `export --format FMT --out PATH` writes); a failure
    is one line (and the exit status 1), the run's result being kept elsewhere."""
    from tuiperf.catalog.folders import scenario_files
    from tuiperf.common.files import write_atomic
    from tuiperf.common.text import one_line
    from tuiperf.results.export import export

    try:
        text = export(result, fmt, scenario_files=scenario_files(args.scenarios))
        err.print(Text(f"wrote {one_line(write_atomic(path, text.encode('utf-8'), force=args.force))}"))
    except (TuiperfError, OSError) as exc:
        err.print(Text(f"--export-{fmt} not written: {one_line(exc)}", style="yellow"))
        return False
    return True


def cmd_run(args: argparse.Namespace) -> int:
    from tuiperf.cli import report
    from tuiperf.cli.results import history_path, store
    from tuiperf.common.files import check_writable
    from tuiperf.common.text import one_line
    from tuiperf.results import recovery, resultfile

    request = request_from(args)
    exports = {fmt: path for fmt, path in (("json", args.out), *export_files(args)) if path is not None}
    for path in exports.values():
        check_writable(path, force=args.force)  # fail now, not after the run
    err = Console(stderr=True, highlight=False, soft_wrap=True)  # one message, one line
    runner = make_runner(args)
    try:
        if getattr(args, "in_process", False):
            request = found_elsewhere(request)
        result, interrupted = run_interruptibly(runner, request, err)
    finally:
        runner.close()
    if result is None:
        return 130
    for line in report.shadowing_copy(result.scenario.path):
        err.print(line)
    # Kept before anything else can fail (a printing error, a full disk under the history): the
    # --json file first, then the history; a recovery copy when neither kept it.
    written = False
    if args.out is not None:
        try:
            err.print(Text(f"wrote {one_line(resultfile.save(result, args.out, force=args.force))}"))
            written = True
        except TuiperfError as exc:
            err.print(Text(f"--out not written: {one_line(exc)}", style="yellow"))
    stored = store(result, args, err) if history_path(args) is not None else False
    exported = all(write_export(result, fmt, path, args, err) for fmt, path in export_files(args) if path is not None)
    if not written and not stored and (args.out is not None or history_path(args) is not None):
        err.print(Text(recovery.keep(result), style="yellow"))
    try:
        report.print_result(result, profiles=args.profiles, width=args.width)
    except KeyboardInterrupt:  # the result is measured and kept: only its report stops here
        kept = [f"in {one_line(args.out)}"] if written else []
        kept += ["in the history (tuiperf history)"] if stored else []
        cut = f"the result is {'partial' if result.partial else 'complete'}" + (
            f", {' and '.join(kept)}" if kept else ""
        )
        print(file=sys.stdout, flush=True)
        err.print(Text(f"Ctrl-C: the report stopped here; {cut}"))
        return 130
    if interrupted:
        return 130
    points = result.points or [result]
    failed = [v.name for point in points for v in point.variants if v.status == "failed"]
    return 1 if failed or result.error or (args.out is not None and not written) or not exported else 0


def run_interruptibly(runner: Runner, request: RunRequest, err: Console) -> tuple[Any, bool]:
    """Measure in a thread; the first Ctrl-C stops the run and keeps what was measured (partial), a
    second one gives up at once. Returns (result or None, whether the user interrupted)."""
    cancel, done = threading.Event(), threading.Event()
    outcome: dict[str, Any] = {}

    def measure() -> None:
        try:
            outcome["result"] = runner.run(request, progress.on_event, cancel)
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread, raised there
            outcome["error"] = exc
        finally:
            done.set()

    progress = Progress(err)
    thread = threading.Thread(target=measure, name="tuiperf-run", daemon=True)
    interrupted = False
    with progress:
        thread.start()
        while not done.is_set():
            try:
                done.wait(0.1)  # not Thread.join: a KeyboardInterrupt inside it can corrupt is_alive() (3.11)
            except KeyboardInterrupt:
                if interrupted:
                    err.print(Text("stopped without a result"))
                    return None, True
                interrupted = True
                cancel.set()
                progress.say("stopping: the partial result follows (Ctrl-C again to quit at once)")
    if "error" in outcome:
        raise outcome["error"]
    result = outcome.get("result")
    if interrupted and result is not None and not result.partial:
        err.print(Text("the run had finished when Ctrl-C came: its result is complete"))
    return result, interrupted


class Progress:
    """One live status line on stderr (phase, share done, time, current medians) when it is a terminal."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.status: Any = None
        self.phase = "starting the measuring process"
        self.started = time.monotonic()
        self.line = ""

    def __enter__(self) -> Progress:
        if self.console.is_terminal:
            self.status = self.console.status(Text(self.phase))
            self.status.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.status is not None:
            self.status.stop()

    def say(self, text: str) -> None:
        if self.status is not None:
            self.status.update(Text(text))
        else:
            self.console.print(Text(text))

    def on_event(self, event: Event) -> None:
        from tuiperf.common.text import one_line
        from tuiperf.common.units import format_ns
        from tuiperf.contract.events import PhaseChanged
        from tuiperf.contract.events import Progress as ProgressEvent
        from tuiperf.processes.calibrating import CALIBRATED, CALIBRATING

        if isinstance(event, PhaseChanged) and event.phase in (CALIBRATING, CALIBRATED):
            said = f"{event.phase}: {event.message}" if event.phase == CALIBRATING else event.message
            self.console.print(Text(one_line(said)))  # a line of its own, on a terminal or not
        if self.status is None:
            return

        elapsed = time.monotonic() - self.started
        match event:
            case PhaseChanged():
                self.phase = one_line(f"{event.phase} {event.variant or ''}".strip(), 40)
                self.status.update(Text(f"{self.phase} · {elapsed:.0f} s"))  # Text: a name is never markup
            case ProgressEvent():
                eta = f", ~{event.eta_s:.0f} s left" if event.eta_s is not None else ""
                best = "  ".join(f"{one_line(k, 20)} {format_ns(v)}" for k, v in list(event.estimates_ns.items())[:3])
                self.status.update(Text(f"{self.phase}: {100 * event.fraction:.0f} % · {elapsed:.0f} s{eta}  {best}"))


def cmd_screenshot(args: argparse.Namespace) -> int:
    from tuiperf.common.files import check_writable
    from tuiperf.tui.screenshot import parse_size, take_screenshot

    size = parse_size(args.size)
    check_writable(args.out, force=args.force)
    request = request_from(args, SCREENSHOT_DEFAULTS)
    runner = make_runner(args)
    try:
        path = take_screenshot(
            runner,
            request.scenario,
            args.out,
            params=dict(request.params),
            scenario_dirs=request.scenario_dirs,
            variants=request.variants,
            tab=args.tab,
            size=size,
            settings=request.settings,
            device=request.device,
            environments=request.environments,
            sweep=(request.sweep[0], list(request.sweep[1])) if request.sweep else None,
            grid=(request.grid[0], list(request.grid[1])) if request.grid else None,
        )
    finally:
        runner.close()
    print(f"wrote {path}")
    return 0


def cmd_app(args: argparse.Namespace) -> int:
    from tuiperf.cli.results import history_path
    from tuiperf.processes.python_envs import lookup
    from tuiperf.tui.app import main as run_app

    for name in args.environments:
        lookup(name)  # an unknown name is one line and exit 2, before the app opens
    _end_with_server()

    run_app(
        history_path=history_path(args),
        scenario_dirs=args.scenarios,
        screenshots_dir=args.screenshots,
        scenario=args.scenario,
        params=parse_assignments(args.set),
        variants=parse_name_list(args.variants) if args.variants else None,
        device=args.device,
        environments=list(args.environments),  # ticked in the setup form, the first the reference
        settings=options.from_arguments(args),
        mouse=not args.no_mouse,
    )
    return 0


def _end_with_server() -> None:
    """An explorer started by ``tuiperf serve`` ends when the server ends, by any signal, and takes its
    measuring processes with it: nobody can reach it any more."""
    import os

    from tuiperf.cli.serve import SERVER_PID_VARIABLE
    from tuiperf.common import lifeline

    server = os.environ.pop(SERVER_PID_VARIABLE, "")
    if server.isdigit():
        lifeline.end_with(int(server))  # its measuring processes are its descendants: killed with it


def _check_folder(folder: Any) -> None:
    """A folder the profiler can write into, checked before JAX fails deep inside with a runtime error."""
    import os

    if folder.exists() and not folder.is_dir():
        raise TuiperfError("is not a folder; --out takes the folder for the trace", where=str(folder))
    existing = folder
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise TuiperfError(f"{existing} is a file, so no folder can be made under it", where=str(folder))
    if not os.access(existing, os.W_OK | os.X_OK):
        raise TuiperfError(f"cannot write into {existing}", where=str(folder))


def cmd_trace(args: argparse.Namespace) -> int:
    """Trace steady-state calls of one variant in this process and say where the files are."""
    from tuiperf.measuring.trace import OPEN_HINT, trace

    request = request_from(args, TRACE_DEFAULTS)
    _check_folder(Path(args.out))
    files = trace(request, args.variant, Path(args.out), calls=args.calls)
    if not files:
        raise TuiperfError(f"the profiler wrote no file under {args.out}")
    for path in files:
        print(path)
    print(device_activity_line(files[0]))
    print(OPEN_HINT, file=sys.stderr)
    return 0


def device_activity_line(trace_file: Path) -> str:
    """Host-bound or device-bound, from the trace just written (see results.device_activity)."""
    from tuiperf.results.device_activity import activity, load_trace

    if not trace_file.name.startswith("perfetto"):
        return "device activity: not computed (no Perfetto trace was written)"
    try:
        found, why = activity(load_trace(trace_file))
    except (OSError, ValueError) as exc:
        return f"device activity: the trace could not be read ({type(exc).__name__})"
    return f"device activity: {found.describe() if found is not None else why}"
