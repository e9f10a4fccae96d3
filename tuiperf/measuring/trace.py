"""``tuiperf trace ID --variant NAME``: a JAX profiler trace of steady-state calls, for Perfetto.

The variant is built, compiled and warmed up exactly as for a run (:func:`~tuiperf.measuring.prepare.prepare`),
then ``jax.profiler.trace(..., create_perfetto_trace=True)`` records ``calls`` calls, each waited for.
Compilation stays outside the trace. Runs in the calling process (the CLI's), so the app starts it as
a ``tuiperf trace`` subprocess and JAX stays out of the UI.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

from tuiperf.common.errors import ParamError
from tuiperf.contract.request import RunRequest
from tuiperf.measuring.inprocess import set_dispatch
from tuiperf.measuring.prepare import as_bench, prepare
from tuiperf.measuring.resolve import resolve
from tuiperf.results.device_activity import CALL_MARKER

OPEN_HINT = "open it at https://ui.perfetto.dev (Open trace file), or with TensorBoard's profile plugin"


def trace(request: RunRequest, variant: str, out: Path, calls: int = 100) -> list[Path]:
    """Trace ``calls`` steady-state calls of ``variant``; the trace files written under ``out``."""
    import jax

    set_dispatch(request.settings.dispatch)
    resolved = resolve(request)
    if variant not in resolved.scenario.variants:
        known = ", ".join(resolved.scenario.variants)
        raise ParamError(f"unknown variant {variant!r} (variants: {known})", where="--variant")
    if calls < 1:
        raise ParamError(f"--calls must be at least 1, got {calls}")
    p = SimpleNamespace(**resolved.params)
    with jax.default_device(resolved.device):
        ctx = resolved.scenario.setup_fn(p) if resolved.scenario.setup_fn else None
        bench = as_bench(resolved.scenario.variants[variant].build(p, ctx))
        prepared = prepare(
            variant, bench, device=resolved.device, budget_s=request.settings.budget_s
        )  # compile, warm up
        started = time.time()
        with jax.profiler.trace(str(out), create_perfetto_trace=True):
            for _ in range(calls):
                with jax.profiler.TraceAnnotation(CALL_MARKER):  # each call's window, for device_activity
                    prepared.first.block(bench.fn(*bench.args))
    written = [p for p in out.rglob("*") if p.is_file() and p.stat().st_mtime >= started - 1]
    return sorted(written, key=lambda p: (not p.name.startswith("perfetto"), p.name))
