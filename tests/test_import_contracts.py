"""The layout's promises, checked on every import in the package (function-local and TYPE_CHECKING
imports included): which layer may import which, that the UI process never imports the measuring
side, and that no modules import each other in a circle.

The layers, from the bottom up (see ARCHITECTURE.md):

    common  <-  api, results  <-  contract  <-  catalog  <-  measuring | processes  <-  cli, tui

``measuring`` runs only in a measuring process (it imports JAX); ``processes`` is the parent's side.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "tuiperf"

# Which top-level parts of tuiperf each part may import (besides itself).
ALLOWED: dict[str, set[str]] = {
    "common": set(),
    "api": {"common"},
    "results": {"common"},
    "catalog": {"common", "contract"},
    "contract": {"common", "results", "api"},
    "measuring": {"common", "api", "results", "catalog", "contract"},
    "processes": {"common", "results", "catalog", "contract"},
    "cli": {"common", "api", "results", "catalog", "contract", "processes", "tui"},
    "tui": {"common", "api", "results", "catalog", "contract", "processes"},
    "__init__": {"common", "api"},  # the package face re-exports the scenario API
    "__main__": {"cli"},
}
# The command line measures in its own process only when asked to (`run --in-process`, `trace`,
# `devices`): those imports, and only those, reach the measuring side, each inside one function.
CLI_MEASURING_IMPORTS = {"tuiperf.measuring.inprocess", "tuiperf.measuring.trace", "tuiperf.measuring.env"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every tuiperf module ``path`` imports, anywhere in the file."""
    found: set[str] = set()
    here = module_name(path).split(".") if path.is_relative_to(PACKAGE) else []
    package = here if path.name == "__init__.py" else here[:-1]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("tuiperf"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1], *([base] if base else [])])
            if not base.startswith("tuiperf"):
                continue
            for alias in node.names:  # `from tuiperf.x import y` may name the module tuiperf.x.y
                candidate = f"{base}.{alias.name}"
                found.add(candidate if _exists(candidate) else base)
    return found


def _exists(name: str) -> bool:
    relative = Path(*name.split(".")[1:])
    return (PACKAGE / relative).with_suffix(".py").is_file() or (PACKAGE / relative / "__init__.py").is_file()


def part_of(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: {i for i in imports_of(path) if i != name} for name, path in modules.items()}


def test_each_layer_imports_only_the_layers_below_it():
    wrong = []
    for module, imported in sorted(graph().items()):
        part = "__main__" if module == "tuiperf.__main__" else part_of(module)
        for target in sorted(imported):
            other = part_of(target)
            if target == "tuiperf" and part != "__main__":
                wrong.append(f"{module} -> tuiperf (the package face is for scenario files)")
            elif other == part or (part == "cli" and target in CLI_MEASURING_IMPORTS):
                continue
            elif other not in ALLOWED[part]:
                wrong.append(f"{module} -> {target}")
    assert wrong == []


def test_the_ui_process_never_imports_the_measuring_side():
    reached = {
        m for m, imported in graph().items() if m.startswith("tuiperf.tui") and any(".measuring" in i for i in imported)
    }
    assert reached == set()


def test_no_modules_import_each_other_in_a_circle():
    edges = graph()
    circles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if nxt not in edges:
                continue
            if state.get(nxt) == 1:
                circles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for start in sorted(edges):
        if start not in state:
            visit(start, [start])
    assert circles == []


def test_the_checker_sees_imports_inside_functions_and_type_checking_blocks(tmp_path):
    source = tmp_path / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tuiperf.measuring import run\n"
        "def f():\n    import tuiperf.processes.runner\n    from tuiperf.common.text import one_line\n"
    )
    assert imports_of(source) >= {"tuiperf.measuring.run", "tuiperf.processes.runner", "tuiperf.common.text"}
