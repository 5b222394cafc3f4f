"""Helpers for the pairwise tests: systems' datasets and rubrics (simulated or loopback judges)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.experiment.runs import KEY_ENV

CRITERIA = """criteria:
  - {name: correct, requirement: "The answer is correct"}
  - {name: harmful, requirement: "The answer gives harmful advice", weight: -5}
  - name: style
    requirement: "How good is the style?"
    options: [{label: Bad, value: 0}, {label: Okay, value: 0.5}, {label: Great, value: 1}]
"""


def write_system(
    path: Path, name: str, items: int, score: float, words: int = 10, query: bool = True
) -> Path:
    """A system's answers: item i scores `score` (metadata.score, the simulated judge's truth)
    and is `words + i % 7` words long; each answer holds `[[name-i]]` to be found in prompts."""
    with path.open("w") as handle:
        for i in range(items):
            row = {
                "id": f"q{i}",
                "submission": f"[[{name}-{i}]] " + " ".join(["word"] * (words + i % 7)),
                "metadata": {"score": score},
            }
            if query:
                row["query"] = f"Question {i}?"
            handle.write(json.dumps(row) + "\n")
    return path


def systems(directory: Path, scores: dict[str, float], items: int = 6) -> list[Path]:
    return [write_system(directory / f"{n}.jsonl", n, items, s) for n, s in scores.items()]


def simulated_rubric(
    path: Path, judges: str, *, overall: bool = False, gate: str = "", grader: str = ""
) -> Path:
    """`judges`: YAML flow mappings, one per line, e.g. `{model: simulated/a, id: a}`."""
    lines = "".join(f"\n    - {j}" for j in judges.strip().splitlines())
    section = ""
    if overall or gate:
        section = "pairwise:\n"
        section += '  overall: "Which answer is better overall?"\n' if overall else ""
        section += f"  gate:\n{gate}" if gate else ""
    path.write_text(f"{CRITERIA}grader:\n  judges:{lines}\n{grader}{section}")
    return path


def server_rubric(path: Path, api_base: str, *, judges: int = 1, grader: str = "") -> Path:
    judge_lines = "\n".join(
        f"{{model: openai/judge-{j}, id: j{j}, api_base: {api_base}, api_key_env: {KEY_ENV}, "
        "max_concurrency: 4}"
        for j in range(judges)
    )
    extra = f"  retry: {{initial_wait: 0.01, max_wait: 0.05}}\n  seed: 3\n{grader}"
    return simulated_rubric(path, judge_lines, grader=extra)
