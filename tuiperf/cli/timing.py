"""`tuiperf time 'f(x)' 'jax.jit(f)(x)' -s 'import jax; ...'`: statements timed against each other.

A question too small for a scenario file: the statements become the variants of one written into a
private temporary folder, which the normal run path measures (a measuring process, interleaved turns,
every call's outputs waited for with ``block_until_ready``, 95 % intervals, the equivalence guard), and
the usual report is printed. The setup runs once in the measuring process, and each statement is the
body of a function defined in the setup's namespace, so a sample times the statement and one Python call,
as ``timeit`` times its loop's body; a call of names (``f(x)``, ``jnp.sin(x)``) is timed as the callee
with those arguments (``Bench(f, x)``), as a scenario file would, with no function around it. The
statements and the setup are the user's own code from their command line: they are run, and only ever
shown as plain text.
"""

from __future__ import annotations

import argparse
import ast
import shutil
import tempfile
from pathlib import Path

from tuiperf.common.errors import ParamError

SCENARIO_ID = "time"
NAME_LIMIT = 40  # a statement longer than this is named s1, s2, ... (the report lists what each is)

_FILE = '''"""Written by `tuiperf time` from statements given on its command line."""

from tuiperf import Bench, Scenario

SETUP = {setup!r}
STATEMENTS = {statements!r}

scenario = Scenario(
    title="tuiperf time",
    question="Which of these statements is faster? " + " vs ".join(code for _, code in STATEMENTS),
    id={scenario_id!r},
)


@scenario.setup
def namespace(p):
    """The setup, run once; each statement becomes a function in its namespace."""
    names = {{"__name__": "__tuiperf_time__"}}
    exec(compile(SETUP, "<setup>", "exec"), names)
    for index, (_, code) in enumerate(STATEMENTS):
        exec(compile(function_source(index, code), f"<statement {{index + 1}}>", "exec"), names)
    return names


def function_source(index, code):
    try:
        compile(code, "<statement>", "eval")
    except SyntaxError:  # a statement, not an expression: run it, return nothing
        body = "\\n".join("    " + line for line in code.splitlines())
        return f"def __tuiperf_statement_{{index}}():\\n{{body}}\\n    return None\\n"
    return f"def __tuiperf_statement_{{index}}():\\n    return (\\n{{code}}\\n    )\\n"


def simple_call(code):
    """``f(x)``, ``jnp.sin(x, 2)``: a call of a name (or a module's attribute) with names and constants,
    where evaluating the callee and the arguments once is the same as evaluating them at each call;
    then it is timed as ``Bench(f, x)``, with no function around it. None otherwise."""
    import ast

    try:
        tree = ast.parse(code, mode="eval").body
    except SyntaxError:
        return None

    def dotted(node):
        return isinstance(node, ast.Name) or (isinstance(node, ast.Attribute) and dotted(node.value))

    if not isinstance(tree, ast.Call) or tree.keywords or not dotted(tree.func):
        return None
    if not all(isinstance(a, (ast.Name, ast.Constant)) for a in tree.args):
        return None
    return ast.unparse(tree.func), [ast.unparse(a) for a in tree.args]


def add(index, name, code):
    call = simple_call(code)

    def build(p, names):
        if call is not None:
            callee, arguments = call
            return Bench(eval(callee, names), *(eval(a, names) for a in arguments))
        return Bench(names[f"__tuiperf_statement_{{index}}"])

    build.__doc__ = code
    scenario.variant(name)(build)


for _index, (_name, _code) in enumerate(STATEMENTS):
    add(_index, _name, _code)
'''


def variant_names(statements: list[str]) -> list[str]:
    """Each statement's variant name: the statement without its spaces where that is a valid name
    (no comma, printable, short, not taken), else ``s1``, ``s2``, ... by position."""
    names: list[str] = []
    for index, code in enumerate(statements, 1):
        compact = "".join(code.split())
        ok = compact and "," not in compact and compact.isprintable() and len(compact) <= NAME_LIMIT
        names.append(compact if ok and compact not in names else f"s{index}")
    return names


def check_code(code: str, where: str, mode: str) -> None:
    """A syntax error is said now, in one line, before a process starts."""
    try:
        ast.parse(code, mode=mode)
    except SyntaxError as exc:
        raise ParamError(f"not Python: {exc.msg} (line {exc.lineno})", where=where) from None


def scenario_source(statements: list[str], setup: list[str]) -> str:
    if len(set(statements)) != len(statements):
        raise ParamError("the same statement is given twice", where="STATEMENT")
    for index, code in enumerate(statements, 1):
        check_code(code, f"statement {index}", "exec")
    joined = "\n".join(setup)
    check_code(joined, "--setup", "exec")
    pairs = list(zip(variant_names(statements), statements, strict=True))
    return _FILE.format(setup=joined, statements=pairs, scenario_id=SCENARIO_ID)


def cmd_time(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.text import Text

    from tuiperf.cli.measure import cmd_run
    from tuiperf.common.text import one_line

    source = scenario_source(list(args.statements), list(args.setup))
    folder = Path(tempfile.mkdtemp(prefix="tuiperf-time-"))
    try:
        (folder / "tuiperf_time.py").write_text(source, encoding="utf-8")
        names = variant_names(list(args.statements))
        if any(name != "".join(code.split()) for name, code in zip(names, args.statements, strict=True)):
            out = Console(highlight=False, soft_wrap=True)
            for name, code in zip(names, args.statements, strict=True):
                out.print(Text(f"{name} = {one_line(code)}"))
        args.scenario, args.scenarios = SCENARIO_ID, [str(folder)]
        args.sweep = []
        return cmd_run(args)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
