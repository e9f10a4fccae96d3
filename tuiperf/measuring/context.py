"""What every run needs, whatever composes it (one pass, a sweep, a cluster's process, one of several
environments): the resolved request, how it talks to its caller, and its policy.

A run is composed of the public steps of :class:`~tuiperf.measuring.passes.Pass` (prepare, sample,
analyse); :mod:`tuiperf.measuring.execute` picks the composition.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from tuiperf.api.step import DONATED_HINT
from tuiperf.contract.events import Event, VariantFinished
from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest
from tuiperf.measuring.env import dispatch_mode
from tuiperf.measuring.lockstep import ALONE, Lockstep
from tuiperf.measuring.resolve import Resolved, resolve
from tuiperf.measuring.sampler import Cancel
from tuiperf.results.model import CompileStagesMs, Equivalence, Scalar, Tried, VariantResult
from tuiperf.results.outputs import OutputDigest

if TYPE_CHECKING:
    from tuiperf.measuring.policy import PassPolicy

Emit = Callable[[Event], None]


@dataclass(frozen=True)
class Hooks:
    """How a run talks to its caller: events out, the cancel flag in; ``on_turn(variant, point)`` as
    each variant's sampling turn begins (so a crash can name it, and the sweep point's index where it is
    known); ``lockstep`` with other environments'
    processes; ``digests`` receives each measured variant's output (to compare across environments)."""

    emit: Emit
    cancel: Cancel
    on_turn: Callable[[str | None, int | None], None] | None = None
    lockstep: Lockstep = ALONE
    digests: dict[str, OutputDigest] | None = None

    def turn(self, variant: str | None, point: int | None = None) -> None:
        if self.on_turn is not None:
            self.on_turn(variant, point)


@dataclass(frozen=True)
class RunContext:
    """One run's request, resolved, with its hooks and its policy; the device it measures on."""

    resolved: Resolved
    request: RunRequest
    hooks: Hooks
    policy: PassPolicy
    device: Any  # a jax Device: the resolved one, or the one the policy measures on instead
    started: float  # time.monotonic() when the run began: the ETA counts from it (copies keep it)

    @classmethod
    def create(cls, request: RunRequest, hooks: Hooks, policy: PassPolicy) -> RunContext:
        resolved = resolve(request)
        return cls(resolved, request, hooks, policy, policy.device(resolved.device), time.monotonic())

    @property
    def settings(self) -> RunSettings:
        return self.request.settings

    @property
    def emit(self) -> Emit:
        return self.hooks.emit

    @property
    def cancel(self) -> Cancel:
        return self.hooks.cancel

    @property
    def dispatch(self) -> str:
        """The dispatch mode that applies here: JAX's CPU setting, or async on an accelerator."""
        return dispatch_mode(self.device)

    def devices(self) -> list[Any]:
        """The devices a variant may use (tuiperf.devices), as the policy chooses them."""
        return self.policy.devices(self.device, self.settings)

    def scope(self) -> contextlib.AbstractContextManager[Any]:
        return device_scope(self.device)

    def with_hooks(self, **changes: Any) -> RunContext:
        """The same run with some hooks replaced (an emit that holds events, no digests)."""
        return dataclasses.replace(self, hooks=dataclasses.replace(self.hooks, **changes))


@dataclass(frozen=True)
class Point:
    """Which pass of the run: its parameter values, its index (the gates' point), its sweep value,
    its part of the progress bar; ``anchor``: a sweep's first point measured again (medians only)."""

    params: dict[str, Scalar]
    index: int = 0
    value: Any = None
    span: tuple[float, float] = (0.0, 1.0)
    anchor: bool = False


@dataclass
class Outcomes:
    """What a pass has found so far: each variant's result (told as it is known), the run's warnings,
    the guard's verdict."""

    emit: Emit
    results: dict[str, VariantResult] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    equivalence: Equivalence = field(default_factory=Equivalence)
    tried: list[Tried] = field(default_factory=list)  # remedies tried beside the variants (measuring.tried)

    def finish(self, result: VariantResult) -> None:
        self.results[result.name] = result
        self.emit(VariantFinished(result))

    def restage(self, name: str, stages: CompileStagesMs) -> None:
        """A finished variant's result with its compile stages repeated (``--measure compile``)."""
        self.results[name] = msgspec.structs.replace(self.results[name], stages=stages)

    def amend(self, name: str, *, notes: Sequence[str] = (), warnings: Sequence[str] = ()) -> None:
        """A finished variant's result with what a later step of the pass (the guard) says of it."""
        was = self.results[name]
        self.results[name] = msgspec.structs.replace(
            was, notes=[*was.notes, *notes], warnings=[*was.warnings, *warnings]
        )


def device_scope(device: Any) -> contextlib.AbstractContextManager[Any]:
    """``jax.default_device(device)``, or nothing where ``device`` is the default already.

    A thread-local default device slows every ``jax.jit`` call's C++ fast path (see the
    fidelity row of docs/measuring-tuiperf.md): measured inside one, every figure read above a
    plain script that has none.
    Inputs are committed to the device either way.
    """
    import jax

    if device == jax.devices()[0] and getattr(jax.config, "jax_default_device", None) is None:
        return contextlib.nullcontext()
    scope: contextlib.AbstractContextManager[Any] = jax.default_device(device)
    return scope


def describe_exception(exc: BaseException, path: str) -> str:
    """``file.py:LINE: Type: message`` at the deepest frame inside the scenario file."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == Path(path).resolve():
            line = frame.lineno
    try:
        message = f"{type(exc).__name__}: {exc}".strip()
    except BaseException:  # noqa: BLE001 - an exception whose str() fails is still reported
        message = f"{type(exc).__name__} (its message could not be shown)"
    first_line = message.splitlines()[0] if message else type(exc).__name__
    if "deleted or donated" in message:
        first_line += f" ({DONATED_HINT})"
    return f"{Path(path).name}:{line}: {first_line}" if line else first_line
