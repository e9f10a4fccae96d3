"""``tuiperf export RUN --format script``: a Python file a maintainer can run without tuiperf.

The script holds the scenario's source as the run imported it, a stand-in for the few ``tuiperf``
names a scenario file uses, the parameters of every point (a sweep's all, in order), and a timing loop
written out in full: warm-up, then ``perf_counter_ns`` around each call and ``block_until_ready``, a
stateful ``Step`` fed its own state back. It prints each variant's median beside the stored one. It
imports jax (and whatever the scenario imports: equinox, flax, numpy), never tuiperf.

A result file can come from anyone, so nothing in it becomes code: its texts (scenario id, date,
device, dispatch mode, parameters, variant names) enter the script as Python literals only, and the
source is never read from a path the result names. It is looked for among the scenario folders
(built-in, the user's, ``--scenarios``) by the SHA-256 the result records; a result without one is
refused. The source is written out verbatim (a raw string a reviewer reads as Python) when that
literal gives back exactly the file, and the script checks its hash again before running it.
"""

from __future__ import annotations

import ast
import hashlib
import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tuiperf.common.errors import TuiperfError
from tuiperf.results.model import RunResult

MAX_SOURCE_BYTES = 1 << 20  # a scenario file is a few kB; a candidate beyond this is not read
_SHA256 = re.compile("[0-9a-f]{64}")

SHIM = '''
# ---- a stand-in for the tuiperf names a scenario file imports (this script does not need tuiperf) ----
import hashlib
from pathlib import Path
import statistics
import sys
import time
import types
from types import SimpleNamespace

import jax


class Skip(Exception):
    """A variant that cannot run here (a library not installed...)."""


class _Param:
    def __init__(self, default, *extra, **options):
        self.default, self.options = default, options

    def problem(self, value):  # why a stored value is not one this parameter takes (None: it is one)
        low, high = self.options.get("min"), self.options.get("max")
        if low is not None and value < low or high is not None and value > high:
            return f"is outside {low}..{high}"
        return None


class Int(_Param):
    def problem(self, value):
        return "is not an integer" if type(value) is not int else super().problem(value)


class Float(_Param):
    def problem(self, value):
        return "is not a number" if type(value) not in (int, float) else super().problem(value)


class Choice(_Param):
    def problem(self, value):
        choices = [str(c) for c in self.options.get("choices", ())]
        return None if isinstance(value, str) and value in choices else "is not one of the choices"


class Bool(_Param):
    def problem(self, value):
        return None if type(value) is bool else "is not true or false"


class Bench:
    def __init__(self, fn, *args, **options):  # jit_fn, params, compare... only matter to tuiperf
        self.fn, self.args = fn, args


class Step:
    def __init__(self, fn, state, *inputs, inplace=False, pool=None, **options):
        self.fn, self.state, self.inputs, self.inplace = fn, state, inputs, inplace
        self.pool = [tuple(p) if isinstance(p, (tuple, list)) else (p,) for p in pool] if pool else None


class Scenario:
    def __init__(self, title="", question="", params=None, **options):
        self.title, self.params, self.variants, self.setup_fn = title, params or {}, {}, None

    def setup(self, fn):
        self.setup_fn = fn
        return fn

    def check(self, fn):
        return fn

    def variant(self, name, **options):
        def register(fn):
            self.variants[name] = fn
            return fn

        return register


def eqx_filter_jit_level(fn, *args):  # only tuiperf's breakdown uses jit levels
    return None, None


nnx_jit_level = eqx_filter_jit_level


def preflatten(fn, tree):
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    return jax.jit(lambda leaves, *rest: fn(jax.tree_util.tree_unflatten(treedef, leaves), *rest)), leaves


_tuiperf = types.ModuleType("tuiperf")
for _name in ("Skip", "Int", "Float", "Choice", "Bool", "Bench", "Step", "Scenario",
              "eqx_filter_jit_level", "nnx_jit_level", "preflatten"):
    setattr(_tuiperf, _name, globals()[_name])
sys.modules["tuiperf"] = _tuiperf


def caller(built):
    """A zero-argument call and what to wait for, as tuiperf times it."""
    if isinstance(built, Bench):
        return lambda: built.fn(*built.args)
    carried = {"state": jax.tree.map(lambda a: a.copy() if isinstance(a, jax.Array) else a, built.state)}
    calls = [0]

    def step():
        inputs = built.pool[calls[0] % len(built.pool)] if built.pool else built.inputs
        calls[0] += 1
        state = carried["state"]
        if built.inplace:
            return built.fn(*(state if isinstance(state, tuple) else (state,)), *inputs)
        carried["state"], out = built.fn(state, *inputs)
        return carried["state"], out  # waited for whole, as tuiperf does

    return step


def median_ns(call, seconds, warmup=20, max_samples=100_000):
    for _ in range(warmup):
        jax.block_until_ready(call())
    samples, deadline = [], time.perf_counter() + seconds
    while time.perf_counter() < deadline and len(samples) < max_samples:
        start = time.perf_counter_ns()
        jax.block_until_ready(call())
        samples.append(time.perf_counter_ns() - start)
    return statistics.median(samples), len(samples)


def show(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"
'''

MAIN = """

def shown(text):  # text from the result as printable characters: no escape sequence reaches the terminal
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


def refusal(scenario):  # why the stored points cannot run (None: they can); a result can be crafted
    for point in POINTS:
        for name, value in point["params"].items():
            spec = scenario.params.get(name)
            why = "is not a parameter of the scenario" if spec is None else spec.problem(value)
            if why:
                return f"the stored parameter {shown(name)}={shown(repr(value))} {why}"
        for name in point["variants"]:
            if name not in scenario.variants:
                return f"the stored variant {shown(name)} is not one the scenario defines"
    return None


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    if hashlib.sha256(SOURCE.encode("utf-8")).hexdigest() != SOURCE_SHA256:
        sys.exit("the scenario source below is not the one the run imported (its SHA-256 differs): not run")
    if DISPATCH == "sync":  # before JAX computes anything, as tuiperf does
        jax.config.update("jax_cpu_enable_async_dispatch", False)
    namespace = {"__name__": "scenario_source"}
    exec(compile(SOURCE, SOURCE_NAME, "exec"), namespace)
    scenario = namespace["scenario"]
    why = refusal(scenario)
    if why:
        sys.exit(f"{why}: not run")
    on = f"{jax.devices()[0]} ({shown(DISPATCH)} dispatch), jax {jax.__version__}"
    print(f"{shown(SCENARIO)} on {on}; {seconds:g} s per variant")
    for point in POINTS:  # a sweep's every point, in order; a single run's one
        params = point["params"]
        if len(POINTS) > 1:
            print("at " + " ".join(f"{shown(k)}={shown(v)}" for k, v in params.items() if k in SWEPT))
        p = SimpleNamespace(**{**{name: spec.default for name, spec in scenario.params.items()}, **params})
        ctx = scenario.setup_fn(p) if scenario.setup_fn else None
        print(f"{'variant':30s} {'median':>10s} {'samples':>8s}   stored run")
        for name in point["variants"]:
            try:
                built = scenario.variants[name](p, ctx)
            except Skip as why:
                print(f"{shown(name):30s} skipped: {shown(why)}")
                continue
            ns, n = median_ns(caller(built), seconds)
            stored = [show(m) + (f" @ {shown(env)}" if env else "") for env, m in point["stored"].get(name, [])]
            print(f"{shown(name):30s} {show(ns):>10s} {n:8d}   {' · '.join(stored) or '-'}")

if __name__ == "__main__":
    main()
"""


def script(result: RunResult, scenario_files: Iterable[Path] = ()) -> str:
    """The standalone script for ``result``; its scenario source is found by hash among
    ``scenario_files`` (the caller lists the scenario folders: ``catalog.folders.scenario_files``),
    never read from a path the result names."""
    return generate(result, find_source(result, scenario_files))


def find_source(result: RunResult, scenario_files: Iterable[Path] = ()) -> str:
    """The text of a scenario file whose SHA-256 is the one ``result`` records."""
    recorded = result.scenario.source_sha256
    if not recorded or not _SHA256.fullmatch(recorded):
        raise TuiperfError(
            "this result records no SHA-256 of its scenario file (older tuiperf results do not), so no "
            "source can be verified to be the one it measured: no script is written"
        )
    wanted = result.scenario.id.replace("-", "_")
    for path in sorted(scenario_files, key=lambda p: p.stem.lower() != wanted):  # the same id's file first
        try:
            if path.stat().st_size > MAX_SOURCE_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if hashlib.sha256(data).hexdigest() == recorded:
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError:
                continue
    raise TuiperfError(
        f"no scenario file here has the SHA-256 the run recorded ({recorded[:12]}…): the file changed since "
        "this run, or it is not in your scenario folders (add its folder with --scenarios)"
    )


def literal(value: Any) -> str:
    """``value`` (text, numbers, lists and dicts of them from a result) as a Python literal."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if value is None or isinstance(value, bool | int | float | str):
        return repr(value)
    return repr(str(value))


def _points_literal(points: list[dict[str, Any]]) -> str:
    """The points as a list literal, one point a line."""
    return "[\n" + "".join(f"    {literal(point)},\n" for point in points) + "]"


def source_literal(source: str) -> str:
    """The source as a raw string written out line by line (reads as the Python it is), when that
    literal gives back exactly ``source``; otherwise one quoted line per source line."""
    printable = all(c.isprintable() or c in "\n\t" for c in source)
    if printable and "'''" not in source and not source.endswith("\\"):
        raw = "r'''" + source + "'''"
        try:
            if ast.literal_eval(raw) == source:
                return raw
        except (SyntaxError, ValueError):
            pass
    return "(\n" + "".join(f"    {line!r}\n" for line in source.splitlines(keepends=True)) + ")"


def generate(result: RunResult, source: str) -> str:
    """The script for ``result`` with ``source`` (already verified against the recorded hash)."""
    from tuiperf.results.environments import base_name

    points = []
    for point in result.points if result.sweep is not None and result.points else [result]:
        # Over several environments each variant is measured once per environment ("jit @ B"): the
        # script times the scenario's own variant once here, beside each environment's stored median.
        stored: dict[str, list[Any]] = {}
        for v in point.variants:
            if v.sampling.stats is not None:
                stored.setdefault(base_name(v), []).append([v.environment, v.sampling.stats.median_ns])
        variants = [base_name(v) for v in point.variants if v.ok]
        points.append({"params": dict(point.params), "variants": list(dict.fromkeys(variants)), "stored": stored})
    swept = result.sweep.parameters if result.sweep is not None else []
    packages = {k: v for k, v in (result.env.packages if result.env else {}).items() if v}
    header = (
        '"""Re-times a tuiperf run without tuiperf: python THIS_FILE [SECONDS].\n\n'
        "SCENARIO, STARTED_AT, DEVICE, DISPATCH and PACKAGES below say which run, and on what, the stored\n"
        "medians were measured. Needs only what the scenario imports (jax, and e.g. equinox, flax, numpy).\n\n"
        "SOURCE is the scenario's code, run by this script: review it before running a script from\n"
        "someone else's result.\n"
        '"""\n'
    )
    constants = (
        f"\n\nSCENARIO = {literal(result.scenario.id)}\n"
        f"STARTED_AT = {literal(result.started_at)}\n"
        f"DEVICE = {literal(result.device.id)}\n"
        f"DEVICE_KIND = {literal(result.device.kind)}\n"
        f"DISPATCH = {literal(result.options.dispatch)}\n"
        f"PACKAGES = {literal(packages)}\n"
        f"SWEPT = {literal(swept)}  # the swept parameter of a sweep (a grid's two)\n"
        "# Each point's parameters, the variants it measured and their stored medians (ns, each with the\n"
        "# environment it was measured in when the run had several): a sweep's every point (a grid's every\n"
        "# cell); a run's one.\n"
        f"POINTS = {_points_literal(points)}\n"
        f"SOURCE_NAME = {literal(result.scenario.id + '.py')}\n"
        f"SOURCE_SHA256 = {literal(hashlib.sha256(source.encode('utf-8')).hexdigest())}\n"
        "# ---- the scenario file, as the run imported it: the code this script runs ----\n"
        f"SOURCE = {source_literal(source)}\n"
    )
    return header + constants + SHIM + MAIN
