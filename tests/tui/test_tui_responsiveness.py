"""What keeps the UI thread quick with a big result (the timings themselves: benchmarks/ui_responsiveness.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import tuiperf.tui

TUI = Path(tuiperf.tui.__file__).parent


def work_decorators() -> list[tuple[str, ast.Call]]:
    found = []
    for path in sorted(TUI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for decorator in node.decorator_list:
                    if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", "") == "work":
                        found.append((f"{path.relative_to(TUI)}:{node.name}", decorator))
    return found


def test_every_worker_is_described_so_textual_never_reprs_its_arguments():
    """GIVEN Textual's @work without a description WHEN it starts THEN it builds one from repr() of
    every argument, on the UI thread: a 10 x 100,000-sample result took ~2 s each time the Statistics
    tab started its verdicts worker (measured with cProfile: 12.6 s in repr over six starts)."""
    decorators = work_decorators()
    assert len(decorators) >= 5  # plots, verdicts, the two reconciliations, the history
    undescribed = [where for where, call in decorators if "description" not in {k.arg for k in call.keywords}]
    assert undescribed == []


def test_a_described_worker_does_not_repr_its_arguments(monkeypatch):
    """The decorator's own behaviour, checked: with a description no argument is repr()'d."""
    import asyncio

    from textual import work
    from textual.app import App

    class Loud:
        def __repr__(self) -> str:
            raise AssertionError("repr() of a worker's argument")

    class Quiet(App[None]):
        @work(thread=True, description="quiet")
        def quiet(self, value: Loud) -> None:
            pass

        @work(thread=True)
        def loud(self, value: Loud) -> None:
            pass

    async def body() -> tuple[str, str]:
        app = Quiet()
        async with app.run_test():
            quiet = app.quiet(Loud())
            loud = app.loud(Loud())  # Textual catches the failing repr and says "<worker>"
            await app.workers.wait_for_complete()
            return quiet.description, loud.description

    assert asyncio.run(body()) == ("quiet", "<worker>")
