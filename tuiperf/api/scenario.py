"""The scenario model: what a user writes in ``scenarios/*.py``.

A scenario file builds one :class:`Scenario` at module level::

    scenario = Scenario(
        title="jax.jit vs eqx.filter_jit",
        question="How much does eqx.filter_jit add per call?",
        params=dict(width=Int(64, min=1, max=8192)),
    )

    @scenario.setup
    def build(p):                 # once per run: weights and inputs shared by every variant
        return SimpleNamespace(x=jnp.ones(p.width))

    @scenario.variant("jax.jit")
    def _(p, ctx):                # returns what to time
        return Bench(jax.jit(jnp.sin), ctx.x)

Importing this module never imports JAX: the objects here only hold the user's functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from types import SimpleNamespace
from typing import Any

from tuiperf.api.params import Param, check_declaration
from tuiperf.api.step import Step
from tuiperf.common.errors import ScenarioError

_ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


class Bench:
    """What a variant builder returns: the call to time and the arguments to time it with.

    ``fn(*args)`` is timed exactly as a user would call it, ``block_until_ready`` on its output.

    Optional, for a finer breakdown and the equivalence guard:

    - ``jit_fn, jit_args``: the ``jax.jit`` function and arguments that JAX sees after the framework
      has done its Python work (for ``eqx.filter_jit`` that is the partitioned arrays). Timing it
      beside ``fn`` separates framework work from JAX's own dispatch. When ``fn`` is itself a
      ``jax.jit`` function it is its own jit level and you can leave these out. The helpers
      ``tuiperf.eqx_filter_jit_level`` and ``tuiperf.nnx_jit_level`` build them.
    - ``params``: the model's parameters (any pytree): their element count is compared across
      variants, which catches a layer that silently built a different kernel.
    - ``compare``: a function applied to the output before the guard compares it with the reference
      variant's, e.g. ``lambda out: {"loss": out[1]}`` or a projection of a library's parameter
      container to a flat ``{path: array}`` dict, so that different container types and leaf orders
      of the same numbers compare equal.
    - ``tolerance``: relative tolerance for this variant's values (default: the scenario's).
    - ``eager``: the variant is eager by design (no ``jax.jit`` level): no jit-level advice, and
      tracing work during every call is reported as such, not as recompilation.
    - ``note``: a sentence shown with the result (for example, a caveat about closures).
    """

    __slots__ = ("args", "compare", "eager", "fn", "jit_args", "jit_fn", "note", "params", "tolerance")

    def __init__(
        self,
        fn: Callable[..., Any],
        *args: Any,
        jit_fn: Callable[..., Any] | None = None,
        jit_args: tuple[Any, ...] | None = None,
        params: Any = None,
        compare: Callable[[Any], Any] | None = None,
        tolerance: float | None = None,
        eager: bool = False,
        note: str = "",
    ) -> None:
        if not callable(fn):
            raise ScenarioError(f"Bench needs the function to time first, got {type(fn).__name__}: Bench(fn, *args)")
        if (jit_fn is None) != (jit_args is None):
            raise ScenarioError("Bench: give jit_fn and jit_args together (jit_fn(*jit_args) is the jit level)")
        if eager and jit_fn is not None:
            raise ScenarioError("Bench: an eager variant has no jit level; drop eager=True or jit_fn/jit_args")
        if compare is not None and not callable(compare):
            raise ScenarioError(f"Bench: compare must be a function of the output, got {type(compare).__name__}")
        if tolerance is not None and not (isinstance(tolerance, int | float) and tolerance >= 0):
            raise ScenarioError(f"Bench: tolerance must be a non-negative number, got {tolerance!r}")
        self.fn = fn
        self.args = args
        self.jit_fn = jit_fn
        self.jit_args = tuple(jit_args) if jit_args is not None else None
        self.params = params
        self.compare = compare
        self.tolerance = None if tolerance is None else float(tolerance)
        self.eager = eager
        self.note = note


# ``(p, ctx) -> Bench | Step``: the user's code, so the return is checked again when it runs (as_bench).
VariantBuilder = Callable[[SimpleNamespace, Any], Bench | Step]


@dataclass
class Variant:
    name: str
    build: VariantBuilder
    same_as_default: bool = True  # computes the same function as the scenario's other variants
    doc: str = ""
    reference: bool = False  # the equivalence guard compares the others with this one
    check_costs: bool = True  # False for equivalent="values": the guard compares outputs, not FLOPs or parameters


@dataclass
class Scenario:
    """A question, its knobs and the variants that answer it: ``scenario = Scenario(title, question, params=...)``
    at a scenario file's top level, then ``@scenario.setup`` (optional), ``@scenario.variant(NAME)`` per way of
    answering, ``@scenario.check`` (optional). ``params`` maps each name to ``Int``, ``Float``, ``Choice`` or
    ``Bool``; ``tolerance`` is the guard's relative tolerance, a number or a function of the parameters."""

    title: str
    question: str
    _: KW_ONLY  # Scenario(title, question, params=..., tolerance=...): the rest by name only
    params: dict[str, Param] = field(default_factory=dict)
    id: str = ""  # filled from the file name when empty
    # Relative tolerance when the guard compares outputs of equivalent variants; a function of the
    # parameters when it depends on them, e.g. ``lambda p: 1e-2 if p.dtype == "bfloat16" else 1e-4``.
    tolerance: float | Callable[[SimpleNamespace], float] = 1e-4
    variants: dict[str, Variant] = field(default_factory=dict, init=False)
    setup_fn: Callable[[SimpleNamespace], Any] | None = field(default=None, init=False)
    check_fn: Callable[[SimpleNamespace], None] | None = field(default=None, init=False)
    path: str = field(default="", init=False)
    source_sha256: str = field(default="", init=False)  # of the file as it was imported

    def __post_init__(self) -> None:
        if not isinstance(self.params, dict):
            raise ScenarioError("params must be a dict of name=Int(...)/Float(...)/Choice(...)/Bool(...)")
        for name, spec in self.params.items():
            if not isinstance(spec, Param):
                raise ScenarioError(f"parameter {name!r} must be Int, Float, Choice or Bool, got {type(spec).__name__}")
            object.__setattr__(spec, "name", name)
            check_declaration(name, spec)

    def setup(self, fn: Callable[[SimpleNamespace], Any]) -> Callable[[SimpleNamespace], Any]:
        """Decorate the function that builds shared inputs once per run; its return value is ``ctx``."""
        self.setup_fn = fn
        return fn

    def check(self, fn: Callable[[SimpleNamespace], None]) -> Callable[[SimpleNamespace], None]:
        """Decorate a check of values that depend on each other (``padding <= kernel - 1``).

        It runs before anything else; a ``ValueError`` it raises is reported as an invalid parameter.
        """
        self.check_fn = fn
        return fn

    def tolerance_for(self, values: SimpleNamespace) -> float:
        return float(self.tolerance(values) if callable(self.tolerance) else self.tolerance)

    def variant(
        self, name: str, *, equivalent: bool | str = True, reference: bool = False
    ) -> Callable[[VariantBuilder], VariantBuilder]:
        """Decorate a variant builder ``(p, ctx) -> Bench``.

        ``equivalent=False`` tells the equivalence guard this variant computes something else on
        purpose, so its outputs and FLOPs are not compared with the others; ``equivalent="values"``
        compares its outputs but not its XLA FLOPs or parameter count (the same result by another
        program, e.g. a padded gradient). ``reference=True`` makes it
        the one the guard compares every other equivalent variant with (default: the first declared).
        """
        if not isinstance(name, str) or not name or any(c in name for c in ", \t\n") or not name.isprintable():
            raise ScenarioError(f"variant name {name!r} must be non-empty text without spaces or commas")
        if name in self.variants:
            raise ScenarioError(f"variant {name!r} is declared twice")
        if equivalent not in (True, False, "values"):
            raise ScenarioError(f'variant {name!r}: equivalent must be True, False or "values", not {equivalent!r}')
        if reference and not equivalent:
            raise ScenarioError(f"variant {name!r}: a reference must be equivalent (drop equivalent=False)")
        if reference and any(v.reference for v in self.variants.values()):
            first = next(v.name for v in self.variants.values() if v.reference)
            raise ScenarioError(f"variant {name!r}: {first!r} is already the reference; mark only one")

        def register(fn: VariantBuilder) -> VariantBuilder:
            if not callable(fn):
                raise ScenarioError(f"@scenario.variant({name!r}) must decorate a function (p, ctx) -> Bench")
            doc = (fn.__doc__ or "").strip()
            self.variants[name] = Variant(
                name=name,
                build=fn,
                same_as_default=bool(equivalent),
                doc=doc,
                reference=reference,
                check_costs=equivalent is True,
            )
            return fn

        return register

    def reference_name(self) -> str | None:
        """The guard's reference variant: the one marked ``reference=True``, else the first equivalent."""
        marked = [v.name for v in self.variants.values() if v.reference]
        if marked:
            return marked[0]
        return next((v.name for v in self.variants.values() if v.same_as_default), None)


def check_scenario(scenario: Scenario) -> None:
    if not _ID_RE.match(scenario.id):
        raise ScenarioError(f"scenario id {scenario.id!r} must be lower-case letters, digits, '-', '_' or '.'")
    if not scenario.variants:
        raise ScenarioError("the scenario declares no variants (use @scenario.variant(NAME))")
    if not scenario.title.strip():
        raise ScenarioError("the scenario needs a title")
