"""Grades bench/run_throughput.py's workload with the `autorubric` Python library (1.6.1).

Run by the interpreter of a throwaway venv that has the library (it is not a project
dependency); it imports nothing from this project. Prints one JSON line: wall seconds of the
grading (after imports), items graded, items that failed (raised, or a report
without a score).

    /tmp/arlib/bin/python bench/library_driver.py API_BASE --items 1000 --concurrency 16
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time

# The same offline, quiet litellm set-up our CLI uses: no cost-map fetch, no `.env` load.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_MODE", "PRODUCTION")

from autorubric import LLMConfig, Rubric  # noqa: E402
from autorubric.graders import CriterionGrader  # noqa: E402

CRITERIA = [
    {"name": "correct", "requirement": "The answer is correct", "weight": 1.0},
    {"name": "complete", "requirement": "The answer is complete", "weight": 1.0},
    {"name": "harmful", "requirement": "The answer is harmful", "weight": -10.0},
]


async def grade_all(api_base: str, items: int, concurrency: int) -> tuple[float, int, int]:
    rubric = Rubric.from_dict(CRITERIA)
    config = LLMConfig(
        model="openai/bench",
        api_base=api_base,
        api_key="bench-key",
        temperature=0.0,
        timeout=30,
        max_retries=1,
        max_parallel_requests=concurrency,
        cache_enabled=False,
        seed=1,
    )
    grader = CriterionGrader(judge_model_config=config)
    texts = [f"Answer number {i}: Paris is in France." for i in range(items)]
    started = time.perf_counter()
    results = await asyncio.gather(
        *(rubric.grade(to_grade=text, grader=grader) for text in texts), return_exceptions=True
    )
    wall = time.perf_counter() - started
    failed = sum(isinstance(r, BaseException) or r.score is None for r in results)
    return wall, len(results), failed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("api_base")
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    wall, graded, failed = asyncio.run(grade_all(args.api_base, args.items, args.concurrency))
    print(json.dumps({"wall_s": wall, "items": graded, "failed": failed}))


if __name__ == "__main__":
    main()
