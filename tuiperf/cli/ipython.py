"""tuiperf in IPython and Jupyter: ``%load_ext tuiperf.cli.ipython``, then any command as a line magic::

    %tuiperf time 'f(x)' 'jax.jit(f)(x)' -s 'import jax, jax.numpy as jnp; f = jnp.sin; x = jnp.ones(3)'

The statements run in a measuring process, as on the command line: they see the setup (``-s``), not the
notebook's variables. IPython is not imported here; it calls :func:`load_ipython_extension`.
"""

from __future__ import annotations

import shlex
from typing import Any


def tuiperf_magic(line: str) -> int:
    """Run ``tuiperf LINE``; its exit status (a usage error's is 2, said in one line, not raised)."""
    from tuiperf.cli import main

    try:
        return main(shlex.split(line))
    except SystemExit as exc:  # argparse's --help and usage errors
        return exc.code if isinstance(exc.code, int) else 2


def load_ipython_extension(ipython: Any) -> None:
    ipython.register_magic_function(tuiperf_magic, magic_kind="line", magic_name="tuiperf")
