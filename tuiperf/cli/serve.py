"""``tuiperf serve``: the explorer in a browser tab (textual-serve), for a GPU box reached over SSH.

Each browser tab that opens the page starts its own explorer process (``tuiperf app`` with the options
given to ``serve``). The server listens on 127.0.0.1 only: reach it from another machine through an
SSH tunnel (``ssh -L 8000:127.0.0.1:8000 box``), never on an open port.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence

HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def app_command(argv: Sequence[str], index: int) -> list[str]:
    """The explorer's command line for ``tuiperf [GLOBAL...] serve [--port N] [APP OPTIONS...]``: the same
    options, given to ``tuiperf app``, without the port (``index``: where ``serve`` is in ``argv``)."""
    before, after = list(argv[:index]), list(argv[index + 1 :])
    rest: list[str] = []
    skip = False
    for word in after:
        if skip:
            skip = False
        elif word == "--port":
            skip = True
        elif not word.startswith("--port="):
            rest.append(word)
    return [sys.executable, "-m", "tuiperf", *before, "app", *rest]


def cmd_serve(args: argparse.Namespace) -> int:
    from textual_serve.server import Server

    from tuiperf.common.errors import TuiperfError

    if not 0 < args.port < 65536:
        raise TuiperfError(f"--port {args.port}: a port is 1 to 65535")
    command = shlex.join(app_command(args.argv, args.command_at))
    url = f"http://{HOST}:{args.port}"
    print(
        f"tuiperf: serving the explorer at {url} (Ctrl+C stops it); from another machine: "
        f"ssh -L {args.port}:{HOST}:{args.port} THIS-HOST, then open {url}",
        flush=True,
    )
    try:
        Server(command, host=HOST, port=args.port, title="tuiperf", public_url=url).serve()
    except OSError as exc:  # the port taken, most often
        raise TuiperfError(f"cannot serve on {HOST}:{args.port}: {exc.strerror or exc}") from None
    return 0
