"""The state of a running measurement, shared between the run's thread and the UI.

The run's thread folds the core's events in (:meth:`RunState.apply`) and posts a coalescing message;
the UI reads a snapshot under the lock at its own pace. No Textual here: it is plain data and a lock.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from tuiperf.common.text import inert_data
from tuiperf.contract.events import Event, PhaseChanged, Progress, RunStarted, SamplesAdded, VariantFinished
from tuiperf.results.model import VariantResult


class RunState:
    """What a running measurement has produced so far, written by the run's thread.

    The run's thread appends samples and stores the latest progress here, and posts a coalescing
    :class:`RunUpdated`; the UI reads a snapshot under the lock at its own pace. This keeps the
    message queue short however fast samples arrive.
    """

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        self.lock = threading.Lock()
        self.samples: dict[str, list[float]] = {}
        self.variants: list[str] = []
        self.fraction = 0.0
        self.elapsed_s = 0.0
        self.eta_s: float | None = None
        self.estimates_ns: dict[str, float] = {}
        self.counts: dict[str, int] = {}
        self.phase = "starting"
        self.phase_variant: str | None = None
        self.sweep_value: Any = None
        self.finished_variants: dict[str, VariantResult] = {}
        self.started = time.monotonic()
        self.started_by_live_mode = False  # a live re-run never moves focus or changes the view
        self.header = ""  # scenario · device · dispatch · parameter values of this run
        self.phase_message = ""

    def snapshot_samples(self, limit: int | None = None) -> dict[str, list[float]]:
        """A copy of the samples so far; with ``limit``, every k-th one so that at most ``limit`` per
        variant remain (the live histogram's shape, at a cost that does not grow with the run)."""
        with self.lock:
            if limit is None:
                return {k: list(v) for k, v in self.samples.items()}
            return {k: v[:: max(1, -(-len(v) // limit))] for k, v in self.samples.items()}

    def apply(self, event: Event) -> bool:
        """Fold one core event into the state (under the lock); True when the UI should hear now.

        Samples and progress arrive many times a second and wait for the next throttled update;
        a new phase, a new sweep pass or a finished variant is worth showing at once. Its texts are
        made inert first: the state is only drawn, and a variant's name is drawn as the result's is.
        """
        event = inert_data(event)
        with self.lock:
            match event:
                case SamplesAdded(variant=variant, samples_ns=samples_ns):
                    self.samples.setdefault(variant, []).extend(samples_ns)
                case Progress():
                    self.fraction, self.elapsed_s, self.eta_s = event.fraction, event.elapsed_s, event.eta_s
                    self.estimates_ns.update(event.estimates_ns)
                    self.counts.update(event.counts)
                case PhaseChanged():
                    self.phase, self.phase_variant, self.phase_message = event.phase, event.variant, event.message
                    return True
                case RunStarted():
                    self.variants = list(event.variants)
                    self.sweep_value = event.sweep_value
                    if event.sweep_value is not None:  # a new pass of a sweep: the histogram shows this value
                        self.samples.clear()
                        self.estimates_ns.clear()
                        self.counts.clear()
                        self.finished_variants.clear()
                    return True
                case VariantFinished(variant=finished):
                    self.finished_variants[finished.name] = finished
                    return True
        return False
