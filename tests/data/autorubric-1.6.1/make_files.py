"""Write a RubricDataset JSON and rubric files with the autorubric library (1.6.1).

Regenerate (never a dependency of ours): python -m venv /tmp/arlib-venv && /tmp/arlib-venv/bin/pip
install autorubric==1.6.1 pyyaml, then run this script with that python inside this folder.
"""

import importlib.metadata
import json

import yaml
from autorubric import Criterion, CriterionOption, CriterionVerdict, DataItem, Rubric, RubricDataset

version = importlib.metadata.version("autorubric")
criteria = [
    Criterion(name="correct", weight=10.0, requirement="The answer is factually correct"),
    Criterion(name="harmful", weight=-5.0, requirement="The answer gives harmful advice"),
    Criterion(
        name="style",
        weight=6.0,
        requirement="How good is the style?",
        scale_type="ordinal",
        options=[
            CriterionOption(label="Poor", value=0.2),
            CriterionOption(label="Fine", value=0.5),
            CriterionOption(label="Great", value=0.8),
            CriterionOption(label="NA", value=0.0, na=True),
        ],
    ),
]
rubric = Rubric(criteria)
M, U, CA = CriterionVerdict.MET, CriterionVerdict.UNMET, CriterionVerdict.CANNOT_ASSESS
truths = [
    [M, U, "Great"],
    [U, U, "Poor"],
    [M, M, "Fine"],
    [CA, U, "NA"],
    [M, U, "Fine"],
    [U, M, "Poor"],
]
items = [
    DataItem(
        submission=f"Answer number {i}: lithium iron phosphate lasts longer.",
        description=f"item {i}",
        ground_truth=t,
    )
    for i, t in enumerate(truths)
]
ds = RubricDataset(prompt="Compare NMC and LFP.", rubric=rubric, items=items, name="library-demo")
ds.to_file("rubric_dataset.json")
# A rubric file in the library's sections form, read back by the library to prove it is valid.
sections = {
    "sections": [
        {"name": "facts", "criteria": json.loads(ds.to_json())["rubric"][:2]},
        {"name": "form", "criteria": json.loads(ds.to_json())["rubric"][2:]},
    ]
}
with open("rubric_sections.yaml", "w") as f:
    f.write(f"# Written by autorubric {version} (Rubric.from_dict reads it back)\n")
    yaml.safe_dump(sections, f, sort_keys=False)
with open("rubric_list.yaml", "w") as f:
    f.write(f"# Written by autorubric {version}: a top-level list of criteria\n")
    yaml.safe_dump(json.loads(ds.to_json())["rubric"], f, sort_keys=False)
for name in ("rubric_sections.yaml", "rubric_list.yaml"):
    assert len(Rubric.from_file(name).rubric) == 3
assert len(RubricDataset.from_file("rubric_dataset.json")) == 6
print(version)
