"""Typed scenario parameters, and the one strict parser of their values.

A scenario declares ``params=dict(width=Int(64, min=1, max=8192), ...)``: the default positionally,
everything else by keyword. Values arrive as strings (command line, text inputs) or as Python values
(JSON, sweeps); :func:`validate` turns them into typed values or raises :class:`ParamError` with one
line that names the parameter and what is allowed. The CLI and the app use the same parser, so a
value is accepted or refused with the same words everywhere.

Parsing is literal only — nothing is evaluated: integers are decimal digits (``1_000`` allowed) or a
scientific literal that is exactly an integer (``1e6``); floats are decimal or scientific literals.
Input length and magnitude are bounded, so no text can make parsing slow or allocate much.
Pure Python: the TUI validates forms with this module without importing JAX.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from tuiperf.common.errors import ParamError, ScenarioError
from tuiperf.common.limits import MAX_GRID_CELLS, MAX_SWEEP_VALUES
from tuiperf.common.text import one_line

MAX_TEXT = 64  # characters in one value
MAX_INT = 2**63 - 1  # magnitude of an integer parameter, whatever min/max say
MAX_EXPONENT = 18  # 1e18 is an integer literal; 1e19 is refused
MAX_LIST = MAX_SWEEP_VALUES  # values in a sweep, names in a variant list (common/limits.py: results read them all)
_TRUE = {"1", "true", "yes", "on", "y"}
_FALSE = {"0", "false", "no", "off", "n"}
_INT = re.compile(r"[+-]?[0-9]+(?:_[0-9]+)*")
_SCIENTIFIC_INT = re.compile(r"([+-]?)([0-9]+)(?:\.([0-9]*))?[eE]\+?([0-9]{1,2})")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:_[0-9]+)*(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_Number = TypeVar("_Number", int, float)


def shown(raw: Any) -> str:
    """A value as it appears in an error message: quoted, one line, inert, at most 40 characters."""
    if isinstance(raw, str):
        return repr(one_line(raw, 40))
    return one_line(raw, 40)


@dataclass(frozen=True, init=False)
class Param:
    """Base of all parameter kinds; ``name`` is filled in from the key in the scenario's dict."""

    default: Any
    help: str = ""
    name: str = field(default="", compare=False)

    kind = "param"
    _keywords: ClassVar[tuple[str, ...]] = ()

    def _init(
        self, default: Any, extra: tuple[Any, ...], help: str, unknown: dict[str, Any] | None = None, **fields: Any
    ) -> None:
        if unknown:
            name = next(iter(unknown))
            hint = " (the name comes from the key in params=dict(...))" if name == "name" else ""
            raise ScenarioError(
                f"{type(self).__name__} takes no {name}=; its keywords are {', '.join(self._keywords)}{hint}"
            )
        if extra:
            keywords = ", ".join(f"{k}=..." for k in self._keywords)
            raise ScenarioError(
                f"{type(self).__name__} takes only its default positionally: write "
                f"{type(self).__name__}({default!r}, {keywords}) (got {len(extra)} more positional value(s))"
            )
        object.__setattr__(self, "default", default)
        object.__setattr__(self, "help", str(help))
        object.__setattr__(self, "name", "")
        for key, value in fields.items():
            object.__setattr__(self, key, value)

    def named(self, name: str) -> Param:
        """This parameter under ``name`` (scenarios name theirs by their dict key)."""
        object.__setattr__(self, "name", name)
        return self

    def parse(self, raw: Any) -> Any:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def allowed(self) -> str:
        """What values are allowed, in words, for error messages and help."""
        raise NotImplementedError  # pragma: no cover

    def error(self, raw: Any, why: str) -> ParamError:
        return ParamError(f"{shown(raw)} {why} (allowed: {self.allowed()})", where=self.name or None)

    def text_of(self, raw: str) -> str:
        text = raw.strip()
        if len(text) > MAX_TEXT:
            raise self.error(raw, f"is longer than {MAX_TEXT} characters")
        return text


class _Ranged(Param):
    """Range checking shared by Int and Float (their ``min``/``max`` fields)."""

    min: Any
    max: Any

    def in_range(self, value: _Number) -> _Number:
        if self.min is not None and value < self.min:
            raise self.error(value, f"is below the minimum {self.min}")
        if self.max is not None and value > self.max:
            raise self.error(value, f"is above the maximum {self.max}")
        return value

    def bounds(self, fmt: str) -> str:
        lo = "-inf" if self.min is None else format(self.min, fmt)
        hi = "inf" if self.max is None else format(self.max, fmt)
        return f"{lo}..{hi}"


@dataclass(frozen=True, init=False)
class Int(_Ranged, Param):
    min: int | None = None
    max: int | None = None

    kind = "int"
    _keywords = ("min", "max", "help")

    def __init__(
        self,
        default: int,
        *extra: Any,
        min: int | None = None,
        max: int | None = None,
        help: str = "",
        **unknown: Any,
    ) -> None:
        self._init(default, extra, help, unknown, min=min, max=max)

    def parse(self, raw: Any) -> int:
        if isinstance(raw, bool):
            raise self.error(raw, "is not an integer")
        if isinstance(raw, str):
            value = self._parse_text(raw)
        elif isinstance(raw, float) and math.isfinite(raw) and raw.is_integer():
            value = int(raw)
        elif isinstance(raw, int):
            value = raw
        else:
            raise self.error(raw, "is not an integer")
        if abs(value) > MAX_INT:
            raise self._too_large(raw, negative=value < 0)
        return self.in_range(value)

    def _too_large(self, raw: Any, negative: bool) -> ParamError:
        """A value beyond what any integer parameter holds: named against this parameter's own bound
        when it has one on that side ("1e99 is above the maximum 4096"), else against the limit."""
        bound = self.min if negative else self.max
        if bound is not None:
            return self.error(raw, f"is {'below the minimum' if negative else 'above the maximum'} {bound}")
        return self.error(raw, f"is larger than {MAX_INT:,} in magnitude")

    def _parse_text(self, raw: str) -> int:
        text = self.text_of(raw)
        if _INT.fullmatch(text):
            digits = text.replace("_", "")
            if len(digits.lstrip("+-").lstrip("0")) > 19:
                raise self._too_large(raw, negative=digits.startswith("-"))
            return int(digits)
        match = _SCIENTIFIC_INT.fullmatch(text)
        if match:
            sign, whole, fraction, exponent = match.groups()
            fraction = fraction or ""
            power = int(exponent)
            if power > MAX_EXPONENT:
                raise self._too_large(raw, negative=sign == "-")
            if fraction.rstrip("0") and len(fraction.rstrip("0")) > power:
                raise self.error(raw, "is not an integer")
            digits = whole + fraction.ljust(power, "0")[:power]
            return int(sign + digits) if digits else 0
        if "**" in text or "^" in text:
            raise self.error(raw, "is not an integer literal (expressions are not evaluated: write the number)")
        raise self.error(raw, "is not an integer")

    def allowed(self) -> str:
        return f"integer {self.bounds('d')}"


@dataclass(frozen=True, init=False)
class Float(_Ranged, Param):
    min: float | None = None
    max: float | None = None

    kind = "float"
    _keywords = ("min", "max", "help")

    def __init__(
        self,
        default: float,
        *extra: Any,
        min: float | None = None,
        max: float | None = None,
        help: str = "",
        **unknown: Any,
    ) -> None:
        self._init(default, extra, help, unknown, min=min, max=max)

    def parse(self, raw: Any) -> float:
        if isinstance(raw, bool):
            raise self.error(raw, "is not a number")
        if isinstance(raw, str):
            text = self.text_of(raw)
            if not _FLOAT.fullmatch(text):
                raise self.error(
                    raw,
                    "is not a finite number"
                    if text.lower().lstrip("+-") in ("nan", "inf", "infinity")
                    else "is not a number",
                )
            value = float(text.replace("_", ""))
        elif isinstance(raw, int):
            if abs(raw) > MAX_INT:
                raise self.error(raw, "is too large")
            value = float(raw)
        elif isinstance(raw, float):
            value = raw
        else:
            raise self.error(raw, "is not a number")
        if not math.isfinite(value):
            raise self.error(raw, "is not a finite number")
        return self.in_range(value)

    def allowed(self) -> str:
        return f"number {self.bounds('g')}"


@dataclass(frozen=True, init=False)
class Choice(Param):
    choices: tuple[str, ...] = ()

    kind = "choice"
    _keywords = ("choices", "help")

    def __init__(self, default: str, *extra: Any, choices: Any = (), help: str = "", **unknown: Any) -> None:
        if isinstance(choices, str):
            raise ScenarioError(f"Choice: choices must be a list of strings, not the string {choices!r}")
        self._init(default, extra, help, unknown, choices=tuple(str(c) for c in choices))

    def parse(self, raw: Any) -> str:
        if not isinstance(raw, str | int | float | bool):
            raise self.error(raw, "is not one of the choices")
        value = self.text_of(raw) if isinstance(raw, str) else shown(raw)
        if value not in self.choices:
            raise self.error(raw, "is not one of the choices")
        return value

    def allowed(self) -> str:
        return "one of " + ", ".join(self.choices)


@dataclass(frozen=True, init=False)
class Bool(Param):
    kind = "bool"
    _keywords = ("help",)

    def __init__(self, default: bool, *extra: Any, help: str = "", **unknown: Any) -> None:
        self._init(default, extra, help, unknown)

    def parse(self, raw: Any) -> bool:
        if isinstance(raw, bool):
            return raw
        if not isinstance(raw, str):
            raise self.error(raw, "is not a boolean")
        text = self.text_of(raw).lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise self.error(raw, "is not a boolean")

    def allowed(self) -> str:
        return "true or false"


def check_declaration(name: str, spec: Param) -> None:
    """Reject a declaration that is itself invalid (its default is not allowed, an empty choice list)."""
    if not name.isidentifier():
        raise ParamError(f"parameter name {name!r} must be a Python identifier")
    if isinstance(spec, Choice) and not spec.choices:
        raise ParamError("a Choice needs at least one choice: Choice(default, choices=[...])", where=name)
    if isinstance(spec, Int | Float) and spec.min is not None and spec.max is not None and spec.min > spec.max:
        raise ParamError(f"min {spec.min} is above max {spec.max}", where=name)
    try:
        spec.parse(spec.default)
    except ParamError as exc:
        raise ParamError(f"default {exc.message}", where=name) from None


def validate(specs: dict[str, Param], values: dict[str, Any] | None) -> dict[str, Any]:
    """Return every parameter's typed value: the given ones parsed, the others at their default.

    Raises ParamError for an unknown name (listing the known ones) or a value that is not allowed.
    """
    values = dict(values or {})
    unknown = sorted((str(k) for k in set(values) - set(specs)), key=str)
    if unknown:
        known = ", ".join(specs) or "none"
        raise ParamError(f"unknown parameter {shown(unknown[0])} (parameters: {known})")
    return {name: spec.parse(values[name]) if name in values else spec.default for name, spec in specs.items()}


# -- lists of values from the command line -------------------------------------------------------


def parse_assignment(text: str) -> tuple[str, str]:
    """``NAME=VALUE`` (``--set``): a parameter name and its raw value."""
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise ParamError(f"expected NAME=VALUE, got {shown(text)}")
    if not _NAME.fullmatch(name):
        raise ParamError(f"{shown(name)} is not a parameter name (letters, digits and _)")
    return name, value.strip()


def parse_assignments(texts: list[str]) -> dict[str, str]:
    """Every ``--set NAME=VALUE``; naming a parameter twice is refused (which one was meant?)."""
    values: dict[str, str] = {}
    for text in texts:
        name, value = parse_assignment(text)
        if name in values:
            raise ParamError(f"{name} is set twice ({shown(values[name])} and {shown(value)})")
        values[name] = value
    return values


def parse_sweep(text: str) -> tuple[str, list[str]]:
    """``NAME=V1,V2,...`` (``--sweep``): at least one value, none empty, at most MAX_LIST."""
    name, values = parse_assignment(text)
    pieces = [v.strip() for v in values.split(",")]
    if not values.strip() or any(not p for p in pieces):
        raise ParamError(f"sweep over {name} needs comma-separated values without empty ones, got {shown(values)}")
    if len(pieces) > MAX_LIST:
        raise ParamError(f"sweep over {name} has {len(pieces)} values; at most {MAX_LIST}")
    return name, pieces


MAX_CELLS = MAX_GRID_CELLS  # points in a grid: each is set up, compiled and sampled


def parse_sweeps(texts: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Every ``--sweep``: one sweeps a parameter, two make a grid of every pair of their values."""
    sweeps = [parse_sweep(text) for text in texts]
    if len(sweeps) > 2:
        raise ParamError(f"{len(sweeps)} --sweep options; a run sweeps one parameter, or two as a grid")
    check_grid(sweeps)
    return sweeps


def check_grid(axes: Sequence[tuple[str, Sequence[Any]]]) -> None:
    """At most MAX_LIST values per swept parameter (whoever built the request); two swept parameters
    make a grid: two different ones, at most MAX_CELLS cells."""
    for name, values in axes:
        if len(values) > MAX_LIST:
            raise ParamError(f"sweep over {name} has {len(values)} values; at most {MAX_LIST}")
    if len(axes) != 2:
        return
    (first, rows), (second, columns) = axes
    if first == second:
        raise ParamError(f"{first} is swept twice; a grid sweeps two different parameters")
    cells = len(rows) * len(columns)
    if cells > MAX_CELLS:
        raise ParamError(
            f"a grid over {first} × {second} has {cells} cells ({len(rows)} × {len(columns)}); at most {MAX_CELLS}"
        )


def parse_name_list(text: str, what: str = "variant") -> list[str]:
    """``A,B`` (``--variants``): non-empty names without control characters, each once."""
    names = [n.strip() for n in text.split(",")]
    if any(not n for n in names):
        raise ParamError(f"empty {what} name in {shown(text)}")
    if len(names) > MAX_LIST:
        raise ParamError(f"{len(names)} {what}s named; at most {MAX_LIST}")
    for n in names:
        if one_line(n) != n:
            raise ParamError(f"{what} name {shown(n)} contains control characters")
    return list(dict.fromkeys(names))
