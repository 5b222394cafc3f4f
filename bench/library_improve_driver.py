"""Runs the `autorubric` library's (1.6.1) own repair loop, `improve_rubric(strategy="held_out")`,
for bench/improve.py, against a loopback judge server.

Run by the interpreter of a throwaway venv that has the library (it is not a project
dependency); it imports nothing from this project. Reads a JSON file with the rubric's criteria,
the task and the labelled items (ground truth by criterion position), and prints one JSON line:
the criteria of the loop's `best_rubric` and the accuracy it reported at each iteration (on the
items it was tuned on: the library's loop has no held-out part).

    /tmp/arlib/bin/python bench/library_improve_driver.py API_BASE WORKLOAD.json --iterations 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os

# The same offline, quiet litellm set-up our CLI uses: no cost-map fetch, no `.env` load.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_MODE", "PRODUCTION")

from autorubric import CriterionVerdict, LLMConfig, Rubric  # noqa: E402
from autorubric.dataset import DataItem, RubricDataset  # noqa: E402
from autorubric.meta import improve_rubric  # noqa: E402


async def repair(api_base: str, workload: dict, iterations: int) -> dict:
    rubric = Rubric.from_dict(workload["criteria"])
    items = [
        DataItem(
            submission=item["submission"],
            description=item["id"],
            ground_truth=[CriterionVerdict(v) for v in item["ground_truth"]],
        )
        for item in workload["items"]
    ]
    dataset = RubricDataset(prompt=workload["task"], rubric=rubric, items=items)
    config = LLMConfig(
        model="openai/bench",
        api_base=api_base,
        api_key="bench-key",
        temperature=0.0,
        timeout=30,
        max_retries=1,
        max_parallel_requests=16,
        cache_enabled=False,
    )
    result = await improve_rubric(
        rubric,
        workload["task"],
        eval_llm=config,
        revision_llm=config,
        validation_data=dataset,
        strategy="held_out",
        max_iterations=iterations,
        save_artifacts=False,
        show_progress=False,
    )
    return {
        "criteria": [
            {"name": c.name, "weight": c.weight, "requirement": c.requirement}
            for c in result.best_rubric.rubric
        ],
        "reported_accuracy": [it.quality_score for it in result.iterations],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("api_base")
    parser.add_argument("workload")
    parser.add_argument("--iterations", type=int, default=4)
    args = parser.parse_args()
    with open(args.workload, encoding="utf-8") as handle:
        workload = json.load(handle)
    print(json.dumps(asyncio.run(repair(args.api_base, workload, args.iterations))))


if __name__ == "__main__":
    main()
