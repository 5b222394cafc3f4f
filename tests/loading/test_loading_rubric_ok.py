# ruff: noqa: E501  (the docs/reference/rubric-file.md example is kept verbatim)
"""Valid rubric files: defaults, the reference's full example, auto NA options
(docs/reference/rubric-file.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autorubric_cli.core.evaluate import ScoringRules
from autorubric_cli.core.rubric import AUTO_NA_LABEL, Rubric
from autorubric_cli.loading.rubric_loader import load_rubric, parse_rubric

SPEC_EXAMPLE = """\
name: battery-chemistry          # optional
guidelines: |                     # optional text shown to every judge
  Grade the answer as a battery engineer would.
criteria:
  - name: energy_density          # unique; default "c1", "c2", … by position
    requirement: "States NMC cell energy density in the 250-300 Wh/kg range"
    weight: 10                    # default 10; negative = a penalty criterion
  - name: wrong_claim
    requirement: "Claims LFP has higher gravimetric energy density than NMC"
    weight: -15                   # MET means the error is present
  - name: satisfaction            # options make it multi-choice
    requirement: "How satisfied would you be with this response?"
    weight: 10
    scale_type: ordinal           # ordinal (default) | nominal
    aggregation: median           # optional per-criterion override
    options:
      - {label: "Very dissatisfied", value: 0.0}
      - {label: "Satisfied", value: 0.67}
      - {label: "Very satisfied", value: 1.0}
      - {label: "NA - not a question", na: true}   # excluded from scoring
grader:                           # optional; CLI flags override it
  judges:
    - model: openai/gpt-4.1-mini  # any litellm model string
      id: gpt                     # default: the model string
      weight: 1.0                 # > 0, finite
      temperature: 0.0
      api_base: null              # e.g. http://127.0.0.1:8000/v1
      api_key_env: OPENAI_API_KEY # NAME of the env var; never the key itself
      samples: 1                  # repeated samples per criterion
      max_concurrency: 16         # in-flight calls for this judge
      rpm: null                   # requests per minute, optional
  aggregation: majority           # binary: majority | weighted | unanimous | any
  ordinal_aggregation: mean       # mean | median | weighted_mean | mode | min | max
  nominal_aggregation: mode       # mode | weighted_mode | unanimous
  sample_aggregation: majority    # per judge, over its samples: majority | median | mean
  cannot_assess: {strategy: skip, partial_credit: 0.5}   # skip | zero | partial | fail
  length_penalty: {free_budget: 6000, max_cap: 8000, penalty_at_cap: 0.5, exponent: 1.6, apply_to: all}
  normalize: true
  shuffle_options: true
  auto_na_option: false           # true appends a "Cannot assess" option to multi-choice criteria
  seed: 42                        # default: 0, recorded in the manifest
  concurrency: 64                 # global cap on in-flight judge calls
  timeout: 60                     # seconds per call
  max_attempts: 6                 # per call, retries included
  few_shot: {examples: train.jsonl, n_examples: 3, balance_verdicts: true, include_reason: false}
  system_prompt: null             # override for binary criteria
  multi_choice_system_prompt: null
gate:                             # optional CI gate, see §7
  - {metric: score.mean, min: 0.8}
  - {metric: criteria.wrong_claim.met_rate, max: 0.05}
"""


def test_spec_example_loads(tmp_path: Path) -> None:
    path = tmp_path / "battery.yaml"
    path.write_text(SPEC_EXAMPLE, encoding="utf-8")
    rubric = load_rubric(path)
    assert rubric.name == "battery-chemistry"
    assert rubric.guidelines == "Grade the answer as a battery engineer would.\n"
    assert [c.name for c in rubric.criteria] == ["energy_density", "wrong_claim", "satisfaction"]
    assert [c.weight for c in rubric.criteria] == [10.0, -15.0, 10.0]
    assert [c.kind for c in rubric.criteria] == ["binary", "binary", "ordinal"]
    sat = rubric.criterion("satisfaction")
    assert [o.label for o in sat.option_list()][-1] == "NA - not a question"
    assert [o.value for o in sat.option_list()] == [0.0, 0.67, 1.0, None]
    assert sat.na_option_index() == 3
    (judge,) = rubric.grader.judges
    assert (judge.judge_id, judge.model, judge.api_key_env) == (
        "gpt",
        "openai/gpt-4.1-mini",
        "OPENAI_API_KEY",
    )
    grader = rubric.grader
    assert grader.length_penalty is not None
    assert grader.length_penalty.max_cap == 8000
    assert grader.seed == 42
    assert grader.few_shot is not None and grader.few_shot.examples == "train.jsonl"
    assert [(g.metric, g.min, g.max) for g in rubric.gate] == [
        ("score.mean", 0.8, None),
        ("criteria.wrong_claim.met_rate", None, 0.05),
    ]
    rules = ScoringRules.from_rubric(rubric)
    assert rules.aggregation == {
        "energy_density": "majority",
        "wrong_claim": "majority",
        "satisfaction": "median",
    }
    assert rules.judge_weights == {"gpt": 1.0}


def test_defaults() -> None:
    rubric = parse_rubric(
        """
criteria:
  - requirement: first
  - name: named
    requirement: second
  - requirement: third
    options:
      - {label: low, value: 0}
      - {label: high, value: 1}
""",
        "r.yaml",
    )
    assert [c.name for c in rubric.criteria] == ["c1", "named", "c3"]
    assert [c.weight for c in rubric.criteria] == [10.0, 10.0, 10.0]
    assert [c.kind for c in rubric.criteria] == ["binary", "binary", "ordinal"]
    assert rubric.criteria[2].scale_type == "ordinal"
    assert rubric.criteria[0].options is None
    assert rubric.gate == []
    g = rubric.grader
    assert g.judges == []
    assert (g.aggregation, g.ordinal_aggregation, g.nominal_aggregation) == (
        "majority",
        "mean",
        "mode",
    )
    assert g.sample_aggregation == "majority"
    assert (g.cannot_assess.strategy.value, g.cannot_assess.partial_credit) == ("skip", 0.5)
    assert (g.normalize, g.shuffle_options, g.auto_na_option) == (True, True, False)
    assert (g.length_penalty, g.seed, g.few_shot) == (None, 0, None)
    assert (g.concurrency, g.timeout, g.max_attempts) == (64, 60.0, 6)
    assert g.workers == "auto"


def test_judge_defaults() -> None:
    rubric = parse_rubric(
        "criteria:\n  - requirement: a\ngrader:\n  judges:\n    - model: openai/x\n"
        "    - model: openai/x\n      id: second\n      weight: 2.5\n      samples: 3\n",
        "r.yaml",
    )
    first, second = rubric.grader.judges
    assert (first.judge_id, first.weight, first.samples, first.temperature) == (
        "openai/x",
        1.0,
        1,
        0.0,
    )
    assert (first.max_concurrency, first.rpm, first.api_key_env) == (16, None, None)
    assert (second.judge_id, second.weight, second.samples) == ("second", 2.5, 3)
    assert rubric.grader.judge_weights() == {"openai/x": 1.0, "second": 2.5}


AUTO_NA = """
grader:
  auto_na_option: {flag}
criteria:
  - name: binary
    requirement: a
  - name: has_na
    requirement: b
    options:
      - {{label: low, value: 0}}
      - {{label: Not applicable, na: true}}
      - {{label: high, value: 1}}
  - name: no_na
    requirement: c
    scale_type: nominal
    options:
      - {{label: red, value: 0}}
      - {{label: blue, value: 1}}
"""


def test_auto_na_option_only_where_none_exists() -> None:
    rubric = parse_rubric(AUTO_NA.format(flag="true"), "r.yaml")
    assert rubric.criterion("binary").options is None
    has_na = rubric.criterion("has_na").option_list()
    assert [(o.label, o.na) for o in has_na] == [
        ("low", False),
        ("Not applicable", True),
        ("high", False),
    ]
    no_na = rubric.criterion("no_na").option_list()
    assert [o.label for o in no_na] == ["red", "blue", "Cannot assess"]
    assert AUTO_NA_LABEL == "Cannot assess"
    assert (no_na[2].na, no_na[2].value) == (True, None)
    assert rubric.criterion("no_na").na_option_index() == 2
    # validating again does not append a second one
    again = Rubric.model_validate(rubric.model_dump())
    assert len(again.criterion("no_na").option_list()) == 3


def test_no_auto_na_option_by_default() -> None:
    rubric = parse_rubric(AUTO_NA.format(flag="false"), "r.yaml")
    assert [o.label for o in rubric.criterion("no_na").option_list()] == ["red", "blue"]
    assert rubric.criterion("no_na").na_option_index() is None


@pytest.mark.parametrize("value", ["0", "1", "0.0", "1.0", "0.5"])
def test_option_values_on_the_unit_interval_bounds(value: str) -> None:
    rubric = parse_rubric(
        "criteria:\n  - requirement: a\n    options:\n"
        f"      - {{label: x, value: {value}}}\n      - {{label: y, value: 0.25}}\n",
        "r.yaml",
    )
    assert rubric.criteria[0].option_list()[0].value == float(value)


def test_negative_weights_and_per_criterion_overrides() -> None:
    rubric = parse_rubric(
        """
grader:
  aggregation: weighted
  nominal_aggregation: unanimous
criteria:
  - {name: bad, requirement: x, weight: -15, aggregation: any}
  - {name: plain, requirement: y, weight: 2.5}
  - name: kind
    requirement: z
    scale_type: nominal
    options: [{label: a, value: 0}, {label: b, value: 1}]
""",
        "r.yaml",
    )
    assert [rubric.aggregation_for(c) for c in rubric.criteria] == ["any", "weighted", "unanimous"]
    assert rubric.criterion("bad").weight == -15.0
    assert rubric.criterion("kind").kind == "nominal"
