"""Benchmark: the issue's dead-judge scenarios at full size, through the whole CLI.

- an api_base on a closed port, 2,000 items: seconds to exit 2 (target: within 20 s);
- a server answering 404 to every call, 2,000 items: requests it received (target: <= 50);
- a server dying after 300 items of 2,000: exit 2, those 300 kept (all `ok`), the rest
  unrecorded; after it comes back, `resume` finishes with records identical to an uninterrupted
  run (status, score, every vote's verdict, option and shuffle).

The test suite runs the same scenarios scaled down (tests/experiment/test_run_breaker.py).

    python -m bench.judge_failures [--items 2000] [--die-after 300] [--transport auto]

`--transport` sets the judge's `transport` (docs/guides/transports.md); under `auto` this `openai/`
judge with an `api_base` is native.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support import closed_port
from tests.support.experiment.runs import (
    cli_env,
    comparable,
    server_rubric,
    start_cli,
    valid_lines,
    wait_for_lines,
    write_dataset,
)
from tests.support.judge_server import JudgeServer


def run_cli(*args: object, timeout: float) -> subprocess.CompletedProcess[str]:
    """`autorubric ARGS` as a fresh process: the times printed include its start-up."""
    command = [sys.executable, "-m", "autorubric_cli", *map(str, args)]
    return subprocess.run(command, env=cli_env(), capture_output=True, text=True, timeout=timeout)


TRANSPORT = "auto"


def rubric_for(path: Path, api_base: str, concurrency: int) -> Path:
    """`server_rubric`, its judges on the transport of `--transport`."""
    rubric = server_rubric(path, api_base, concurrency=concurrency)
    text = rubric.read_text().replace(
        "\n      max_concurrency:", f"\n      transport: {TRANSPORT}\n      max_concurrency:"
    )
    rubric.write_text(text)
    return rubric


def closed_port_run(tmp: Path, data: Path) -> None:
    api_base = f"http://127.0.0.1:{closed_port()}/v1"
    rubric = rubric_for(tmp / "closed.yaml", api_base, concurrency=16)
    started = time.monotonic()
    result = run_cli("run", rubric, data, "--out", tmp / "closed", timeout=120)
    print(
        f"closed port: exit {result.returncode} after {time.monotonic() - started:.1f} s, "
        f"{len(valid_lines(tmp / 'closed' / 'items.jsonl'))} items recorded "
        "(target: exit 2 within 20 s)"
    )


def not_found_run(tmp: Path, data: Path) -> None:
    with JudgeServer(fault_rate=1.0, fault_kinds=("not_found",)) as server:
        rubric = rubric_for(tmp / "404.yaml", server.api_base, concurrency=64)
        result = run_cli("run", rubric, data, "--out", tmp / "404", timeout=120)
        requests = server.request_count
    print(f"404 server: exit {result.returncode}, {requests} requests received (target: <= 50)")


def dying_server_run(tmp: Path, data: Path, items: int, die_after: int) -> None:
    server = JudgeServer(latency=0.01).start()
    port = server.port
    out, reference = tmp / "dying", tmp / "reference"
    try:
        rubric = rubric_for(tmp / "dying.yaml", server.api_base, concurrency=16)
        proc = start_cli("run", rubric, data, "--out", out, "--no-cache")
        wait_for_lines(out / "items.jsonl", die_after, proc, limit=600)
        server.stop()
        proc.communicate(timeout=120)
        kept = valid_lines(out / "items.jsonl")
        statuses = {line["status"] for line in kept}
        print(
            f"server dying after {die_after} items: exit {proc.returncode}, {len(kept)} kept "
            f"(statuses {sorted(statuses)}), {items - len(kept)} unrecorded"
        )
        server = JudgeServer(latency=0.01, port=port).start()
        resumed = run_cli("resume", out, "--no-cache", timeout=600)
        whole = run_cli("run", rubric, data, "--out", reference, "--no-cache", timeout=600)
    finally:
        server.stop()
    same = comparable(out) == comparable(reference)
    print(
        f"resume after it came back: exit {resumed.returncode}, "
        f"{len(valid_lines(out / 'items.jsonl'))} records; uninterrupted run: exit "
        f"{whole.returncode}; records identical: {same}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--die-after", type=int, default=300)
    parser.add_argument("--transport", default="auto", help="the judge's transport setting")
    args = parser.parse_args()
    global TRANSPORT
    TRANSPORT = args.transport
    print(f"transport: {TRANSPORT}")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        data = write_dataset(tmp / "data.jsonl", args.items)
        closed_port_run(tmp, data)
        not_found_run(tmp, data)
        dying_server_run(tmp, data, args.items, args.die_after)


if __name__ == "__main__":
    main()
