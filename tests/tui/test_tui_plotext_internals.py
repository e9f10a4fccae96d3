"""plotext's private API is used in one module only (tuiperf/tui/widgets/plotext_internals.py): no other
file of the project imports plotext's private modules, reaches its figure's ``monitor`` or ``matrix``, or
calls the figure's private methods. An upgrade of plotext then has one file to check."""

from __future__ import annotations

import ast
from pathlib import Path

import plotext._figure

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = ROOT / "tuiperf" / "tui" / "widgets" / "plotext_internals.py"
# The figure's private methods (``_set_size``, ``_build_matrix`` ...) and the two ways into its cells
PRIVATE_NAMES = {
    name for name in dir(plotext._figure._figure_class) if name.startswith("_") and not name.startswith("__")
} | {"monitor", "matrix"}


def plotext_uses(path: Path) -> list[tuple[int, str]]:
    """Where this file imports a private plotext module or names one of plotext's private attributes."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            modules = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Attribute) and node.attr in PRIVATE_NAMES:
            found.append((node.lineno, f".{node.attr}"))
            continue
        else:
            continue
        if any(name.startswith("plotext._") for name in modules):
            found.append((node.lineno, f"imports {', '.join(modules)}"))
    return sorted(found)


def test_only_plotext_internals_uses_plotexts_private_api():
    files = [p for folder in ("tuiperf", "tests", "benchmarks", "scripts") for p in (ROOT / folder).rglob("*.py")]
    here = Path(__file__).resolve()
    uses = [
        f"{path.relative_to(ROOT)}:{line}: {use}"
        for path in sorted(files)
        if path not in (ALLOWED, here)
        for line, use in plotext_uses(path)
    ]
    assert uses == []


def test_the_check_finds_each_kind_of_use(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from plotext._utility import ansi_end\nimport plotext._matrix\n"
        "def f(plt):\n    plt._set_size(1, 2)\n    return plt.monitor.matrix\n"
    )
    assert plotext_uses(sample) == [
        (1, "imports plotext._utility, plotext._utility.ansi_end"),
        (2, "imports plotext._matrix"),
        (4, "._set_size"),
        (5, ".matrix"),
        (5, ".monitor"),
    ]
