"""One run over several Python environments: a measuring process per environment, taking turns.

Every process measures the whole request (:mod:`tuiperf.measuring.run`) in lockstep
(:mod:`tuiperf.processes.lockstep`): one computes at a time, round by round. Their events reach the
caller with each variant named ``variant @ environment``; their results are merged into one
(:mod:`tuiperf.results.environments`). An environment whose process cannot start, whose scenario
fails there, or that crashes keeps what it measured and says why; the others finish.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable

import msgspec

from tuiperf.common.errors import ParamError, TuiperfError
from tuiperf.common.text import one_line
from tuiperf.contract import options
from tuiperf.contract.environments import CURRENT, PythonEnv
from tuiperf.contract.events import Event, PhaseChanged, Progress, RunFailed, RunStarted, SamplesAdded, VariantFinished
from tuiperf.contract.protocol import MeasureInLockstep, Waiting
from tuiperf.contract.request import RunRequest
from tuiperf.processes.isolation import Attempt, isolating
from tuiperf.processes.lockstep import Schedule
from tuiperf.processes.process import MeasuringProcess, ProcessStopped
from tuiperf.processes.python_envs import import_path
from tuiperf.processes.tracking import StreamTracker
from tuiperf.results.environments import Measured, merge, qualified
from tuiperf.results.model import EnvironmentRun, RunResult
from tuiperf.results.outputs import OutputDigest


def check_environments(request: RunRequest, environments: list[PythonEnv]) -> None:
    """What a run over several environments cannot do, said before anything starts."""
    names = [e.name for e in environments]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ParamError(f"environment {', '.join(repeated)} given twice", where="--env")
    options.check_combination(request.settings, environments=True)


class Relay:
    """Events of every environment's process, as the caller sees one run: variants qualified by their
    environment, one RunStarted per sweep point, progress as the share of all the work."""

    def __init__(self, names: list[str], forward: Callable[[Event], None] | None) -> None:
        self.names, self.forward = names, forward
        self.lock = threading.Lock()
        self.started_points: set[object] = set()
        self.fractions = dict.fromkeys(names, 0.0)
        self.estimates: dict[str, float] = {}
        self.counts: dict[str, int] = {}
        self.began = time.monotonic()

    def of(self, environment: str) -> Callable[[Event], None]:
        def relay(event: Event) -> None:
            renamed = self.rename(environment, event)
            if renamed is not None and self.forward is not None:
                with self.lock:
                    self.forward(renamed)

        return relay

    def rename(self, env: str, event: Event) -> Event | None:
        if len(self.names) == 1:
            return event  # one environment: nothing to tell apart
        match event:
            case RunStarted(variants=variants, sweep_value=point):
                with self.lock:
                    if point in self.started_points:
                        return None
                    self.started_points.add(point)
                everyone = [qualified(v, e) for e in self.names for v in variants]
                return RunStarted(event.scenario, everyone, event.device, event.dispatch, point, event.header)
            case PhaseChanged(phase=phase, variant=variant, message=message):
                return PhaseChanged(phase, variant and qualified(variant, env), f"[{env}] {message}")
            case SamplesAdded(variant=variant, samples_ns=samples):
                return SamplesAdded(qualified(variant, env), samples)
            case VariantFinished(variant=variant):
                named = msgspec.structs.replace(variant, name=qualified(variant.name, env), environment=env)
                return VariantFinished(named)
            case Progress():
                with self.lock:
                    self.fractions[env] = event.fraction
                    self.estimates |= {qualified(k, env): v for k, v in event.estimates_ns.items()}
                    self.counts |= {qualified(k, env): v for k, v in event.counts.items()}
                    fraction = sum(self.fractions.values()) / len(self.fractions)
                    elapsed = time.monotonic() - self.began
                    eta = elapsed * (1 - fraction) / fraction if fraction > 0.05 else None
                    return Progress(fraction, elapsed, eta, dict(self.estimates), dict(self.counts))
            case RunFailed():
                return None  # one environment's failure is kept in the merged result, not the run's end
        return event


def run_in_environments(
    request: RunRequest,
    environments: list[PythonEnv],
    on_event: Callable[[Event], None] | None = None,
    cancel: threading.Event | None = None,
    make_schedule: Callable[[int, threading.Event], Schedule] = Schedule,
) -> RunResult:
    """Measure ``request`` in each environment (the first is the reference), interleaved.
    ``make_schedule`` lets a test keep the schedule and read the turns it gave."""
    check_environments(request, environments)
    cancel = cancel or threading.Event()
    started = time.monotonic()
    schedule = make_schedule(len(environments), cancel)
    relay = Relay([e.name for e in environments], on_event)
    measured: list[Measured | None] = [None] * len(environments)

    def measure(index: int, environment: PythonEnv) -> None:
        record = EnvironmentRun(name=environment.name, python=environment.python)
        digests: dict[str, OutputDigest] = {}
        forward = relay.of(environment.name)

        def on_wait(waiting: Waiting) -> bool:
            return schedule.wait(index, waiting.gate, waiting.done)

        def attempt(asked: RunRequest, again: bool) -> Attempt:
            """One process of this environment (a fresh one takes the same turns after a crash)."""
            record.crash = record.error = None
            seen = StreamTracker(asked, forward)
            child: MeasuringProcess | None = None
            try:
                child = started_in(environment, asked)
                answer = child.request(MeasureInLockstep(asked), seen.track, cancel, asked.settings.timeout_s, on_wait)
                digests.clear()
                digests.update(answer.digests)
                record.env, record.memory = answer.result.env, answer.result.memory
                return Attempt(answer.result, None, seen.names)
            except ProcessStopped as stop:
                crash = None if stop.cancelled else seen.crash(stop.how, child, stop.stderr_tail)
                partial = seen.after_cancel(stop.how) if crash is None else seen.after_crash(crash)
                if crash is not None:
                    record.crash, record.error = crash, _why_stopped(stop, seen.header is None)
                record.env = partial.env
                blame = crash if stop.crashed else None
                return Attempt(partial if seen.header is not None else None, blame, seen.names, seen.point(child))
            except TuiperfError as exc:  # the request is refused there (e.g. the scenario fails to import)
                record.error = one_line(str(exc), 300)
            except OSError as exc:  # the interpreter cannot even be started
                record.error = one_line(f"its Python could not be started: {exc.strerror or exc}", 300)
            finally:
                if child is not None:
                    child.close()
            return Attempt(None, None, [])

        try:
            measured[index] = Measured(record, isolating(attempt, request, forward, cancel.is_set), dict(digests))
        finally:
            schedule.finished(index)

    threads = [
        threading.Thread(target=measure, args=(i, e), name=f"tuiperf-env-{e.name}", daemon=True)
        for i, e in enumerate(environments)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done = [m for m in measured if m is not None]
    merged = merge(done, time.monotonic() - started)
    if merged is None:
        reasons = "; ".join(f"{m.environment.name}: {m.environment.error}" for m in done if m.environment.error)
        raise TuiperfError(f"no environment measured anything ({reasons or 'cancelled'})")
    return merged


def started_in(environment: PythonEnv, request: RunRequest) -> MeasuringProcess:
    """A measuring process of ``environment``'s own Python, with only this tuiperf on its path."""
    other = environment.name != CURRENT
    return MeasuringProcess(
        cpu_devices=request.settings.devices,
        python=environment.python if other else None,
        import_path=import_path(environment) if other else None,
    )


def _why_stopped(stop: ProcessStopped, before_start: bool) -> str:
    """One line: how its process stopped, and the last line it wrote (a missing module, a crash)."""
    last = next((line for line in reversed(stop.stderr_tail.splitlines()) if line.strip()), "")
    missing = re.fullmatch(r"ModuleNotFoundError: No module named '([\w.]+)'", last.strip())
    if missing and before_start:
        module = missing.group(1).split(".")[0]
        return f"its Python has no {module}, which measuring needs: install it there (pip install {module})"
    where = "before measuring" if before_start else "while measuring; its samples so far are kept"
    said = f": {one_line(last, 200)}" if last else ""
    return f"its measuring process {stop.how} {where}{said}"
