"""Starting points for a scenario of one's own: ``tuiperf new NAME`` and the app's ``n`` key."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tuiperf.common.errors import ParamError
from tuiperf.common.files import write_atomic

_FOLDER = Path(__file__).resolve().parent.parent / "templates"
_NAME_RE = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")


@dataclass(frozen=True)
class Template:
    name: str
    summary: str

    @property
    def path(self) -> Path:
        return _FOLDER / f"{self.name.replace('-', '_')}.py.tmpl"


TEMPLATES = (
    Template("plain-jax", "plain JAX: one function written two ways (jit vs op-by-op)"),
    Template("eqx-vs-flax", "an Equinox module vs a Flax NNX module, with the breakdown's jit levels"),
    Template("training-step", "a training step with its state carried call to call, donation on/off"),
)
DEFAULT_TEMPLATE = TEMPLATES[0].name


def template_named(name: str) -> Template:
    for template in TEMPLATES:
        if template.name == name:
            return template
    known = ", ".join(t.name for t in TEMPLATES)
    raise ParamError(f"no template {name!r} (known: {known})", where="--template")


def check_name(name: str) -> str:
    """A scenario name is its id: lower-case letters, digits, '-' and '_', starting with a letter."""
    if not _NAME_RE.match(name):
        raise ParamError(
            f"{name!r} is not a scenario name: use lower-case letters, digits, '-' or '_', starting with a letter",
            where="name",
        )
    return name


def new_scenario(name: str, folder: Path, template: str = DEFAULT_TEMPLATE, *, force: bool = False) -> Path:
    """Write ``folder/NAME.py`` from ``template`` (over an existing file only with ``force``) and return its path."""
    check_name(name)
    source = template_named(template).path.read_text(encoding="utf-8")
    title = name.replace("-", " ").replace("_", " ").capitalize()
    target = folder / f"{name.replace('-', '_')}.py"
    return write_atomic(target, source.replace("{title}", title).encode("utf-8"), force=force)
