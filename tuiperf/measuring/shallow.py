"""Run the timed loop in a thread of its own, whose Python stack starts with it.

jaxlib records the Python traceback of the call site on every JAX call (kept with the arrays it
returns, for device memory profiles, and on by default), walking every frame of the calling thread's
stack. A call therefore costs more the deeper the stack it is made from (``benchmarks/fidelity.py`` prints the cost
per frame). The measuring process reaches its sampler through the request loop, the run and the
sampler, about ten frames below where a script's timing loop makes its calls, and read that much
slower. From a thread that starts at the sampler, its calls are made three frames deep, which reads
as a timing loop in a script's function does.
"""

from __future__ import annotations

import _thread
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TypeVar

T = TypeVar("T")

Scope = Callable[[], AbstractContextManager[Any]]


def in_fresh_thread(
    fn: Callable[[], T], scope: Scope = nullcontext, on_interrupt: Callable[[], None] = lambda: None
) -> T:
    """``fn()`` in a new thread whose stack is ``fn``'s frame on top of one: its value, or its exception
    raised here. Pass a ``functools.partial``, not a lambda, so that no frame comes between.

    ``scope()`` is entered in that thread first: thread-local JAX state (a ``jax.default_device`` scope)
    does not cross threads. An interrupt (Ctrl-C in a REPL) while waiting calls ``on_interrupt``, which
    must make ``fn`` return soon, waits for it, and is raised.
    """
    done = threading.Event()
    ended: list[tuple[bool, Any]] = []

    def entry() -> None:
        try:
            with scope():
                ended.append((True, fn()))
        except BaseException as exc:  # noqa: BLE001 - raised again in the waiting thread
            ended.append((False, exc))
        finally:
            done.set()

    _thread.start_new_thread(entry, ())  # not threading.Thread: its bootstrap adds three frames
    try:
        done.wait()
    except BaseException:
        on_interrupt()
        done.wait()
        raise
    finished, value = ended[0]
    if not finished:
        raise value
    return value  # type: ignore[no-any-return]
