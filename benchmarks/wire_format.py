"""Evidence for the wire format between a parent and its measuring process: pickle (what
``multiprocessing.Connection.send`` does, and what tuiperf sent before ``tuiperf/contract/wire.py``)
against msgspec's msgpack (what it sends now), for the largest message a run sends, its result (here
three variants of 20,000 samples each).

Alternates the two formats ``--rounds`` times and prints, per round, the best of five timings of
encoding and decoding each, and the size. msgspec decodes into the typed result (it validates as it
builds), pickle rebuilds the objects it was given.

    python benchmarks/wire_format.py [--rounds 3] [--samples 20000]
"""

from __future__ import annotations

import argparse
import pickle
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
import factories  # the tests' result builder

from tuiperf.results.model import RunResult


def best_ms(action: Callable[[], object], repeats: int = 30) -> float:
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(repeats):
            action()
        timings.append((time.perf_counter() - started) / repeats)
    return min(timings) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=20_000)
    args = parser.parse_args()
    random.seed(0)
    run = factories.result({n: [random.uniform(900, 1100) for _ in range(args.samples)] for n in "abc"})
    encoder, decoder = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(RunResult)
    pickled, packed = pickle.dumps(run, protocol=pickle.HIGHEST_PROTOCOL), encoder.encode(run)
    for index in range(args.rounds):
        p_out = best_ms(lambda: pickle.dumps(run, protocol=pickle.HIGHEST_PROTOCOL))
        p_in = best_ms(lambda: pickle.loads(pickled))
        m_out = best_ms(lambda: encoder.encode(run))
        m_in = best_ms(lambda: decoder.decode(packed))
        sizes = f"{len(pickled) / 1e3:.0f} kB / {len(packed) / 1e3:.0f} kB"
        print(
            f"round {index + 1}: pickle {p_out:.2f} + {p_in:.2f} = {p_out + p_in:.2f} ms; "
            f"msgpack {m_out:.2f} + {m_in:.2f} = {m_out + m_in:.2f} ms ({sizes})"
        )


if __name__ == "__main__":
    main()
