"""Everything derived from the option table (:class:`RunSettings`, declared in
:mod:`tuiperf.results.settings`): the command line's arguments (:func:`add_arguments`), the app's
run-option fields (``tui/widgets/run_options.py``), a request's settings (``RunRequest.settings``), their
validation (:func:`check`), which options combine (:func:`check_combination`) and what a result stores
(:func:`stored`: ``RunOptions`` is the table plus the variants).

The derivations read the table from :data:`TABLE` when they run, so a test can put a table with one
more option there and see it reach the command line, the form and the request.
"""

from __future__ import annotations

import argparse
import math
import typing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from tuiperf.common.errors import ParamError
from tuiperf.results.settings import (  # the table, named here too for the modules that derive from it
    DEFAULT_DISPATCH,
    DISPATCH_MODES,
    INTERLEAVE_MODES,
    MAX_SAMPLES_PER_VARIANT,
    MEASURING_COMMANDS,
    SWEEP_ORDERS,
    Option,
    RunSettings,
    options_of,
)

__all__ = [
    "DEFAULT_DISPATCH",
    "DISPATCH_MODES",
    "INTERLEAVE_MODES",
    "MAX_SAMPLES_PER_VARIANT",
    "MEASURING_COMMANDS",
    "SWEEP_ORDERS",
    "TABLE",
    "Declared",
    "Option",
    "RunSettings",
    "add_arguments",
    "check",
    "check_combination",
    "declared",
    "from_arguments",
    "parsed",
    "stored",
]

if TYPE_CHECKING:  # the parsers are imported where they are built: the app's first frame needs none
    from tuiperf.api.params import Param
    from tuiperf.results.model import RunOptions

TABLE: type[RunSettings] = RunSettings  # the table the derivations read (tests put a longer one here)


@dataclass(frozen=True)
class Declared:
    """One row of the table, resolved: name, value type, default, whether None is allowed, and the rest."""

    name: str
    kind: type  # int, float, str or bool
    default: Any
    optional: bool
    option: Option

    def param(self) -> Param:
        """The strict parser of this option's values: the same one the CLI, the form and :func:`check` use."""
        from tuiperf.api.params import Bool, Choice, Float, Int

        spec: Param
        o = self.option
        if self.kind is bool:
            spec = Bool(bool(self.default), help=o.help)
        elif o.choices:
            spec = Choice(str(self.default), choices=o.choices, help=o.help)
        elif self.kind is str:
            spec = _Name(o.help, o.metavar)
        elif self.kind is int:
            default = self.default if self.default is not None else int(o.min or 0)
            spec = Int(default, min=_int_or_none(o.min), max=_int_or_none(o.max), help=o.help)
        else:
            default = self.default if self.default is not None else (o.min or 0.0)
            spec = Float(float(default), min=o.min, max=o.max, help=o.help)
        return spec.named(self.label_word)

    @property
    def label_word(self) -> str:
        """How messages name it: the flag's word (``budget``), else the field's name."""
        return self.option.field_id or self.name

    def parse(self, raw: Any) -> Any:
        """A value from text or Python: the none word (or None) where allowed, else the parser's result."""
        if raw is None or (self.optional and isinstance(raw, str) and raw.strip().lower() in ("", self.option.none)):
            if self.optional:
                return None
            raise ParamError(f"a value is needed (allowed: {self.param().allowed()})", where=self.label_word)
        return self.param().parse(raw)

    def text_of(self, value: Any) -> str:
        """A value as the form and the command line write it."""
        if value is None:
            return ""
        if isinstance(value, float):
            return f"{value:g}"
        return str(value).lower() if isinstance(value, bool) else str(value)


HOST_PORT = "HOST:PORT"  # the metavar of an option whose text is an address (--coordinator)


def is_host_port(text: str) -> bool:
    """``text`` is HOST:PORT: a host with no spaces, a colon, a port 1..65535 in ASCII digits."""
    host, colon, port = text.rpartition(":")
    if not colon or not host or any(c.isspace() for c in text):
        return False
    return port.isascii() and port.isdigit() and 0 < int(port) < 65536


def _Name(help: str, metavar: str | None = None) -> Param:
    """An option's text: one word with no spaces or commas (a variant's name), or HOST:PORT where that
    is its metavar (an address: said as one, not as a name); the parser built on first use."""
    from tuiperf.api.params import Param

    address = metavar == HOST_PORT

    class Name(Param):
        kind = "name"

        def __init__(self) -> None:
            self._init(None, (), help)

        def parse(self, raw: Any) -> str:
            text = self.text_of(raw) if isinstance(raw, str) else ""
            if address:
                if not is_host_port(text):
                    raise self.error(raw, f"is not {HOST_PORT}")
                return text
            if not text or any(c.isspace() or c == "," for c in text):
                raise self.error(raw, "is not a name")
            return text

        def allowed(self) -> str:
            if address:
                return f"{HOST_PORT} with no spaces, a port 1..65535, e.g. 127.0.0.1:12345"
            return "a variant's name (no spaces or commas)"

    return Name()


def _int_or_none(value: float | None) -> int | None:
    return None if value is None else int(value)


def declared(table: type[RunSettings] | None = None) -> list[Declared]:
    """The rows of ``table`` (default: :data:`TABLE`), in declaration order."""
    table = table or TABLE
    defaults = {field.name: field.default for field in msgspec.structs.fields(table)}
    rows = []
    for name, (base, option) in options_of(table).items():
        kinds = [k for k in typing.get_args(base) or (base,) if k is not type(None)]
        rows.append(Declared(name, kinds[0], defaults[name], type(None) in typing.get_args(base), option))
    return rows


def check(settings: RunSettings) -> None:
    """Every value within its bounds and choices: one :class:`ParamError` naming the first that is not."""
    for row in declared(type(settings)):
        value = getattr(settings, row.name)
        if value is None and row.optional:
            continue
        if isinstance(value, float) and not math.isfinite(value):
            raise ParamError(f"{value} is not a finite number (allowed: {row.param().allowed()})", where=row.label_word)
        row.param().parse(value)


def check_combination(settings: RunSettings, *, environments: bool = False, in_process: bool = False) -> None:
    """Which options may combine, in one place: one :class:`ParamError` for the first pair that may
    not. ``environments``: the run measures in Python environments (``--env``); ``in_process``: in
    the caller's process (``--in-process``)."""
    if in_process and environments:
        raise ParamError("--env measures in each environment's own process: leave out --in-process")
    if in_process and settings.cluster > 1:
        raise ParamError("a cluster run (--cluster N) needs its own measuring processes: leave out --in-process")
    if environments and settings.cluster > 1:
        raise ParamError("--cluster forms one JAX cluster of one environment; give one --env with it")
    if environments and settings.processes > 1:
        raise ParamError("--processes repeats a run in fresh processes of one environment; give one --env with it")
    if settings.cluster > 1 and settings.measure == "compile":
        raise ParamError(
            "--measure compile repeats each compile as often as its interval needs, which differs between a "
            "cluster's processes; measure compile time with --devices alone",
            where="cluster",
        )
    if settings.cluster > 1 and settings.processes > 1:
        raise ParamError(
            "--cluster and --processes do not combine: a cluster's processes already report one median each",
            where="cluster",
        )


def parsed(values: dict[str, Any], base: RunSettings | None = None) -> RunSettings:
    """``base`` (default: the table's defaults) with ``values`` (raw, by option name) parsed and set."""
    base = base if base is not None else TABLE()
    rows = {row.name: row for row in declared(type(base))}
    changes = {}
    for name, raw in values.items():
        if name not in rows:
            raise ParamError(f"unknown run option {name!r} (options: {', '.join(rows)})")
        changes[name] = rows[name].parse(raw)
    return msgspec.structs.replace(base, **changes)


# -- the command line ---------------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    """One argument per option with a flag that ``command`` takes; left out, an option keeps its
    default (see :func:`from_arguments`)."""
    for row in declared():
        o = row.option
        if o.flag is None or command not in o.commands:
            continue
        if row.kind is bool:
            parser.add_argument(o.flag, dest=row.name, action="store_const", const=not row.default, help=o.help)
            continue
        shown = row.text_of(row.default) or o.none  # nothing to show: the help says what happens by default
        extra = f" (default {shown})" if shown and (row.default != 0 or o.none) and "(default" not in o.help else ""
        parser.add_argument(  # parsed by from_arguments: a bad value is one ParamError line, as everywhere
            o.flag,
            dest=row.name,
            metavar="{" + ",".join(o.choices) + "}" if o.choices else o.metavar or "VALUE",
            help=(o.help + extra).replace("%", "%%"),
        )


def from_arguments(args: argparse.Namespace, defaults: dict[str, Any] | None = None) -> RunSettings:
    """The settings the command line asked for; an option not given takes ``defaults`` (by name), else
    the table's default."""
    given = {row.name: getattr(args, row.name) for row in declared() if getattr(args, row.name, None) is not None}
    return parsed({**(defaults or {}), **given})


# -- what a result keeps ------------------------------------------------------------------------------
def stored(
    settings: RunSettings, variants: list[str] | None, dispatch: str | None = None, baseline: str | None = None
) -> RunOptions:
    """The result's record of how it was measured; ``dispatch`` is the mode the process really used,
    ``baseline`` the variant ratios are against (asked for, or the scenario's reference)."""
    from tuiperf.results.model import RunOptions

    values = msgspec.structs.asdict(settings)
    if dispatch is not None:
        values["dispatch"] = dispatch
    if baseline is not None:
        values["baseline"] = baseline
    return RunOptions(variants=variants, **values)
