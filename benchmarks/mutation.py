"""Do the tests notice a wrong number? Mutate the measuring modules and count the mutants they kill.

    python benchmarks/mutation.py [--max 40] [--only stats]

Each mutant changes one operator or constant (``<`` to ``<=``, ``+`` to ``-``, ``and`` to ``or``,
an int by one, a float doubled) in one module, then that module's tests run (``pytest -x``, one process);
a mutant is killed when they fail. Prints the kill rate per module, and the survivors so a reader can
judge whether each one is a missing test or an equivalent change. A small, dependency-free stand-in
for mutmut (whose 3.x release does not start on this machine).
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TARGETS = {
    "stats": ("tuiperf/results/stats.py", ["tests/test_stats.py", "tests/test_modes.py"]),
    "guard": ("tuiperf/measuring/guard.py", ["tests/test_guard.py"]),
    "sampler": ("tuiperf/measuring/sampler.py", ["tests/test_sampler.py"]),
    "timing": ("tuiperf/measuring/timing.py", ["tests/test_timing.py", "tests/test_sampler.py"]),
    "step": ("tuiperf/api/step.py", ["tests/test_steps.py"]),
    "reconcile": ("tuiperf/results/reconcile.py", ["tests/test_reconcile.py", "tests/test_breakdown.py"]),
    "lockstep": ("tuiperf/processes/lockstep.py", ["tests/test_lockstep.py"]),
    "outputs": ("tuiperf/results/outputs.py", ["tests/test_outputs.py", "tests/test_guard.py"]),
    "calibration": ("tuiperf/results/calibration.py", ["tests/test_auto_calibration.py", "tests/test_intervals.py"]),
}
# Mutants judged equivalent, each with its reason: (module, the mutated source line, the change).
# They are counted apart, not as survivors; the rate is killed / (tried - equivalent). A new entry
# needs a proof or a measurement in its reason, not a shrug.
EQUIVALENT: dict[tuple[str, str, str], str] = {
    ("lockstep", "CANCEL_POLL_S = 0.05", "0.05 -> 0.1"): "how often a waiting process looks at the cancel flag",
    ("lockstep", "if self._granted == index:", "Eq -> NotEq"): (
        "a process leaves wait() holding the grant only on cancel, after which every wait returns False "
        "without looking at the grant"
    ),
    ("stats", "k = math.ceil(1 + n / 2.0 + half)", "Add -> Sub"): (
        "k - n indexes the same order statistic from the end (x[k-1-n] is x[k-1])"
    ),
    ("stats", "if j < 1 or k > n:", "1 -> 2"): "k = n + 1 - j, so j = 1 means k = n: the range either way",
    ("stats", "return min(1.0, math.erfc(z / math.sqrt(2.0)))", "1.0 -> 2.0"): "erfc(z/sqrt 2) <= 1 for z >= 0",
    ("stats", "half = min(math.ceil(4.0 * bw / step), 4 * size)", "4.0 -> 8.0"): (
        "kernel truncated at 8 sigma instead of 4: the taps added weigh < exp(-8) of the peak"
    ),
    ("stats", "half = min(math.ceil(4.0 * bw / step), 4 * size)", "4 -> 5"): (
        "a cap that binds only when 4 sigma spans more than four grid widths (bw above the whole range)"
    ),
    ("stats", "offsets = np.arange(-half, half + 1) * step", "Add -> Sub"): (
        "drops the kernel's outermost taps at 4 sigma, each < exp(-8) of the peak"
    ),
    ("stats", "grid, counts, density = _kde_on_grid(core, p1 - 3 * bw, p99 + 3 * bw, bw)", "3 -> 4"): (
        "pads the grid by 4 bandwidths instead of 3 beyond p1/p99, where no sample lies"
    ),
    ("stats", "peaks[i : i + 2] = [p if d[p] >= d[q] else q]", "GtE -> Gt"): (
        "which of two exactly equal peaks survives a merge: the clusters are split at the same valley"
    ),
    ("stats", "if steps.size >= 4 and np.mean(steps <= 1.01 * steps.min()) >= 0.5:", "LtE -> Lt"): (
        "differs only for a step of exactly 1.01x the smallest; timer ticks are equal steps, jitter is not 1.01x"
    ),
    ("guard", "if isinstance(ref_leaves, dict) and isinstance(leaves, dict):", "And -> Or"): (
        "both outputs go through _leaves with the same `keyed`: two dicts or two lists, never one of each"
    ),
    ("guard", 'worst_excess, worst_detail = 0.0, ""', "0.0 -> 1.0"): (
        "an excess is difference / tolerance with difference > tolerance: always above 1"
    ),
    ("guard", "if abs(ratio - 1) > FLOPS_REL_TOL:", "Gt -> GtE"): (
        "|ratio - 1| is a multiple of 2^-53 for a ratio in [0.5, 2); the double nearest 0.05 is not"
    ),
    ("reconcile", "RESAMPLES = 400", "400 -> 401"): "one more bootstrap resample: a precision choice",
    ("reconcile", "rng = random.Random(0)", "0 -> 1"): "another fixed seed for the bootstrap",
    ("reconcile", "if not a.groups_ns or not b.groups_ns:", "Or -> And"): (
        "with one side's groups empty the resampled paths lack the stages' paths and {} is returned anyway"
    ),
    ("timing", "def timer_resolution_ns(clock: Clock = DEFAULT_CLOCK, reads: int = 2000) -> float:", "2000 -> 2001"): (
        "one more clock reading when looking for the smallest step"
    ),
    (
        "timing",
        "def harness_overhead_ns(clock: Clock = DEFAULT_CLOCK, samples: int = 2000) -> float:",
        "2000 -> 2001",
    ): ("the median of one more no-op sample: a precision choice"),
    ("timing", "if loops == 1:", "1 -> 2"): "one call through the general path returns the same figure (x / 1)",
    (
        "sampler",
        "planned, per_turn = fixed_rounds(targets, samples, interleave) if samples is not None and targets else (0, 0)",
        "0 -> 1",
    ): "the planned rounds are read only when a sample count is set, and then fixed_rounds gives them",
    ("sampler", "return int(min(MAX_BLOCK, max(1, BLOCK_NS // max(estimate_ns, 1.0))))", "1.0 -> 2.0"): (
        "the floor only keeps an estimate of 0 from dividing by zero: any floor under BLOCK_NS / MAX_BLOCK "
        "(10,000 ns) gives MAX_BLOCK"
    ),
    (
        "sampler",
        "done = round_index / planned if samples is not None else elapsed / budget_s if budget_s > 0 else 1.0",
        "1.0 -> 2.0",
    ): "the fraction reported is min(done, 1.0)",
    ("outputs", 'worst, detail = 0.0, ""', "0.0 -> 1.0"): (
        "a leaf is counted only beyond its tolerance, where difference / tolerance > 1 already"
    ),
    ("outputs", "uncarried += 1", "1 -> 2"): "only whether any leaf was left uncarried is read",
    (
        "outputs",
        "MAX_CARRIED_ELEMENTS = 4_000_000",
        "4000000 -> 4000001",
    ): "a size limit: the boundary itself is tested against a patched limit (test_guard)",
    ("outputs", "scale = max(float(np.max(np.abs(b[finite]))), 1e-30)", "1e-30 -> 2e-30"): (
        "the floor matters only against an all-zero reference, for differences under 1e-30: a precision choice"
    ),
    ("calibration", "MAX_BYTES = 1 << 20", "1 -> 2"): "a cap on the bytes read; a calibration file is a few KB",
    ("calibration", "MAX_BYTES = 1 << 20", "20 -> 21"): "a cap on the bytes read; a calibration file is a few KB",
    (
        "calibration",
        "@lru_cache(maxsize=1)",
        "1 -> 2",
    ): "a cache's size: here() takes no argument, one entry either way",
    ("calibration", "@lru_cache(maxsize=4)", "4 -> 5"): "a cache's size: the same files are read either way",
    (
        "calibration",
        "return float(np.interp(math.log(max(call_ns, 1.0)), xs, ys)) * upper_bound_factor(fewest - 1)",
        "1.0 -> 2.0",
    ): "differs only for a call under 2 ns, below the timer's resolution; the spread is constant below 1 µs anyway",
    (
        "calibration",
        "return bool(points) and all(p.call_ns > 0 and p.processes >= MIN_PROCESSES for p in points)",
        "0 -> 1",
    ): "differs only for a call between 0 and 1 ns, below the timer's resolution",
    ("calibration", "if not ((ma > 0).all() and (mb > 0).all()):", "0 -> 1"): (
        "differs only for a process median between 0 and 1 ns, below the timer's resolution"
    ),
    ("calibration", "return math.sqrt(1 / max(cube, 1e-3) ** 3)", "0.001 -> 0.002"): (
        "the cube falls under 0.002 only for 1 degree of freedom above 99.8 % confidence; 90 % is used"
    ),
}
SWAPS: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.And: ast.Or,
    ast.Or: ast.And,
}


def sites(tree: ast.Module) -> list[tuple[ast.AST, str]]:
    """Every place one mutation can be made: (node, what), skipping docstrings."""
    found: list[tuple[ast.AST, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            found += [(node, f"compare#{i}") for i, op in enumerate(node.ops) if type(op) in SWAPS]
        elif isinstance(node, ast.BinOp | ast.BoolOp) and type(node.op) in SWAPS:
            found.append((node, "op"))
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool)
        ):
            found.append((node, "constant"))
    return found


def mutate(node: ast.AST, what: str) -> str:
    if what.startswith("compare#"):
        assert isinstance(node, ast.Compare)
        i = int(what.split("#")[1])
        before = type(node.ops[i]).__name__
        node.ops[i] = SWAPS[type(node.ops[i])]()
        return f"{before} -> {type(node.ops[i]).__name__}"
    if what == "op":
        assert isinstance(node, ast.BinOp | ast.BoolOp)
        before = type(node.op).__name__
        node.op = SWAPS[type(node.op)]()
        return f"{before} -> {type(node.op).__name__}"
    assert isinstance(node, ast.Constant)
    before = node.value
    # An int moves by one (an off-by-one); a float doubles (1e9 + 1 would change nothing measurable).
    node.value = before + 1 if isinstance(before, int) else (before * 2 if before else 1.0)
    return f"{before!r} -> {node.value!r}"


def run_tests(tests: list[str], timeout_s: float) -> bool:
    """True when the tests fail (the mutant is killed); a hang counts as killed."""
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:cacheprovider", *tests]
    try:
        done = subprocess.run(command, cwd=ROOT, capture_output=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return True
    return done.returncode != 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=40, help="mutants per module at most (spread evenly)")
    parser.add_argument("--only", action="append", choices=sorted(TARGETS))
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    total_killed = total = 0
    for name in args.only or sorted(TARGETS):
        module, tests = TARGETS[name]
        path = ROOT / module
        original = path.read_text()
        count = len(sites(ast.parse(original)))
        step = max(1, count // args.max)
        chosen = list(range(0, count, step))[: args.max]
        killed, survivors, equivalent, started = 0, [], [], time.monotonic()
        lines = original.splitlines()
        try:
            for index in chosen:
                tree = ast.parse(original)
                node, what = sites(tree)[index]
                line = getattr(node, "lineno", 0)
                source = lines[line - 1].split("  #")[0].strip()
                change = mutate(node, what)
                reason = EQUIVALENT.get((name, source, change))
                if reason is not None:
                    equivalent.append(f"line {line}: {change}: {reason}")
                    continue
                path.write_text(ast.unparse(tree))
                if run_tests(tests, args.timeout):
                    killed += 1
                else:
                    survivors.append(f"line {line}: {change}  ({lines[line - 1].strip()})")
        finally:
            path.write_text(original)
        tried = len(chosen) - len(equivalent)
        total_killed, total = total_killed + killed, total + tried
        rate = killed / tried if tried else 1.0
        elapsed = time.monotonic() - started
        print(
            f"{name:10s} {killed:3d}/{tried:3d} killed ({rate:.0%}) of {count} sites"
            f" ({len(equivalent)} equivalent set aside), {elapsed:.0f} s"
        )
        for survivor in survivors:
            print(f"    survived: {module} {survivor}")
        for same in equivalent:
            print(f"    equivalent: {module} {same}")
    print(f"all        {total_killed}/{total} non-equivalent mutants killed ({total_killed / max(total, 1):.0%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
