"""The scenario catalog, typed: what a loader process says about each scenario file, as the CLI lists
it, the app shows it and the on-disk cache keeps it.

These are ``msgspec`` structs, like the result document (:mod:`tuiperf.results.model`): attributes a
renamed field breaks under mypy, and strict decoding wherever the catalog is read back (the cache,
``tuiperf list --json``). :func:`encode` and :func:`decode` are its only (de)serialisers.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

if TYPE_CHECKING:  # the parsers are imported where they are built: the app's first frame needs none
    from tuiperf.api.params import Param

ParamKind = Literal["int", "float", "choice", "bool"]
Origin = Literal["built-in", "user", "shadows built-in"]
ParamValue = int | float | str | bool


def scenario_id_from_path(path: str | Path) -> str:
    """A scenario's id from its file name: ``my_mlp.py`` -> ``my-mlp``."""
    return Path(path).stem.replace("_", "-").lower()


class Entry(msgspec.Struct, kw_only=True):
    """Base of every part of the catalog: keyword-only, all fields written."""


class ParamSpec(Entry):
    """One declared parameter, as plain data; :meth:`to_param` gives back the parser a run uses."""

    name: str
    kind: ParamKind
    default: ParamValue
    help: str = ""
    allowed: str = ""  # what values are allowed, in words
    min: int | float | None = None
    max: int | float | None = None
    choices: list[str] = []

    @classmethod
    def of(cls, spec: Param) -> ParamSpec:
        from tuiperf.api.params import Choice, Float, Int

        ranged = spec if isinstance(spec, Int | Float) else None
        return cls(
            name=spec.name,
            kind=spec.kind,  # type: ignore[arg-type]  # one of ParamKind for every concrete Param
            default=spec.default,
            help=spec.help,
            allowed=spec.allowed(),
            min=ranged.min if ranged else None,
            max=ranged.max if ranged else None,
            choices=list(spec.choices) if isinstance(spec, Choice) else [],
        )

    def to_param(self) -> Param:
        """The parser this parameter's values go through (the form validates with the run's own)."""
        from tuiperf.api.params import Bool, Choice, Float, Int
        from tuiperf.common.errors import ParamError

        spec: Param
        default: Any = self.default  # its declaration checked it against the kind
        bounds: dict[str, Any] = {"min": self.min, "max": self.max}
        if self.kind == "int":
            spec = Int(default, help=self.help, **bounds)
        elif self.kind == "float":
            spec = Float(default, help=self.help, **bounds)
        elif self.kind == "choice":
            spec = Choice(default, choices=self.choices, help=self.help)
        elif self.kind == "bool":
            spec = Bool(default, help=self.help)
        else:  # pragma: no cover - decoding refuses other kinds
            raise ParamError(f"unknown parameter kind {self.kind!r}", where=self.name)
        return spec.named(self.name)


class VariantEntry(Entry):
    name: str
    equivalent: bool = True  # False: computes something else on purpose (kept out of the guard)
    doc: str = ""
    reference: bool = False  # the one the guard compares the others with


class LastGood(Entry):
    """A broken file's error, carried by the last version of it that loaded (see ``catalog.last_good``)."""

    file: str  # the broken file itself (the entry's ``path`` is the copy that runs)
    line: int | None = None
    error: str = ""

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


class ScenarioEntry(Entry):
    id: str
    title: str
    path: str
    question: str = ""
    params: list[ParamSpec] = []
    variants: list[VariantEntry] = []
    source_sha256: str | None = None
    origin: Origin = "built-in"  # set by the catalog from the folder (see catalog.folders.assemble)
    shadows: str | None = None  # the built-in file this user's copy replaces
    last_good: LastGood | None = None  # set when this is the last good copy of a now broken file

    def param_names(self) -> list[str]:
        return [p.name for p in self.params]


class LoadError(Entry):
    """A file that could not be used as a scenario, and why."""

    path: str
    error: str
    line: int | None = None
    id: str = ""  # from the file name when not given

    def __post_init__(self) -> None:
        self.id = self.id or scenario_id_from_path(self.path)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path

    def __str__(self) -> str:
        return f"{self.where}: {self.error}"


class Catalog(Entry):
    dirs: list[str] = []
    scenarios: list[ScenarioEntry] = []
    broken: list[LoadError] = []

    def scenario(self, scenario_id: str) -> ScenarioEntry | None:
        return next((s for s in self.scenarios if s.id == scenario_id), None)

    def load_error(self, scenario_id: str) -> LoadError | None:
        return next((b for b in self.broken if b.id == scenario_id), None)


def encode(catalog: Catalog) -> bytes:
    return msgspec.json.encode(catalog)


def decode(data: bytes | str) -> Catalog:
    """Strictly: a missing or mistyped field raises ``msgspec.ValidationError`` naming it."""
    return msgspec.json.decode(data, type=Catalog)
