"""One exception hierarchy for everything a user can get wrong.

Every error carries a one-line message meant to be shown as is: the CLI prints it and exits with
status 2, the TUI shows it in its error panel. Nothing here imports JAX or Textual.
"""

from __future__ import annotations


class TuiperfError(Exception):
    """Base class: a problem the user can fix, with a message that says how."""

    title = "tuiperf error"

    def __init__(self, message: str, *, where: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where  # file:line, parameter or variant name, when known

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class ScenarioError(TuiperfError):
    """A scenario file that cannot be loaded or declares something invalid."""

    title = "Broken scenario"


class ParamError(TuiperfError):
    """A parameter value that is missing, of the wrong type or out of range."""

    title = "Invalid parameter"


class UnknownScenario(TuiperfError):
    title = "Unknown scenario"


class DeviceError(TuiperfError):
    title = "Unknown device"


class PythonEnvError(TuiperfError):
    """A Python environment that is unknown, missing, not a Python, or cannot measure (no JAX)."""

    title = "Environment problem"


class ClusterError(TuiperfError):
    """A cluster run that cannot start or stay in lockstep: a coordinator that cannot listen, processes
    that prepared different variants."""

    title = "Cluster problem"


class WorkerCrashed(TuiperfError):
    """The measuring process died (XLA abort, segfault, out of memory); it is restarted on next use."""

    title = "Measuring process crashed"


class InternalError(TuiperfError):
    """A bug in tuiperf (not the user's doing), reported with the exception's type and message."""

    title = "Internal error"


def error_class(name: str) -> type[TuiperfError]:
    """The TuiperfError subclass called ``name`` (as a measuring process names the error it raised),
    among those built like the base (message and ``where``); the base class when there is none."""
    pending: list[type[TuiperfError]] = [TuiperfError]
    while pending:
        cls = pending.pop()
        if cls.__name__ == name and cls.__init__ is TuiperfError.__init__:
            return cls
        pending.extend(cls.__subclasses__())
    return TuiperfError


class Skip(Exception):
    """Raise inside a variant builder to skip it with a note (e.g. an optional package is missing)."""
