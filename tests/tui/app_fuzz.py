"""Generated hostile results (``fuzz_documents``) through the app: one app, its results swapped in as
stored runs are opened (h, enter). For each, every text of the view all tabs draw from is searched for
raw control characters, and the progress rows and header drawn from it are rendered and searched; every
``full_every``-th result is opened as a stored run and drawn on screen tab by tab, with the variant
picker, comparison, export and error dialogs and the editor holding its texts. Shared by ``test_tui_result_fuzz.py`` and
``benchmarks/result_fuzz.py``."""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drawn import held, on_screen, raw_in

from tuiperf.common.errors import TuiperfError
from tuiperf.common.text import inert_data
from tuiperf.results.model import RunResult
from tuiperf.tui.commands import RESULT_TABS
from tuiperf.tui.view import view_of
from tuiperf.tui.widgets.run_progress import RunProgress


def generated_results(count: int, seed_value: int = 0) -> list[RunResult]:
    """``count`` generated hostile results (``fuzz_documents.hostile_results``)."""
    from fuzz_documents import hostile_results

    return hostile_results(count, seed_value)


@dataclass
class Findings:
    results: int = 0
    full: int = 0  # results drawn on screen tab by tab with the dialogs
    failures: int = 0  # results the panels could not show (reported by the app, not a crash)
    raw: list[str] = field(default_factory=list)  # "result i: widget: line" for each raw control found

    def note(self, where: str, found: dict[str, str]) -> None:
        self.raw += [f"{where}: {widget}: {line!r}"[:300] for widget, line in found.items()]


async def drive(pilot: Any, results: list[RunResult], full_every: int = 100) -> Findings:
    """Each of ``results`` through the app; the raw control characters found, and where."""
    app = pilot.app
    main = app.main
    progress = main.results_panel.query_one(RunProgress)
    findings = Findings()
    errors: list[tuple[str, str]] = []
    report = main.shell.report_error
    main.shell.report_error = lambda title, message, *rest, **kw: errors.append((title, message))
    try:
        for i, result in enumerate(results):
            findings.results += 1
            before = len(errors)
            if i % full_every == 0:  # as h, enter opens a stored run: every panel filled
                main._open_stored(result, i)
                findings.failures += len(errors) > before
                findings.full += 1
                await _on_screen(pilot, result, f"result {i}", findings)
                continue
            # Every tab draws from the view alone (tuiperf.tui.view): none of its texts may be raw; the
            # progress rows and the header drawn from it are rendered.
            view = view_of(result)
            raw = [text for text in _texts(view) if raw_in(text)]
            findings.note(f"result {i}", {"the view": raw[0]} if raw else {})
            progress.show_result(view.shown, state=f"stored run {i}", header=view.header)
            findings.note(f"result {i}", held(progress))
    finally:
        main.shell.report_error = report
    return findings


def _texts(value: Any) -> Iterator[str]:
    """Every text in ``value`` (dataclasses, structs, dicts, lists; lists of numbers are skipped)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _texts(key)
            yield from _texts(item)
    elif isinstance(value, list | tuple):
        if value and isinstance(value[0], float | int):
            return
        for item in value:
            yield from _texts(item)
    elif dataclasses.is_dataclass(value) or hasattr(type(value), "__struct_fields__"):
        names = getattr(type(value), "__struct_fields__", None) or [f.name for f in dataclasses.fields(value)]
        for name in names:
            yield from _texts(getattr(value, name))


async def _on_screen(pilot: Any, result: RunResult, where: str, findings: Findings) -> None:
    from tuiperf.results.compare import compare_runs
    from tuiperf.tui.screens.comparison import ComparisonScreen
    from tuiperf.tui.screens.editor import EditorScreen
    from tuiperf.tui.screens.variants import VariantPickerScreen

    app = pilot.app
    main = app.main
    for tab, _ in RESULT_TABS:
        main.action_show_tab(tab)
        await pilot.pause()
        findings.note(f"{where} tab {tab}", on_screen(app))
    names = [v.name for v in inert_data(result.shown).variants]  # as the histogram offers them
    dialogs: list[Any] = [VariantPickerScreen(names, names[:1])]
    try:
        dialogs.append(ComparisonScreen(inert_data(compare_runs(result, result)), "run 1"))
    except (TuiperfError, ValueError, ZeroDivisionError):
        pass  # a result that cannot be compared with itself is said as an error, not drawn
    text = "\n".join([result.scenario.id, *names, *result.warnings])
    dialogs.append(_reported(app, "Cannot display\x1b]0;t\x07 this result", text, where=result.scenario.id))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scenario.py"
        path.write_text(f"# {text}\n", encoding="utf-8", errors="surrogatepass")
        dialogs.append(EditorScreen(path, "fuzz", lambda: None, lambda *a, **k: None))
        for dialog in dialogs:
            await app.push_screen(dialog)
            await pilot.pause()
            findings.note(f"{where} {type(dialog).__name__}", on_screen(app) | held(dialog))
            await app.pop_screen()
    main.action_export()  # the export dialog proposes a file name from the scenario's id
    await pilot.pause()
    findings.note(f"{where} export", on_screen(app) | held(app.screen))
    await app.pop_screen()


def _reported(app: Any, title: str, message: str, where: str) -> Any:
    """The dialog the app's error handler opens for this error (with its details, as for a crash)."""
    from tuiperf.tui.screens.error import ErrorScreen

    shown: list[Any] = []
    push, as_dialogs = app.push_screen, app.launch.errors_as_dialogs
    app.push_screen = lambda screen, *a, **k: shown.append(screen)
    app.launch.errors_as_dialogs = True
    try:
        type(app).report_error(app, title, message, where, details=message)
    finally:
        app.push_screen, app.launch.errors_as_dialogs = push, as_dialogs
    return shown[0] if shown else ErrorScreen(title, message)
