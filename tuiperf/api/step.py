"""Stateful variants: a training step whose state tuiperf carries from call to call.

A :class:`Step` is what a variant builder returns instead of a :class:`~tuiperf.api.scenario.Bench`
when each call must see the state the previous call produced::

    return Step(train_step, state, batch)               # state, loss = train_step(state, batch)
    return Step(train_step, (model, opt), batch, inplace=True)   # NNX: train_step(model, opt, batch)

The session turns it into a :class:`Carrier`, an ordinary zero-argument callable, so the warm-up,
the sampler, the profile and the breakdown time it like any other call. Why a carrier and not a
``Bench`` with the state as an argument: a donated state (``jax.jit(step, donate_argnums=0)``) is
deleted by the call that consumes it, so the next call must get the new state, never the old one.

Waiting: a functional step's output is ``(new state, out)`` and tuiperf waits for all of it, as it
waits for the whole output of any ``Bench`` call; the breakdown's paths wait for their whole outputs
too, so its stages stay comparable. (Waiting for the loss alone would make a step look cheaper than
its own jit level.) An in-place step returns ``out``; that is what is waited for.
Cost of carrying, per call: one Python call, a tuple unpack and, with a ``pool``, a list index, and
what the previous call's output costs as the next call's input (its buffers fed back: a memory effect
that grows with the state, 13-84 µs for a multi-MB state where the Python part is well under 1 µs).
For a jitted step that is the breakdown's framework stage (call − the step over a fixed state), which
is named "state carried" for it (:data:`STATE_CARRIED`).

Importing this module never imports JAX.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tuiperf.api.devices import host_copy
from tuiperf.common.errors import ScenarioError

# The equivalence guard compares every step variant after this many steps from the same state.
GUARD_STEPS = 3

STATE_CARRIED = "state carried: tuiperf's call, and the previous output's buffers fed back as the next input"

DONATED_HINT = (
    "this variant donates its arguments, so calling it again with the same ones fails: return "
    "tuiperf.Step(step, state, *inputs) so tuiperf hands each call the state the previous one returned"
)


class Step:
    """A stateful call: ``state, out = fn(state, *inputs)``; tuiperf feeds ``state`` back each call.

    - ``inplace=True``: the NNX form, ``out = fn(*state, *inputs)`` mutating the objects in ``state``
      (a tuple such as ``(model, optimizer)``, or one object).
    - ``pool``: input tuples used in turn instead of ``inputs`` (fresh batches or RNG keys per call,
      built once before timing, so generating them is not timed).
    - ``compare(state, out)``: what the equivalence guard compares after :data:`GUARD_STEPS` steps,
      e.g. ``{"loss": out, "w0": state.params["Dense_0"]["kernel"]}``; give every library's variant a
      projection to the same flat dict. Default: the output alone.
    - ``params(state)``: the model's parameters, for the parameter-count check.
    - ``jit_fn, jit_args``: the step's jit level, as for ``Bench`` (the breakdown's framework stage
      then includes tuiperf's carrying).
    """

    __slots__ = (
        "compare",
        "fn",
        "inplace",
        "inputs",
        "jit_args",
        "jit_fn",
        "note",
        "params",
        "pool",
        "state",
        "tolerance",
    )

    def __init__(
        self,
        fn: Callable[..., Any],
        state: Any,
        *inputs: Any,
        inplace: bool = False,
        pool: Sequence[tuple[Any, ...]] | None = None,
        compare: Callable[[Any, Any], Any] | None = None,
        params: Callable[[Any], Any] | None = None,
        jit_fn: Callable[..., Any] | None = None,
        jit_args: tuple[Any, ...] | None = None,
        tolerance: float | None = None,
        note: str = "",
    ) -> None:
        if not callable(fn):
            got = type(fn).__name__
            raise ScenarioError(f"Step needs the step function first, got {got}: Step(fn, state, *inputs)")
        if pool is not None:
            if inputs:
                raise ScenarioError("Step: give the inputs either positionally or as pool=[...], not both")
            pool = [tuple(entry) if isinstance(entry, tuple | list) else (entry,) for entry in pool]
            if not pool:
                raise ScenarioError("Step: pool is empty; give at least one tuple of inputs")
        for name, value in (("compare", compare), ("params", params)):
            if value is not None and not callable(value):
                raise ScenarioError(f"Step: {name} must be a function of the state, got {type(value).__name__}")
        if (jit_fn is None) != (jit_args is None):
            raise ScenarioError("Step: give jit_fn and jit_args together (jit_fn(*jit_args) is the jit level)")
        self.fn = fn
        self.state = state
        self.inputs = inputs
        self.inplace = inplace
        self.pool = pool
        self.compare = compare
        self.params = params
        self.jit_fn = jit_fn
        self.jit_args = tuple(jit_args) if jit_args is not None else None
        self.tolerance = tolerance
        self.note = note


class Carrier:
    """Calls a :class:`Step` with the state its previous call returned; remembers what it saw.

    It has the interface :func:`tuiperf.measuring.prepare.prepare` uses for any call (``place``,
    ``aot_target``, ``first_call``, ``guard_output``, ``param_tree``), and is itself the timed call.
    """

    def __init__(self, step: Step) -> None:
        self.step = step
        self.state = step.state
        self.inputs = step.inputs
        self.pool = step.pool
        self.calls = 0
        self.first_out: Any = None
        self.last_out: Any = None
        self.donates = False

    def next_inputs(self) -> tuple[Any, ...]:
        return self.pool[self.calls % len(self.pool)] if self.pool is not None else self.inputs

    def call_args(self) -> tuple[Any, ...]:
        """The arguments the step's function gets on the next call."""
        state = self.state
        head = (state if isinstance(state, tuple) else (state,)) if self.step.inplace else (state,)
        return (*head, *self.next_inputs())

    def __call__(self) -> Any:
        """One step; returns what to wait for: ``(new state, out)``, or ``out`` in place."""
        args = self.call_args()
        self.calls += 1
        if self.step.inplace:
            self.last_out = self.step.fn(*args)
            return self.last_out
        self.state, self.last_out = self.step.fn(*args)
        return self.state, self.last_out

    # -- what prepare() asks of a call ----------------------------------------------------------------
    def place(self, device: Any) -> list[str]:
        """Move the state and inputs that live on another device to ``device`` (in place, the objects
        are the user's: left as they are); arrays already there are kept as built (committing them would
        time a slower dispatch path than the user's loop takes) and arrays sharded over several devices
        keep their sharding."""
        import jax

        def commit(a: Any) -> Any:
            if isinstance(a, jax.Array) and len(a.sharding.device_set) == 1 and a.devices() != {device}:
                return jax.device_put(a, device)
            return a

        def put(tree: Any) -> Any:
            return jax.tree.map(commit, tree)

        if not self.step.inplace:
            self.state = put(self.state)
        if self.pool is not None:
            self.pool = [put(entry) for entry in self.pool]
        else:
            self.inputs = put(self.inputs)
        return []

    def aot_target(self) -> tuple[Any, tuple[Any, ...]]:
        """The step's own function and arguments, for the trace/lower/compile stages."""
        return self.step.fn, self.call_args()

    def first_call(self) -> Any:
        """Copy the state (so that donating it cannot delete arrays the scenario's setup shares with
        other variants; in place, build the objects from copies), make the first call, and notice a
        donated state (its buffers deleted by the call)."""
        import jax

        if not self.step.inplace:
            self.state = jax.tree.map(lambda a: a.copy() if isinstance(a, jax.Array) else a, self.state)
        before = [leaf for leaf in jax.tree.leaves(self.state) if isinstance(leaf, jax.Array)]
        output = self()
        self.first_out = self.last_out
        self.donates = any(leaf.is_deleted() for leaf in before)
        return output

    def guard_output(self, first_output: Any) -> Any:
        """Host copies of what the guard compares, after :data:`GUARD_STEPS` steps in all."""
        import jax

        while self.calls < GUARD_STEPS:
            jax.block_until_ready(self())
        view = self.step.compare(self.state, self.last_out) if self.step.compare else self.last_out
        return host_copy(view)  # copies: later calls may donate or overwrite these buffers

    def param_tree(self) -> Any:
        return self.step.params(self.state) if self.step.params is not None else None

    def progress_note(self) -> str:
        """How far the state went: the calls it was carried through, and a scalar output's trend."""
        text = f"stateful step: the state was carried through {self.calls} calls"
        first, last = scalar(self.first_out), scalar(self.last_out)
        if first is not None and last is not None:
            text += f"; its output went from {first:.4g} to {last:.4g}"
        return text


def scalar(value: Any) -> float | None:
    """A one-element array or number as a float, else None."""
    try:
        if getattr(value, "size", None) == 1 or isinstance(value, int | float):
            return float(value)
    except BaseException:  # noqa: BLE001 - a deleted or odd object has no value to show
        return None
    return None
