"""``tuiperf serve``: the explorer in a browser tab (textual-serve), for a GPU box reached over SSH.

Each browser tab that opens the page starts its own explorer process (``tuiperf app`` with the options
given to ``serve``). The server listens on 127.0.0.1 only: reach it from another machine through an
SSH tunnel (``ssh -L 8000:127.0.0.1:8000 box``), never on an open port. Only the holder of the token in
the printed address drives it (:mod:`tuiperf.cli.serve_access`); each explorer ends with the server.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

HOST = "127.0.0.1"
DEFAULT_PORT = 8000
SERVER_PID_VARIABLE = "TUIPERF_SERVER_PID"  # set for the explorers serve starts: the process they end with


def app_command(argv: Sequence[str], index: int) -> list[str]:
    """The explorer's command line for ``tuiperf [GLOBAL...] serve [--port N] [APP OPTIONS...]``: the same
    options, given to ``tuiperf app``, without serve's own (``index``: where ``serve`` is in ``argv``)."""
    before, after = list(argv[:index]), list(argv[index + 1 :])
    rest: list[str] = []
    skip = False
    for word in after:
        if skip:
            skip = False
        elif word in ("--port", "--allow-host"):
            skip = True
        elif not word.startswith(("--port=", "--allow-host=")):
            rest.append(word)
    return [sys.executable, "-m", "tuiperf", *before, "app", *rest]


def cmd_serve(args: argparse.Namespace) -> int:
    from tuiperf.catalog.folders import user_scenarios_dir
    from tuiperf.cli.serve_access import Access
    from tuiperf.cli.serve_server import GuardedServer, port_is_free
    from tuiperf.common.errors import TuiperfError
    from tuiperf.common.text import one_line

    if not 0 < args.port < 65536:
        raise TuiperfError(f"--port {args.port}: a port is 1 to 65535")
    for folder in args.scenarios or []:
        if not Path(folder).is_dir():
            why = "is a file, not a folder of scenario files" if Path(folder).exists() else "no such folder"
            raise TuiperfError(f"--scenarios {one_line(str(folder))}: {why}")
    busy = port_is_free(HOST, args.port)
    if busy is not None:
        raise TuiperfError(f"cannot serve on {HOST}:{args.port}: {busy.strerror or busy}")
    access = Access.for_launch(args.port, args.allow_host)
    # Each explorer watches this process and ends with it, however it ends (even SIGKILL): see cmd_app.
    os.environ[SERVER_PID_VARIABLE] = str(os.getpid())
    command = shlex.join(app_command(args.argv, args.command_at))
    print(
        f"tuiperf: serving the explorer to whoever opens {access.url(HOST)}\n"
        f"  keep that address to yourself: its token is the only key (Ctrl+C stops the server)\n"
        f"  from another machine: ssh -L {args.port}:{HOST}:{args.port} THIS-HOST, then open that address there\n"
        f"  scenario files saved in the explorer go to {one_line(str(user_scenarios_dir()))}",
        flush=True,
    )
    try:
        GuardedServer(command, access, host=HOST, title="tuiperf").serve()
    except OSError as exc:  # the port taken between the check and the bind
        raise TuiperfError(f"cannot serve on {HOST}:{args.port}: {exc.strerror or exc}") from None
    return 0
