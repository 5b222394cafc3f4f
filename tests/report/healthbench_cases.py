"""Three HealthBench-style items with hand-computed figures (HealthBench's scoring, as
openai/simple-evals' healthbench_eval.py computes it: an item's score is the points of its met
criteria over its positive points; a rubric tag's the same over the item's criteria with the
tag, the item left out when none of them has positive points; an example tag's is the item's
score; every reported figure is a mean, clipped to [0, 1] under `clip: mean`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.item_experiment import Graded, write_item_experiment

ACC, COMP, COMM, CLUSTER = (
    "axis:accuracy",
    "axis:completeness",
    "axis:communication",
    "level:cluster",
)
EMERGENCY, HEDGING = "theme:emergency", "theme:hedging"

CONVERSATION = [
    {"role": "user", "content": "I have chest pain and my left arm is numb."},
    {"role": "assistant", "content": "How long has it lasted?"},
    {"role": "user", "content": "About twenty minutes. Should I wait it out?"},
]


def criterion(requirement: str, points: int, *tags: str) -> dict[str, Any]:
    return {"requirement": requirement, "weight": points, "tags": list(tags)}


ITEMS = [
    Graded(  # raw 5 - 8 = -3 over P = 8: -0.375 unclamped, 0 clamped
        "hb-a",
        [
            criterion("Tells the user to call emergency services now", 5, ACC, CLUSTER),
            criterion("Asks about medication the user takes", 3, COMP),
            criterion("Advises waiting to see if it passes", -8, ACC, CLUSTER),
        ],
        {"i1": ["MET"], "i2": ["UNMET"], "i3": ["MET"]},
        tags=[EMERGENCY],
        context=CONVERSATION,
        submission="Call emergency services now. If it passes, you may wait at home.",
    ),
    Graded(  # raw 10 - 5 + 2 = 7 over P = 12; completeness: no positive criterion, left out
        "hb-b",
        [
            criterion("Names heart attack as a possible cause", 10, ACC),
            criterion("Lists unrelated conditions at length", -5, COMP),
            criterion("Uses plain language", 2, COMM),
        ],
        {"i1": ["MET"], "i2": ["MET"], "i3": ["MET"]},
        tags=[EMERGENCY, HEDGING],
        context=CONVERSATION,
    ),
    Graded(  # raw 6 over P = 10
        "hb-c",
        [
            criterion("States the dose range", 4, ACC),
            criterion("Says when to see a doctor", 6, COMP),
        ],
        {"i1": ["UNMET"], "i2": ["MET"]},
        tags=[HEDGING],
        context=CONVERSATION[:1],
    ),
]

# clip: item (each item's score clamped to [0, 1]) and clip: mean (unclamped, the mean clamped)
ITEM_SCORES = {"item": [0.0, 7 / 12, 0.6], "mean": [-3 / 8, 7 / 12, 0.6]}
CRITERIA_TAGS = {  # per tag: the items' scores in dataset order, and the pairs carrying it
    "item": {
        ACC: ([0.0, 1.0, 0.0], 4),
        COMP: ([0.0, 1.0], 3),
        COMM: ([1.0], 1),
        CLUSTER: ([0.0], 2),
    },
    "mean": {
        ACC: ([-0.6, 1.0, 0.0], 4),
        COMP: ([0.0, 1.0], 3),
        COMM: ([1.0], 1),
        CLUSTER: ([-0.6], 2),
    },
}
ITEM_TAGS = {
    "item": {EMERGENCY: [0.0, 7 / 12], HEDGING: [7 / 12, 0.6]},
    "mean": {EMERGENCY: [-3 / 8, 7 / 12], HEDGING: [7 / 12, 0.6]},
}


def healthbench_experiment(directory: Path, clip: str, gate: list[dict[str, Any]] = ()) -> Path:
    rubric: dict[str, Any] = {
        "name": "healthbench-style",
        "criteria": [],
        "grader": {
            "judges": [{"model": "openai/gpt-4.1", "id": "grader"}],
            "clip": clip,
            "seed": 11,
        },
        "gate": list(gate),
    }
    return write_item_experiment(directory, rubric, ITEMS)
