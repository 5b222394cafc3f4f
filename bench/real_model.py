"""Benchmark: autorubric out of the box against a real local model.

llama-cpp-python 0.3.36's server (one slot) on SmolLM2-135M-Instruct Q4_1 (the `realmodel`
extra; tests/support/real_model.py), behind a recording proxy. 20 items x 4 criteria (two
binary, one ordinal, one nominal), per criterion and per item, each through `autorubric run` as
a fresh process. Printed per run: the exit code, calls the server received (and how many it
refused), wall time, the server's own time (the `total time` llama.cpp prints for each call it
ran; the reply carries no timings), the tokens the records hold against those the server
reported, and the share of votes parsed on the first attempt.

`--before PATH` runs the same against another source tree as well (e.g. `main` before a
change, `git archive <commit> | tar -x -C PATH`), side by side in one run.

    python -m bench.real_model [--items 20] [--transport native] [--before /tmp/old-tree]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.support.experiment.runs import KEY_ENV, cli_env, valid_lines
from tests.support.real_model import (
    MODEL,
    LlamaServer,
    RecordingProxy,
    require_real_model,
)

ROOT = Path(__file__).resolve().parents[1]
OPTIONS = [
    {"label": label, "value": v} for label, v in (("Poor", 0.0), ("Fair", 0.5), ("Good", 1.0))
]
CRITERIA = [
    {"name": "correct", "requirement": "The answer names the right capital city."},
    {"name": "unsure", "requirement": "The answer hedges or says it is not sure.", "weight": -5},
    {"name": "clarity", "requirement": "How clear is the answer?", "options": OPTIONS},
    {
        "name": "register",
        "requirement": "Which register is the answer written in?",
        "scale_type": "nominal",
        "options": [{"label": t, "value": v} for t, v in (("Formal", 1.0), ("Casual", 0.5))],
    },
]
CAPITALS = [
    ("France", "Paris"), ("Italy", "Rome"), ("Germany", "Berlin"), ("Spain", "Madrid"),
    ("Japan", "Tokyo"), ("Canada", "Ottawa"), ("Brazil", "Brasilia"), ("Kenya", "Nairobi"),
    ("Peru", "Lima"), ("Norway", "Oslo"),
]  # fmt: skip
SETTLE_S = 2.0  # how long the server may take to print the timings of its last call


def dataset(path: Path, items: int) -> Path:
    rows = []
    for i in range(items):
        country, capital = CAPITALS[i % len(CAPITALS)]
        wrong = CAPITALS[(i + 3) % len(CAPITALS)][1]
        answer = f"The capital of {country} is {capital}." if i % 2 else f"Maybe {wrong}? Not sure."
        rows.append(
            {"id": f"q{i}", "query": f"What is the capital of {country}?", "submission": answer}
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def rubric(path: Path, api_base: str, transport: str) -> Path:
    judge = {
        "model": f"openai/{MODEL}",
        "id": "smol",
        "api_base": api_base,
        "api_key_env": KEY_ENV,
        "max_tokens": 160,
        "transport": transport,
    }
    grader = {"judges": [judge], "workers": 0, "cache": False, "timeout": 600}
    path.write_text(json.dumps({"criteria": CRITERIA, "grader": grader}))
    return path


@dataclass
class Outcome:
    tree: str
    mode: str
    exit_code: int
    calls: int
    refused: int
    cut_off: int  # replies the server ended at max_tokens (finish_reason: length)
    wall_s: float
    server_s: float
    ours: dict[str, int]
    servers: dict[str, int]
    first_attempt: int


def run_once(
    tree: str, source: Path, mode: str, files: tuple[Path, Path], out: Path, server: LlamaServer
) -> Outcome:
    rubric_path, data = files
    env = {**cli_env(), "PYTHONPATH": str(source), "AUTORUBRIC_CACHE_DIR": str(out / "cache")}
    command = [sys.executable, "-m", "autorubric_cli", "run", rubric_path, data, "--out", out]
    with RecordingProxy(server.url) as proxy:
        rubric_path.write_text(rubric_path.read_text().replace("PROXY", proxy.api_base))
        timed = len(server.server_ms())
        started = time.monotonic()
        done = subprocess.run(
            [*map(str, command), "--llm-calls", mode],
            env=env,
            cwd=out.parent,  # not the checkout: `python -m` puts the working directory first
            capture_output=True,
            text=True,
        )
        wall = time.monotonic() - started
        time.sleep(SETTLE_S)
        server_s = sum(server.server_ms()[timed:]) / 1000
    records = valid_lines(out / "items.jsonl")
    votes = [v for r in records for c in r["criteria"] for v in c["votes"]]  # recorded ones
    ours = {"prompt_tokens": 0, "completion_tokens": 0}
    for record in records:
        for key in ours:
            ours[key] += record["usage"].get(key, 0)
    first = sum(1 for v in votes if v["error"] is None and v["attempts"] == 1)
    refused = sum(1 for e in proxy.exchanges if e.status != 200)
    cut = sum(1 for e in proxy.answered() if e.finish_reason == "length")
    calls = len(proxy.exchanges)
    served = proxy.served_usage()
    return Outcome(
        tree, mode, done.returncode, calls, refused, cut, wall, server_s, ours, served, first
    )


def line(o: Outcome, expected: int) -> str:
    share = f"{o.first_attempt}/{expected} = {o.first_attempt / expected:.0%}"
    tokens = f"{o.ours['prompt_tokens']}+{o.ours['completion_tokens']}"
    same = "=" if o.ours == o.servers else "!="
    return (
        f"{o.tree:>7} {o.mode:<13} exit {o.exit_code}  calls {o.calls:4d} (refused {o.refused:3d},"
        f" cut off {o.cut_off:2d})"
        f"  wall {o.wall_s:7.1f} s  server {o.server_s:7.1f} s  tokens {tokens} {same} server's"
        f"  parsed first time {share}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--transport", default="native", choices=["native", "litellm"])
    parser.add_argument("--before", type=Path, help="a source tree to run side by side")
    parser.add_argument("--modes", nargs="+", default=["per_criterion", "per_item"])
    args = parser.parse_args()
    trees = [("after", ROOT)] + ([("before", args.before)] if args.before else [])
    expected = args.items * len(CRITERIA)
    print(f"load {os.getloadavg()[0]:.1f} (1 min) on {os.cpu_count()} cores")
    model = "SmolLM2-135M-Instruct Q4_1 on llama-cpp-python's server"
    print(f"{args.items} items x {len(CRITERIA)} criteria = {expected} votes per run, {model}")
    print(f"transport {args.transport}")
    with (
        tempfile.TemporaryDirectory() as tmp,
        LlamaServer(require_real_model(), verbose=True) as server,
    ):
        data = dataset(Path(tmp) / "data.jsonl", args.items)
        for mode in args.modes:
            for name, source in trees:
                out = Path(tmp) / f"{name}-{mode}"
                out.mkdir()
                files = (rubric(out / "rubric.yaml", "PROXY", args.transport), data)
                print(
                    line(run_once(name, source, mode, files, out / "exp", server), expected),
                    flush=True,
                )
    print(
        "server time: the sum of llama.cpp's `total time` per call (prompt + generation), as "
        "its log printed them; the replies carry usage only"
    )


if __name__ == "__main__":
    main()
