"""``tuiperf export RUN --format script``: a Python file a maintainer can run without tuiperf.

The script holds the scenario's source exactly as the run imported it (its SHA-256 is checked), a
stand-in for the few ``tuiperf`` names a scenario file uses, the run's parameters, and a timing loop
written out in full: warm-up, then ``perf_counter_ns`` around each call and ``block_until_ready``,
a stateful ``Step`` fed its own state back. It prints each variant's median beside the stored one.
It imports jax (and whatever the scenario imports: equinox, flax, numpy), never tuiperf.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tuiperf.common.errors import TuiperfError
from tuiperf.results.model import RunResult

SHIM = '''
# ---- a stand-in for the tuiperf names a scenario file imports (this script does not need tuiperf) ----
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
        self.default = default


class Int(_Param): pass
class Float(_Param): pass
class Choice(_Param): pass
class Bool(_Param): pass


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

def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    if DISPATCH == "sync":  # before JAX computes anything, as tuiperf does
        jax.config.update("jax_cpu_enable_async_dispatch", False)
    namespace = {"__name__": "scenario_source"}
    exec(compile(SOURCE, SOURCE_NAME, "exec"), namespace)
    scenario = namespace["scenario"]
    p = SimpleNamespace(**{**{name: spec.default for name, spec in scenario.params.items()}, **PARAMS})
    ctx = scenario.setup_fn(p) if scenario.setup_fn else None
    print(f"{SCENARIO} on {jax.devices()[0]} ({DISPATCH} dispatch), jax {jax.__version__}; {seconds:g} s per variant")
    print(f"{'variant':30s} {'median':>10s} {'samples':>8s}   stored run")
    for name in VARIANTS:
        try:
            built = scenario.variants[name](p, ctx)
        except Skip as why:
            print(f"{name:30s} skipped: {why}")
            continue
        ns, n = median_ns(caller(built), seconds)
        stored = STORED.get(name)
        print(f"{name:30s} {show(ns):>10s} {n:8d}   {show(stored) if stored else '-'}")


if __name__ == "__main__":
    main()
"""


def script(result: RunResult) -> str:
    """The standalone script for ``result`` (the scenario file must be the one the run imported)."""
    shown = result.shown
    path = Path(result.scenario.path)
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TuiperfError(f"cannot read the scenario file: {exc.strerror or exc}", where=str(path)) from None
    recorded = result.scenario.source_sha256
    if recorded and hashlib.sha256(source.encode("utf-8")).hexdigest() != recorded:
        raise TuiperfError(
            "the scenario file changed since this run; the script would time other code", where=str(path)
        )
    measured = [v.name for v in shown.variants if v.ok]
    stored = {v.name: v.stats.median_ns for v in shown.variants if v.stats is not None}
    packages = json.dumps({k: v for k, v in (result.env.packages if result.env else {}).items() if v})
    device = f"{result.device.id} ({result.device.kind}), {result.options.dispatch} dispatch"
    header = (
        f'"""Reproduce tuiperf run of {result.scenario.id} ({result.started_at}): python THIS_FILE [SECONDS].\n\n'
        f"Stored medians were measured on {device},\nwith {packages}.\n"
        'Needs only what the scenario imports (jax, and e.g. equinox, flax, numpy): not tuiperf.\n"""\n'
    )
    constants = (
        f"\n\nSCENARIO = {result.scenario.id!r}\n"
        f"SOURCE_NAME = {path.name!r}\n"
        f"DISPATCH = {result.options.dispatch!r}\n"
        f"PARAMS = {dict(shown.params)!r}\n"
        f"VARIANTS = {measured!r}\n"
        f"STORED = {stored!r}  # medians of the stored run, ns\n"
        f"SOURCE = {source!r}\n"
    )
    return header + SHIM + constants + MAIN
