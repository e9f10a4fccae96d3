"""Counts JAX traces and XLA compilations, attributed to whichever variant is running, and says what
changed between two calls of the same variant when one missed jit's cache.

A compile inside the steady-state loop means a retrace (a changing static argument, a weak-type
flip, a new shape): the samples then include compile time. ``jax.monitoring`` reports every trace
and backend compile; we only need to know who was running when it happened. JAX's
``jax_explain_cache_misses`` logs why each cache miss happened (logger
``jax._src.interpreters.partial_eval``, WARNING), naming the argument: those records are kept, per
variant, as one line each (:func:`cause_of`).

JAX explains a miss against the *closest earlier key of the same Python function*, and when two
variants ``jax.jit`` one function in the measuring process that key is often the other variant's
("PytreeConfig → Static" for a variant that never passes a PytreeConfig). So, from the sentinel's
first use on, every traced key is remembered with the variant that was running, and JAX's choice of
the closest key is steered (:func:`_steered`) to the running variant's most recent key first, then
keys nobody claimed (a function's first trace is never explained, so never claimed), the other
variants' last. Explaining is on for the whole measuring process: it costs only on a miss.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
EXPLAIN_LOGGER = "jax._src.interpreters.partial_eval"
# Two static values that print alike but are different keys: their class hashes by identity.
IDENTITY = (
    "static value {value} prints the same as before but is a new key: its class compares by identity "
    "(e.g. a dataclass with eq=False, built on every call); make it a frozen, value-hashed class "
    "(@dataclass(frozen=True)) or build it once outside the call"
)
MAX_CAUSES = 3  # distinct causes kept per variant
CONTEXT = 24  # characters shown either side of where a long static value changed


class _Explanations(logging.Handler):
    def __init__(self, sentinel: CompileSentinel) -> None:
        super().__init__(logging.WARNING)
        self.sentinel = sentinel

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a record that cannot be formatted explains nothing
            return
        if "CACHE MISS" not in message:
            return
        cause = cause_of(message)
        self.sentinel.misses[self.sentinel.current] += 1
        causes = self.sentinel.causes.setdefault(self.sentinel.current, Counter())
        if cause in causes or len(causes) < MAX_CAUSES:
            causes[cause] += 1


class CompileSentinel:
    def __init__(self) -> None:
        self.current: str | None = None
        self.traces: Counter[str | None] = Counter()
        self.compiles: Counter[str | None] = Counter()
        self.causes: dict[str | None, Counter[str]] = {}  # variant -> what changed -> how often
        self.misses: Counter[str | None] = Counter()  # explained cache misses, listed or not
        self.owners: dict[Any, tuple[Any, int]] = {}  # a traced cache key -> (the variant that traced it, serial)

    def on_duration(self, event: str, duration_secs: float, **_: object) -> None:
        if event == TRACE_EVENT:
            self.traces[self.current] += 1
        elif event == COMPILE_EVENT:
            self.compiles[self.current] += 1

    def snapshot(self, name: str) -> tuple[int, int]:
        return self.traces[name], self.compiles[name]

    @contextmanager
    def explaining(self) -> Iterator[None]:
        """Kept for callers that mark where misses are explained: explaining is on from
        :func:`sentinel`'s first use (the variants' first traces must be claimed too)."""
        yield

    def explain_misses(self) -> None:
        """Keep JAX's explanation of every cache miss from now on, each compared with the running
        variant's own earlier keys (only misses pay for it)."""
        import jax

        logger = logging.getLogger(EXPLAIN_LOGGER)
        logger.addHandler(_Explanations(self))
        logger.propagate = False  # kept here, not printed on the measuring process's stderr
        jax.config.update("jax_explain_cache_misses", True)
        try:
            from jax._src.interpreters import partial_eval
        except ImportError:  # another JAX layout: JAX's own choice of key, unsteered
            return
        original = getattr(partial_eval, "diff_tracing_cache_keys", None)
        if callable(original):
            setattr(partial_eval, "diff_tracing_cache_keys", _steered(self, original))  # noqa: B010 - a JAX private

    def take_causes(self, name: str) -> list[str]:
        """What changed between calls of ``name`` (most frequent first, with a count), and forget them."""
        counted = self.causes.pop(name, Counter())
        misses = self.misses.pop(name, 0)
        causes = [f"{cause} ({n} times)" if n > 1 else cause for cause, n in counted.most_common()]
        unlisted = misses - sum(counted.values())
        if unlisted > 0:
            causes.append(f"{unlisted} more cache miss{'es' if unlisted > 1 else ''} like these")
        return causes


OWN, UNCLAIMED, OTHERS = 0, 10, 20  # added to JAX's severity of a key's difference: own keys first


def _steered(
    sentinel: CompileSentinel, original: Callable[[Any, Any], tuple[int, int, str]]
) -> Callable[[Any, Any], tuple[int, int, str]]:
    """JAX's ``diff_tracing_cache_keys(new, old)``, its severity raised for keys that are not the
    running variant's, so that the closest key JAX picks is the variant's own previous one."""

    def diff_tracing_cache_keys(new_key: Any, old_key: Any) -> tuple[int, int, str]:
        severity, differences, explanation = original(new_key, old_key)
        try:
            sentinel.owners.setdefault(_identity(new_key), (sentinel.current, len(sentinel.owners)))
            owner, serial = sentinel.owners.get(_identity(old_key), (_UNCLAIMED, 0))
        except TypeError:  # an unhashable key: JAX's own choice
            return severity, differences, explanation
        if owner == sentinel.current:  # the variant's most recent key: its previous call
            return severity + OWN, -serial, explanation
        return severity + (UNCLAIMED if owner is _UNCLAIMED else OTHERS), differences, explanation

    return diff_tracing_cache_keys


_UNCLAIMED: Any = object()


def _identity(key: Any) -> Any:
    """A cache key without its keyword part (a dict, unhashable): the trace context and arguments."""
    return (key[0], key[1])


_DIFFERENCE = re.compile(r"^\s*\*\s*at (?P<where>.+?), now (?P<now>.+) and before (?P<before>.+?)(?:, so .*)?$")
_STATIC = re.compile(r"Static\(val=(.*)\)$")


def cause_of(message: str) -> str:
    """One line from JAX's explanation of a cache miss: where, and what it was before and now."""
    for line in message.splitlines():
        found = _DIFFERENCE.match(line)
        if found is None:
            continue
        where, now, before = found["where"], _tidy(found["now"]), _tidy(found["before"])
        static_now, static_before = _STATIC.search(now), _STATIC.search(before)
        if static_now and static_before:
            if static_now[1] == static_before[1]:
                return f"{_where(where)}: {IDENTITY.format(value=_shortened(static_now[1]))}"
            field = changed_field(static_before[1], static_now[1])
            if field is not None:
                return f"{_where(where)}: static field {field}"
            token = changed_token(static_before[1], static_now[1])
            if token is not None:
                return f"{_where(where)}: static value {token}"
            old, new = _around_change(static_before[1], static_now[1])
            return f"{_where(where)}: static value {old} → {new}"
        return f"{_where(where)}: {before} → {now}"
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    detail = next((line for line in lines[1:] if not line.startswith("for ")), lines[0] if lines else "")
    return detail[: 2 * CONTEXT * 3]


_NODE = re.compile(r"CustomNode\((?P<cls>[A-Za-z_][\w.]*)\[\(")


def changed_field(old: str, new: str) -> str | None:
    """``MLP.depth 3 → 4``: where two printed static values (a module's treedef) differ inside one
    node's static fields, that node's class and field, named from the class's dataclass fields (an
    Equinox module's static part prints its fields' values in order, dynamic ones as ``Missing``).
    None where the change is not inside such a node or its class is not known by that name."""
    start = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), None)
    if start is None:
        return None
    node = None
    for found in _NODE.finditer(old, 0, start + 1):
        node = found
    if node is None:
        return None
    old_items, new_items = _items(old, node.end()), _items(new, node.end())
    if old_items is None or new_items is None or len(old_items) != len(new_items):
        return None
    changed = [i for i, (a, b) in enumerate(zip(old_items, new_items)) if a != b]
    names = _field_names(node["cls"])
    if len(changed) != 1 or names is None or len(names) != len(old_items):
        return None
    index = changed[0]
    return f"{node['cls']}.{names[index]} {_shortened(old_items[index])} → {_shortened(new_items[index])}"


_TOKEN = re.compile(r"-?\d+(?:\.\d*)?(?:e[+-]?\d+)?|[A-Za-z_][\w.]*|'[^']*'|\"[^\"]*\"|\S")


def changed_token(old: str, new: str) -> str | None:
    """``0 → 2 in ((None, 0), PyTreeDef((*, *)))``: where two printed static values differ in one token
    (a Python scalar among the static leaves eqx.filter_jit partitions out), that token before and now,
    with the widest group of brackets around it that still reads short. None where more differs."""
    a, b = list(_TOKEN.finditer(old)), list(_TOKEN.finditer(new))
    if len(a) != len(b):
        return None
    differ = [i for i, (x, y) in enumerate(zip(a, b)) if x[0] != y[0]]
    if len(differ) != 1:
        return None
    at = a[differ[0]]
    group = at[0]
    start = at.start()
    while True:  # out to the next enclosing bracket pair while the group stays short
        opening = _opening_before(old, start)
        if opening is None:
            break
        closing = _closing_after(old, opening)
        if closing is None or closing + 1 - opening > 2 * CONTEXT + 16:
            break
        group, start = old[opening : closing + 1], opening
    said = f"{at[0]} → {b[differ[0]][0]}"
    return said if group == at[0] else f"{said} in {group}"


def _opening_before(text: str, at: int) -> int | None:
    depth = 0
    for i in range(at - 1, -1, -1):
        if text[i] in ")]}":
            depth += 1
        elif text[i] in "([{":
            if not depth:
                return i
            depth -= 1
    return None


def _closing_after(text: str, opening: int) -> int | None:
    depth = 0
    for i in range(opening, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if not depth:
                return i
    return None


def _items(text: str, at: int) -> list[str] | None:
    """The top-level items of the tuple whose opening parenthesis is just before ``at``."""
    items, depth, quote, begin = [], 0, "", at
    for i in range(at, len(text)):
        c = text[i]
        if quote:
            quote = "" if c == quote and text[i - 1] != "\\" else quote
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}" and depth:
            depth -= 1
        elif c == ")":
            items.append(text[begin:i].strip())
            return [item for item in items if item]
        elif c == "," and not depth:
            items.append(text[begin:i].strip())
            begin = i + 1
    return None


def _field_names(cls_name: str) -> list[str] | None:
    """The dataclass fields of the one loaded Equinox module class of that name (None: none or several)."""
    import dataclasses
    import sys

    eqx = sys.modules.get("equinox")
    if eqx is None:
        return None
    found, todo = [], list(eqx.Module.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__name__ == cls_name.rsplit(".", 1)[-1] and dataclasses.is_dataclass(cls):
            found.append(cls)
    if len({id(c) for c in found}) != 1:
        return None
    return [f.name for f in dataclasses.fields(found[0])]


def _where(where: str) -> str:
    return f"argument {where}" if not where.startswith("input path") else where


def _tidy(value: str) -> str:
    """An aval as a reader writes it: ``f32[]{weak_type=True}`` without layout braces or a docs link."""
    value = re.sub(r"https?://\S+", "", value).replace("({})", "")
    value = re.sub(r"<class '[^']*'> with pytree metadata ", "", value)
    return value.replace("{weak_type=True}", " (weakly typed)").replace("{weak_type=False}", "").strip()


def _shortened(value: str) -> str:
    return value if len(value) <= 2 * CONTEXT else value[: 2 * CONTEXT] + "…"


def _around_change(old: str, new: str) -> tuple[str, str]:
    """The two values, cut to where they differ (a static partition of a module prints long)."""
    if len(old) <= 2 * CONTEXT and len(new) <= 2 * CONTEXT:
        return old, new
    start = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    tail = 0
    while tail < min(len(old), len(new)) - start and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    lo = max(0, start - CONTEXT)

    def cut(text: str) -> str:
        hi = min(len(text), len(text) - tail + CONTEXT)
        return ("…" if lo else "") + text[lo:hi] + ("…" if hi < len(text) else "")

    return cut(old), cut(new)


_SENTINEL: CompileSentinel | None = None


def sentinel() -> CompileSentinel:
    """The process-wide sentinel, registered with jax.monitoring on first use."""
    global _SENTINEL
    if _SENTINEL is None:
        import jax.monitoring

        _SENTINEL = CompileSentinel()
        jax.monitoring.register_event_duration_secs_listener(_SENTINEL.on_duration)
        _SENTINEL.explain_misses()
    return _SENTINEL
