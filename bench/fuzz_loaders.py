"""Fuzz every loader with generated bad inputs and print how many crashed (must be 0).

A crash is any outcome other than success or a one-line InputError. Default: 2,000 cases
(a quick check); `--cases 100000` for the issue's full run.

    python -m bench.fuzz_loaders [--cases N] [--seed S] [--target NAME ...]
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

from tests.support.fuzz_inputs import TARGETS, Workspace, generate, run_case


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--target", action="append", choices=sorted(TARGETS))
    parser.add_argument("--show", type=int, default=3, help="tracebacks shown per crash class")
    args = parser.parse_args()
    names = args.target or list(TARGETS)
    rng = random.Random(args.seed)
    crashes: collections.Counter[str] = collections.Counter()
    per_target: collections.Counter[str] = collections.Counter()
    shown: collections.Counter[str] = collections.Counter()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(Path(tmp))
        for case in range(args.cases):
            name = names[case % len(names)]
            data = generate(ws, name, rng)
            crash = run_case(ws, name, data)
            per_target[name] += 1
            if crash is not None:
                kind = f"{name}: {type(crash).__name__}: {str(crash)[:120]}"
                crashes[kind] += 1
                if shown[kind] < args.show:
                    shown[kind] += 1
                    print(f"--- crash ({kind}) on input {data[:200]!r}", file=sys.stderr)
                    traceback.print_exception(crash, file=sys.stderr, limit=-4)
    elapsed = time.perf_counter() - started
    for kind, count in crashes.most_common():
        print(f"{count:7d}  {kind}")
    print(
        f"cases: {args.cases} over {len(names)} loaders in {elapsed:.1f} s "
        f"({args.cases / elapsed:.0f}/s); crashed: {sum(crashes.values())}"
    )
    return 1 if crashes else 0


if __name__ == "__main__":
    raise SystemExit(main())
