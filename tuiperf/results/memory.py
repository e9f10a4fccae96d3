"""Memory figures as rows and sentences, for every view (the text report, the app, Markdown).

Per variant, XLA's sizes of its program (:class:`~tuiperf.results.model.ProgramMemory`); "vs first" is
the difference of totals against the first variant that has figures, so donation shows as bytes
saved ("−4.00 MiB"). No numpy: the UI uses it.
"""

from __future__ import annotations

from tuiperf.common.text import one_line
from tuiperf.common.units import format_bytes
from tuiperf.results.model import RunResult


def memory_rows(result: RunResult) -> list[list[str]]:
    """One row per variant with figures: name, arguments, outputs, temporaries, donated, code, total, vs first."""
    sized = [v for v in result.variants if v.ok and v.program.memory is not None]
    if not sized:
        return []
    first = sized[0].program.memory
    assert first is not None
    rows = []
    for v in sized:
        m = v.program.memory
        assert m is not None
        whose = [] if m.of == "call" else [one_line(m.of)]
        whose += [f"per device of {m.devices}"] if m.devices > 1 else []
        of = f" ({', '.join(whose)})" if whose else ""
        difference = "" if v is sized[0] else format_bytes(m.total - first.total) if m.total != first.total else "same"
        rows.append(
            [
                one_line(v.name) + of,
                format_bytes(m.arguments),
                format_bytes(m.outputs),
                format_bytes(m.temporaries),
                format_bytes(m.aliased),
                format_bytes(m.generated_code),
                format_bytes(m.total),
                difference,
            ]
        )
    return rows


def process_line(result: RunResult) -> str:
    """The measuring process's memory after sampling, in one line ("" when none was recorded)."""
    m = result.memory
    if m is None:
        return ""
    parts = []
    if m.host_rss_bytes is not None:
        parts.append(f"host {format_bytes(m.host_rss_bytes)} resident")
    if m.device_peak_bytes_in_use is not None:
        limit = f" of {format_bytes(m.device_bytes_limit)}" if m.device_bytes_limit else ""
        parts.append(f"device peak {format_bytes(m.device_peak_bytes_in_use)} in use{limit}")
    elif result.device.platform == "cpu":
        parts.append("device allocator figures: none on the CPU")
    return "measuring process after sampling: " + ", ".join(parts) if parts else ""
