"""The child side of a measuring (or loading) process: ``python -m tuiperf.measuring.serve``.

The parent (:mod:`tuiperf.processes.runner`) starts it with a socket for requests and a small shared file
for the cancel flag and the index of the variant being sampled; its stdout and stderr are a pipe the
parent drains into a log, so nothing a scenario prints reaches the caller's terminal or JSON.

Started, it imports JAX and the frameworks at once (a spare process is then ready when needed) but
initialises no JAX backend, so the dispatch mode can still be chosen by its first run. It ignores
Ctrl-C (the parent decides when to stop) and dies with its parent.

Protocol: the parent sends ``(verb, payload)``; the child answers ``("event", Event)`` any number of
times, then ``("ok", value)`` or ``("error", (title, message, where))``. Everything sent is made
picklable first: an exception whose ``str()`` fails or a note that cannot be pickled is sent as text.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import pickle
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from tuiperf.common.memory import resident_mb
from tuiperf.contract.protocol import Shared


def die_with_parent(parent: int) -> None:
    """Linux: the kernel kills us when the parent dies; elsewhere (and as a second line) a thread does."""
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(70)

    threading.Thread(target=watch, name="tuiperf-parent-watch", daemon=True).start()


def safe_send(conn: Connection, message: tuple[str, Any]) -> None:
    """Send ``message``; if it cannot be pickled, send the best text version of it instead."""
    try:
        conn.send(message)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as exc:
        from tuiperf.common.text import one_line

        if message[0] == "event":
            return  # a live update is not worth a failure
        if message[0] == "ok":  # a result holding an object that cannot be pickled: send it as text
            try:
                conn.send(("ok", as_plain(message[1])))
                return
            except Exception:  # noqa: BLE001 - then say why it could not be sent
                pass
        conn.send(("error", ("Internal error", one_line(f"the result could not be sent: {exc}", 300), None)))


def as_plain(value: Any) -> Any:
    """A result document with every object in it that is not plain data replaced by its text."""
    import msgspec

    from tuiperf.common.text import inert

    return msgspec.convert(msgspec.to_builtins(value, enc_hook=inert), type(value))


def forget_compiled() -> None:
    """Drop JAX's caches of the run's traced and compiled functions: a reused measuring process
    otherwise grew by ~4 MB a run (335 -> 419 MB over 20 runs of mlp-closure-vs-argument, whose
    every run builds new jitted functions; benchmarks/ui_responsiveness.py)."""
    import gc

    import jax

    jax.clear_caches()
    gc.collect()


def serve(conn: Connection, shared: Shared) -> None:
    from tuiperf.common.errors import TuiperfError
    from tuiperf.contract.request import RunRequest
    from tuiperf.measuring.inprocess import InProcessRunner
    from tuiperf.measuring.loading import describe_error, describe_file

    runner = InProcessRunner()
    while True:
        try:
            verb, payload = conn.recv()
        except (EOFError, OSError):
            return
        if verb == "stop":
            return
        try:
            if verb == "describe_file":
                value: Any = describe_file(payload)
            elif verb == "devices":
                value = runner.devices()
            elif verb == "memory":  # answered after the last run's clean-up: requests are served in order
                value = resident_mb()
            elif verb == "run":
                request: RunRequest = payload
                names: list[str] = []

                def emit(event: Any, names: list[str] = names) -> None:
                    variants = getattr(event, "variants", None)
                    if isinstance(variants, list) and hasattr(event, "header"):  # RunStarted
                        names[:] = variants
                    elif hasattr(event, "phase"):  # PhaseChanged: the variant it names is the one running
                        # now (a profile or a guard after sampling must not leave the last sampled one named)
                        variant = event.variant
                        shared.set_turn(names.index(variant) if variant in names else -1)
                    safe_send(conn, ("event", event))

                def on_turn(variant: str, names: list[str] = names) -> None:
                    shared.set_turn(names.index(variant) if variant in names else -1)

                try:
                    value = runner.run(request, emit, shared, on_turn)  # type: ignore[arg-type]
                finally:
                    shared.set_turn(-1)
            else:
                raise TuiperfError(f"unknown request {verb!r}")
            safe_send(conn, ("ok", value))
        except TuiperfError as exc:
            safe_send(conn, ("error", (exc.title, exc.message, exc.where)))
        except Exception as exc:  # noqa: BLE001 - anything else is a bug, reported with its type
            safe_send(conn, ("error", ("Internal error", describe_error(exc), None)))
        if verb == "run":
            forget_compiled()  # after the answer: the caller does not wait for the clean-up


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conn", type=int, required=True)
    parser.add_argument("--shared", type=int, required=True)
    parser.add_argument("--parent", type=int, required=True)
    args = parser.parse_args()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(args.parent)
    conn = Connection(args.conn)
    shared = Shared(args.shared)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import jax
    import jax.numpy  # noqa: F401

    for module in ("equinox", "flax.linen", "flax.nnx", "optax"):
        try:
            __import__(module)
        except Exception:  # noqa: BLE001 - an optional framework may be missing
            pass
    conn.send(("ready", os.getpid()))
    serve(conn, shared)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
