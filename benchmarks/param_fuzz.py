"""Fuzz the parameter parser and the command-line list parsers with 10,000+ generated strings.

Counts crashes (any exception but ParamError), values of the wrong type or out of bounds, and slow
parses (over 10 ms). Prints one line and exits 1 unless all three are 0.

    python benchmarks/param_fuzz.py [--examples 12000]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time

from tuiperf.api.params import Bool, Choice, Float, Int, parse_assignments, parse_name_list, parse_sweep
from tuiperf.common.errors import ParamError

SPECS = {
    "i": (Int(8, min=-(10**6), max=10**6), int),
    "u": (Int(1), int),
    "f": (Float(0.5, min=0.0, max=1e6), float),
    "g": (Float(0.5), float),
    "c": (Choice("a", choices=("a", "b", "[/]")), str),
    "b": (Bool(False), bool),
}
PIECES = [
    "0",
    "1",
    "9",
    "12",
    "999999999999",
    "e",
    "E",
    "+",
    "-",
    "_",
    ".",
    "**",
    "^",
    "x",
    "0x",
    "p",
    "nan",
    "inf",
    "Infinity",
    " ",
    ",",
    "=",
    "[/]",
    "\x1b]52;c;",
    "\x07",
    "\n",
    "٣",
    "一",
    "1e308",
    "1e-400",
    "2**99999",
    "3**1000000000",
    "1e18",
    "1e19",
    "a",
    "b",
    "true",
    "no",
    "[",
    "]",
]


def generated(rng: random.Random) -> str:
    if rng.random() < 0.1:
        return "".join(rng.choice(PIECES) for _ in range(rng.randint(100, 2000)))  # very long
    if rng.random() < 0.3:
        return "".join(chr(rng.randint(0, 0x2FFF)) for _ in range(rng.randint(0, 12)))
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=12_000)
    args = parser.parse_args()
    rng = random.Random(0)
    crashes = wrong = slow = 0
    for _ in range(args.examples):
        text = generated(rng)
        for spec, kind in SPECS.values():
            start = time.perf_counter()
            try:
                value = spec.parse(text)
                bad = type(value) is not kind or (isinstance(value, float) and not math.isfinite(value))
                if isinstance(spec, Int | Float):
                    bad = (
                        bad
                        or (spec.min is not None and value < spec.min)
                        or (spec.max is not None and value > spec.max)
                    )
                wrong += bad
            except ParamError:
                pass
            except Exception as exc:  # noqa: BLE001 - counting crashes is the point
                crashes += 1
                print(f"crash on {text!r:.60}: {type(exc).__name__}: {exc}", file=sys.stderr)
            slow += time.perf_counter() - start > 0.01
        for parse, arg in ((parse_assignments, [text, generated(rng)]), (parse_sweep, text), (parse_name_list, text)):
            try:
                parse(arg)  # type: ignore[operator]
            except ParamError:
                pass
            except Exception as exc:  # noqa: BLE001 - counting crashes is the point
                crashes += 1
                print(f"crash in {parse.__name__} on {arg!r:.60}: {type(exc).__name__}: {exc}", file=sys.stderr)
    print(
        f"{args.examples} inputs × {len(SPECS) + 3} parsers: {crashes} crashes, {wrong} wrong types or bounds, "
        f"{slow} slow (>10 ms)"
    )
    return 1 if crashes or wrong or slow else 0


if __name__ == "__main__":
    sys.exit(main())
