"""`autorubric improve` on a simulated workload where one criterion's wording makes the judge
err, side by side with the `autorubric` library's own repair loop (1.6.1,
`improve_rubric(strategy="held_out")`), both judged on the same held-out items.

The workload (docs/guides/rubric-quality.md, "What the bench shows"): refund-ticket replies
labelled on four binary criteria; one, `policy`, is worded vaguely ("... appropriately"). The
judge is simulated (docs/guides/judges.md): accuracy 0.95, and `vague_accuracy` 0.6 on a
criterion whose wording holds a vague word. The reviser is simulated too: it deletes the vague
words. So the outcome is designed in; what the bench measures is that the loop finds the
erring criterion, keeps the rewording because it helps on the train part, leaves the
well-worded criteria alone, and that the held-out figure confirms it.

The library's loop runs in a throwaway venv (bench/library_improve_driver.py) against a
loopback server that simulates the same judge and the same reviser for its prompts. It has no
held-out part: it tunes and reports on the same items; its best rubric is then graded here on
the held-out items with the simulated judge, like ours. Without the venv it is skipped (said
so in the output):

    python3 -m venv /tmp/arlib && /tmp/arlib/bin/pip install autorubric==1.6.1
    python -m bench.improve [--items 200] [--seeds 3] [--library-python /tmp/arlib/bin/python]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import yaml

from autorubric_cli.api import run as run_experiment
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.judges.transports.simulated import VAGUE_WORDS
from autorubric_cli.judges.transports.simulated_reviser import reworded
from autorubric_cli.rubric_review.improve import ImproveRequest, measured
from autorubric_cli.rubric_review.improve_loop import run_improve
from tests.support.judge_server import JudgeServer

ROOT = Path(__file__).resolve().parents[1]
VAGUE = re.compile(VAGUE_WORDS, re.IGNORECASE)
TASK = "Answer a customer's refund ticket."
CRITERIA = [
    {"name": "window", "requirement": "States the 30-day refund window", "weight": 10},
    {"name": "policy", "requirement": "Explains the refund policy appropriately", "weight": 6},
    {"name": "apology", "requirement": "Apologises for the delay", "weight": 4},
    {"name": "blame", "requirement": "Blames the customer for the delay", "weight": -10},
]
FIRST_WORD = {c["requirement"].split()[0]: c["name"] for c in CRITERIA}
ACCURACY, VAGUE_ACCURACY = 0.95, 0.6


def workload(directory: Path, items: int, seed: int) -> tuple[Path, Path, list[dict[str, Any]]]:
    rng = random.Random(seed)
    rows = []
    for i in range(items):
        truth = {c["name"]: rng.choice(["MET", "UNMET"]) for c in CRITERIA}
        planted = " ".join(f"[{k}:{v}]" for k, v in truth.items())
        rows.append(
            {"id": f"t{i:04d}", "submission": f"ticket {i} {planted}", "ground_truth": truth}
        )
    data = directory / "tickets.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    judge = {
        "model": "simulated/judge",
        "id": "judge",
        "params": {"accuracy": ACCURACY, "vague_accuracy": VAGUE_ACCURACY, "seed": seed},
    }
    rubric = directory / "rubric.yaml"
    rubric.write_text(
        yaml.safe_dump(
            {"name": "tickets", "criteria": CRITERIA, "grader": {"judges": [judge]}},
            sort_keys=False,
        )
    )
    return rubric, data, rows


def library_answer(body: dict[str, Any]) -> str:
    """The same simulation for the library's prompts: its judge calls and its reviser's."""
    text = "\n".join(str(m.get("content", "")) for m in body["messages"])
    if "## Current Rubric" in text:
        current = json.loads(text.split("## Current Rubric\n", 1)[1].split("\n\n## ", 1)[0])
        return json.dumps(
            [{**c, "requirement": reworded(c["requirement"], VAGUE)} for c in current]
        )
    requirement = re.findall(r"<criterion>\n(.*?)\n</criterion>", text, re.DOTALL)[-1]
    submission = re.findall(r"<submission>\n(.*?)\n</submission>", text, re.DOTALL)[-1]
    name = FIRST_WORD[requirement.split()[0]]
    label = dict(re.findall(r"\[(\w+):(\w+)\]", submission))[name]
    ticket = re.findall(r"ticket (\d+)", submission)[0]
    draw = (
        int.from_bytes(hashlib.sha256(f"{ticket}\x1f{name}".encode()).digest()[:8], "big") / 2**64
    )
    accuracy = VAGUE_ACCURACY if VAGUE.search(requirement) else ACCURACY
    status = label if draw < accuracy else {"MET": "UNMET", "UNMET": "MET"}[label]
    return json.dumps({"criterion_status": status, "explanation": f"simulated: {status}"})


def library_loop(
    python: str, train: list[dict[str, Any]], directory: Path, iterations: int
) -> dict[str, Any]:
    payload = {
        "task": TASK,
        "criteria": CRITERIA,
        "items": [
            {**r, "ground_truth": [r["ground_truth"][c["name"]] for c in CRITERIA]} for r in train
        ],
    }
    path = directory / "library-workload.json"
    path.write_text(json.dumps(payload))
    with JudgeServer(answer=library_answer) as server:
        done = subprocess.run(
            [
                python,
                str(ROOT / "bench" / "library_improve_driver.py"),
                server.api_base,
                str(path),
                "--iterations",
                str(iterations),
            ],
            check=True,
            capture_output=True,
            text=True,
            cwd=tempfile.gettempdir(),
        )
    return json.loads(done.stdout.strip().splitlines()[-1])


def held_out(
    rubric: Path, requirements: list[str], test: Path, labels: dict[str, dict[str, str]], out: Path
) -> dict[str, float | None]:
    """A rubric's per-criterion accuracy on the held-out items, with the simulated judge."""
    data = yaml.safe_load(rubric.read_text())
    for criterion, requirement in zip(data["criteria"], requirements, strict=True):
        criterion["requirement"] = requirement
    path = out.with_suffix(".yaml")
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    run_experiment(path, test, out=out, cache=False)
    graded = measured(open_experiment(out), labels, [c["name"] for c in CRITERIA])
    return {name: g.accuracy for name, g in graded.items()}


def one_seed(seed: int, args: argparse.Namespace, directory: Path) -> dict[str, Any]:
    rubric, data, rows = workload(directory, args.items, seed)
    result = run_improve(
        ImproveRequest(
            rubric=rubric,
            data=data,
            rounds=3,
            seed=seed,
            reviser="simulated/reviser",
            out=directory / "improve",
            cache=False,
        )
    )
    ours = {c.name: (c.original.accuracy, c.final.accuracy, c.changed) for c in result.criteria}
    figures: dict[str, Any] = {"ours": ours, "library": None}
    if Path(args.library_python).exists():
        test_ids = {
            json.loads(line)["id"] for line in Path(result.test.path).read_text().splitlines()
        }
        train = [r for r in rows if r["id"] not in test_ids]
        library = library_loop(args.library_python, train, directory, args.iterations)
        labels = {r["id"]: r["ground_truth"] for r in rows}
        requirements = [c["requirement"] for c in library["criteria"]]
        figures["library"] = {
            "held_out": held_out(
                rubric, requirements, Path(result.test.path), labels, directory / "library-test"
            ),
            "reported": library["reported_accuracy"],
            "requirements": requirements,
        }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=4, help="the library loop's")
    parser.add_argument("--library-python", default="/tmp/arlib/bin/python")
    args = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.2f} (1-min average); {args.items} items, 30% held out")
    for seed in range(args.seeds):
        with tempfile.TemporaryDirectory() as tmp:
            figures = one_seed(seed, args, Path(tmp))
        print(f"\nseed {seed}: held-out accuracy per criterion (original -> after repair)")
        library = figures["library"]
        for name, (before, after, changed) in figures["ours"].items():
            mark = " (reworded)" if changed else ""
            line = f"  {name:8s} original {before:.3f} | autorubric improve {after:.3f}{mark}"
            if library is not None:
                line += f" | library held_out loop {library['held_out'][name]:.3f}"
            print(line)
        if library is None:
            print(f"  library loop skipped: {args.library_python} not found (see the docstring)")
        else:
            reported = ", ".join(f"{a:.3f}" for a in library["reported"])
            print(
                "  library's own reported mean accuracy per iteration, on the items it tuned "
                f"on: {reported}"
            )
            print(f"  library's best rubric: {library['requirements']}")


if __name__ == "__main__":
    main()
