"""Batch mode's client CPU per request (docs/guides/batches.md): preparation, upload, result
parsing.

For `--requests` calls (default 100,000) of one judge, with real prompts built by the grader's
RequestBuilder (3 criteria, binary and multi-choice, short submissions):

1. preparation: request key (docs/guides/cache-and-cost.md) + request body + JSONL line, per
request; 2. upload: joining the lines and `litellm.acreate_file` to a loopback batch server running
in
   its own process (so the CPU measured is the client's alone); one file per 50,000 requests;
3. result parsing: the server answers every line (create + retrieve), the client downloads the
   output files (`litellm.afile_content`) and parses them into Completions (`parse_results`).

Prints client CPU (process time) per request for each phase and the total.

    /work/venv/bin/python -m bench.batch_cpu                # 100,000 requests
    /work/venv/bin/python -m bench.batch_cpu --requests 10000
"""

from __future__ import annotations

import argparse
import asyncio
import time

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.grading.requests import RequestBuilder
from autorubric_cli.judges.batch.lines import batch_line, parse_results
from autorubric_cli.judges.replies import response_format
from autorubric_cli.judges.request import Call
from autorubric_cli.judges.request_key import request_key
from autorubric_cli.judges.transports.body import wire_body
from autorubric_cli.judges.transports.litellm import load_litellm
from tests.support import BINARY, MULTI_CHOICE, make_item
from tests.support.judge_server import JudgeServerProcess

PER_FILE = 50_000


def prepare(n: int, spec: JudgeSpec) -> tuple[list[bytes], float]:
    rubric = Rubric.model_validate(
        {
            "criteria": [BINARY, MULTI_CHOICE, {"name": "harm", "requirement": "Harmful advice"}],
            "grader": {"judges": [spec.model_dump()]},
        }
    )
    builder = RequestBuilder(rubric, 0, {})
    requests = []
    for i in range(-(-n // 3)):
        item = make_item(f"it{i}", f"Answer {i}: the NMC cell stores {200 + i % 97} Wh/kg.", i)
        for criterion in rubric.criteria:
            requests.append(builder.request(item, criterion, spec.judge_id, 0))
    requests = requests[:n]
    started = time.process_time()
    lines = []
    for request in requests:
        call = Call(
            request.messages, response_format(request.option_count, request.elicitation), request
        )
        key = request_key(spec, call)
        lines.append(batch_line(key, wire_body(spec, "bench", call)[0]))
    cpu = time.process_time() - started
    report("preparation (key + body + line)", cpu, n)
    return lines, cpu


def report(phase: str, cpu_s: float, n: int) -> None:
    print(f"{phase:<40} {cpu_s:8.2f} s CPU  {cpu_s / n * 1e6:8.1f} µs/request", flush=True)


async def upload_and_parse(lines: list[bytes], api_base: str) -> float:
    litellm = load_litellm()
    kwargs = {"custom_llm_provider": "openai", "api_base": api_base, "api_key": "x"}
    kwargs |= {"max_retries": 0, "timeout": 600}
    n = len(lines)
    started = time.process_time()
    file_ids = []
    for start in range(0, n, PER_FILE):
        data = b"".join(lines[start : start + PER_FILE])
        created = await litellm.acreate_file(file=("b.jsonl", data), purpose="batch", **kwargs)
        file_ids.append(created.id)
    upload = time.process_time() - started
    report("upload (join + acreate_file)", upload, n)
    batches = [
        await litellm.acreate_batch(
            completion_window="24h", endpoint="/v1/chat/completions", input_file_id=f, **kwargs
        )
        for f in file_ids
    ]
    outputs = []
    for batch in batches:
        while True:
            info = await litellm.aretrieve_batch(batch.id, **kwargs)
            if info.status == "completed":
                outputs.append(info.output_file_id)
                break
            await asyncio.sleep(0.2)
    started = time.process_time()
    answered = 0
    for file_id in outputs:
        content = await litellm.afile_content(file_id=file_id, **kwargs)
        answered += len(parse_results(content.content, None, "bench", None))
    parsing = time.process_time() - started
    assert answered == n, f"{answered} answers for {n} requests"
    report("result parsing (download + parse)", parsing, n)
    await litellm.close_litellm_async_clients()
    return upload + parsing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100_000)
    args = parser.parse_args()
    spec = JudgeSpec(model="openai/bench", id="bench")
    print(f"batch client CPU for {args.requests:,} requests (one judge)")
    lines, prepared = prepare(args.requests, spec)
    print(f"input: {sum(map(len, lines)) / 1e6:.1f} MB, {len(lines):,} lines")
    with JudgeServerProcess(batch_delay=0.0) as server:
        rest = asyncio.run(upload_and_parse(lines, server.api_base))
    report("total (without building prompts)", prepared + rest, args.requests)


if __name__ == "__main__":
    main()
