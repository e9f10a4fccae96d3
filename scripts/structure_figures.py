"""The figures of issue #35's before/after table, for the tree at PATH (default: here).

    python scripts/structure_figures.py [PATH]

Largest classes in measuring/ (lines), the most parameters of a constructor there (an __init__'s, or a
dataclass's fields), ``Any`` in contract/protocol.py, ``type: ignore`` in measuring/serve.py, the places
a rule on which run options combine is declared, where a ``Crash`` is built, and how often a shared
flag is declared.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

COMBINATION_RULES = ("give one --env with it", "leave out --in-process", "do not combine")
FLAGS = ("--width", "--json", "--force")


def classes(root: Path) -> list[tuple[int, int, str]]:
    """(lines, constructor parameters, file:class) of every class in measuring/."""
    found = []
    for path in sorted((root / "tuiperf" / "measuring").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef):
                continue
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
            if init is not None:
                a = init.args
                params = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) - 1 + bool(a.vararg) + bool(a.kwarg)
            elif any("dataclass" in ast.unparse(d) for d in node.decorator_list):
                params = sum(
                    isinstance(n, ast.AnnAssign)
                    and "ClassVar" not in ast.unparse(n.annotation)
                    and "init=False" not in ast.unparse(n.value or ast.Constant(None))
                    for n in node.body
                )
            else:
                params = 0
            found.append((lines, params, f"{path.name}:{node.name}"))
    return found


def count_in(paths: list[Path], pattern: str) -> list[str]:
    """``path:line`` of each line of ``paths`` that matches ``pattern``."""
    return [
        f"{p}:{i}" for p in paths for i, line in enumerate(p.read_text().splitlines(), 1) if re.search(pattern, line)
    ]


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    sources = sorted((root / "tuiperf").rglob("*.py"))
    found = sorted(classes(root), reverse=True)
    print("largest classes in measuring/ (lines, constructor parameters):")
    for lines, params, name in found[:5]:
        print(f"  {lines:4d} lines  {params:2d} params  {name}")
    widest = sorted(found, key=lambda f: f[1], reverse=True)[:3]
    print("most constructor parameters in measuring/: " + ", ".join(f"{p} ({name})" for _, p, name in widest))
    protocol = ast.parse((root / "tuiperf/contract/protocol.py").read_text())
    anys = sum(isinstance(n, ast.Name) and n.id == "Any" for n in ast.walk(protocol))
    print(f"Any in contract/protocol.py: {anys}")
    ignores = count_in([root / "tuiperf/measuring/serve.py"], r"type:\s*ignore")
    print(f"type: ignore in measuring/serve.py: {len(ignores)}")
    rules = [hit for rule in COMBINATION_RULES for hit in count_in(sources, re.escape(rule))]
    files = sorted({Path(hit.rsplit(":", 1)[0]).relative_to(root).as_posix() for hit in rules})
    print(f"combination rules: {len(rules)} declarations in {len(files)} files ({', '.join(files)})")
    crashes = []
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Crash":
                crashes.append(f"{path.relative_to(root)}:{node.lineno}")
    print(f"Crash builders: {len(crashes)} ({', '.join(crashes)})")
    for flag in FLAGS:
        declared = count_in(sources, r"add_argument\(\s*[\"']" + re.escape(flag) + r"[\"']")
        print(f"{flag} declared: {len(declared)} times")


if __name__ == "__main__":
    main()
