"""Typed scenario parameters and their validation.

A scenario declares ``params=dict(width=Int(64, min=1, max=8192), ...)``. Values arrive as strings
(command line, text inputs) or as Python values (JSON, sweeps); :func:`validate` turns them into typed
values or raises :class:`ParamError` with one line that names the parameter and what is allowed.
Pure Python: the TUI validates forms with this module without importing JAX.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from tuiperf.core.errors import ParamError

_TRUE = {"1", "true", "yes", "on", "y"}
_FALSE = {"0", "false", "no", "off", "n"}


@dataclass(frozen=True)
class Param:
    """Base of all parameter kinds; ``name`` is filled in from the key in the scenario's dict."""

    default: Any
    help: str = ""
    name: str = field(default="", compare=False)

    kind = "param"

    def parse(self, raw: Any) -> Any:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def allowed(self) -> str:
        """What values are allowed, in words, for error messages and help."""
        raise NotImplementedError  # pragma: no cover

    def error(self, raw: Any, why: str) -> ParamError:
        return ParamError(f"{raw!r} {why} (allowed: {self.allowed()})", where=self.name or None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "default": self.default,
            "help": self.help,
            "allowed": self.allowed(),
        }


class _Ranged:
    """Range checking shared by Int and Float (their ``min``/``max`` fields)."""

    min: Any
    max: Any

    def in_range(self, value: Any) -> Any:
        if self.min is not None and value < self.min:
            raise self.error(value, f"is below the minimum {self.min}")  # type: ignore[attr-defined]
        if self.max is not None and value > self.max:
            raise self.error(value, f"is above the maximum {self.max}")  # type: ignore[attr-defined]
        return value

    def bounds(self, fmt: str) -> str:
        lo = "-inf" if self.min is None else format(self.min, fmt)
        hi = "inf" if self.max is None else format(self.max, fmt)
        return f"{lo}..{hi}"

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "min": self.min, "max": self.max}  # type: ignore[misc]


@dataclass(frozen=True)
class Int(_Ranged, Param):
    default: int = 0
    min: int | None = None
    max: int | None = None

    kind = "int"

    def parse(self, raw: Any) -> int:
        if isinstance(raw, bool):
            raise self.error(raw, "is not an integer")
        if isinstance(raw, str):
            text = raw.strip().replace("_", "")
            try:
                value = int(text)
            except ValueError:
                # Accept "2**8" and "1e3" style only when they are exact integers.
                value = _exact_int(text)
                if value is None:
                    raise self.error(raw, "is not an integer") from None
        elif isinstance(raw, float) and raw.is_integer():
            value = int(raw)
        elif isinstance(raw, int):
            value = raw
        else:
            raise self.error(raw, "is not an integer")
        return self.in_range(value)

    def allowed(self) -> str:
        return f"integer {self.bounds('d')}"


@dataclass(frozen=True)
class Float(_Ranged, Param):
    default: float = 0.0
    min: float | None = None
    max: float | None = None

    kind = "float"

    def parse(self, raw: Any) -> float:
        if isinstance(raw, bool):
            raise self.error(raw, "is not a number")
        try:
            value = float(raw.strip() if isinstance(raw, str) else raw)
        except (TypeError, ValueError):
            raise self.error(raw, "is not a number") from None
        if not math.isfinite(value):
            raise self.error(raw, "is not a finite number")
        return self.in_range(value)

    def allowed(self) -> str:
        return f"number {self.bounds('g')}"


@dataclass(frozen=True)
class Choice(Param):
    default: str = ""
    choices: tuple[str, ...] = ()

    kind = "choice"

    def __post_init__(self) -> None:
        object.__setattr__(self, "choices", tuple(str(c) for c in self.choices))

    def parse(self, raw: Any) -> str:
        value = str(raw).strip()
        if value not in self.choices:
            raise self.error(raw, "is not one of the choices")
        return value

    def allowed(self) -> str:
        return "one of " + ", ".join(self.choices)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "choices": list(self.choices)}


@dataclass(frozen=True)
class Bool(Param):
    default: bool = False

    kind = "bool"

    def parse(self, raw: Any) -> bool:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise self.error(raw, "is not a boolean")

    def allowed(self) -> str:
        return "true or false"


def _exact_int(text: str) -> int | None:
    if "**" in text:
        base, _, exp = text.partition("**")
        try:
            return int(base) ** int(exp)
        except ValueError:
            return None
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if value.is_integer() else None


def param_from_dict(description: dict[str, Any]) -> Param:
    """The inverse of ``Param.to_dict``: the TUI gets parameters as plain data from the measuring
    process and validates its form with the very same ``parse``."""
    kinds: dict[str, type[Param]] = {"int": Int, "float": Float, "choice": Choice, "bool": Bool}
    kind = kinds.get(description.get("kind", ""))
    if kind is None:
        raise ParamError(f"unknown parameter kind {description.get('kind')!r}", where=description.get("name"))
    fields = {"default": description.get("default"), "help": description.get("help") or ""}
    if kind in (Int, Float):
        fields.update(min=description.get("min"), max=description.get("max"))
    elif kind is Choice:
        fields["choices"] = tuple(description.get("choices") or ())
    spec = kind(**fields)
    object.__setattr__(spec, "name", description.get("name", ""))
    return spec


def check_declaration(name: str, spec: Param) -> None:
    """Reject a declaration that is itself invalid (its default is not allowed, an empty choice list)."""
    if not name.isidentifier():
        raise ParamError(f"parameter name {name!r} must be a Python identifier")
    if isinstance(spec, Choice) and not spec.choices:
        raise ParamError("a Choice needs at least one choice", where=name)
    if isinstance(spec, (Int, Float)) and spec.min is not None and spec.max is not None and spec.min > spec.max:
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
    unknown = sorted(set(values) - set(specs))
    if unknown:
        known = ", ".join(specs) or "none"
        raise ParamError(f"unknown parameter {unknown[0]!r} (parameters: {known})")
    return {name: spec.parse(values[name]) if name in values else spec.default for name, spec in specs.items()}


def parse_assignment(text: str) -> tuple[str, str]:
    """Split ``NAME=VALUE`` from the command line."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise ParamError(f"expected NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()
