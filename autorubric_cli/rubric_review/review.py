"""`autorubric review RUBRIC [DATA]` (docs/guides/rubric-quality.md): the rubric graded against a
meta-rubric, and, with DATA, a seeded sample graded with the rubric.

The output directory (`--out`) holds the inputs the stages grade (`meta-rubric.yaml`,
`meta-item.jsonl`: the rubric as the one item the meta-rubric grades, and the sample of DATA in
DATA's format), one experiment per stage (`meta/`, `sample/`, rubric_review/stages.py) and the
result, `review.json`. Running the same command again continues where it stopped.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from autorubric_cli.core.rubric import Rubric
from autorubric_cli.experiment.manifest import sha256_file, write_atomic
from autorubric_cli.experiment.opened import OpenedExperiment
from autorubric_cli.loading.readers import iter_records
from autorubric_cli.loading.rubric_loader import load_rubric
from autorubric_cli.loading.writers import part_path, write_parts
from autorubric_cli.rubric_review.lint import lint
from autorubric_cli.rubric_review.meta import meta_item, meta_rubric_data, write_yaml
from autorubric_cli.rubric_review.models import ReviewResult, SampleSummary
from autorubric_cli.rubric_review.results import (
    errored_items,
    review_checks,
    review_criteria,
    sample_report,
    stage_cost,
)
from autorubric_cli.rubric_review.stages import (
    Engine,
    check_inputs,
    output_directory,
    scratch,
    total_bill,
)

RESULT = "review.json"


@dataclass
class ReviewRequest:
    rubric: Path
    data: Path | None = None
    task: str | None = None
    meta: Path | None = None
    judges: list[str] = field(default_factory=list)
    sample: int = 20
    seed: int = 0
    out: Path | None = None
    min_quality: float | None = None
    max_cost: float | None = None
    cache: bool = True
    cache_dir: Path | None = None


@dataclass(frozen=True)
class Stage:
    rubric: Path
    dataset: Path
    directory: Path


def review_inputs(request: ReviewRequest) -> dict[str, Any]:
    """What the output directory's stages depend on (stages.check_inputs)."""
    return {
        "command": "review",
        "rubric": sha256_file(request.rubric),
        "data": None if request.data is None else sha256_file(request.data),
        "meta": None if request.meta is None else sha256_file(request.meta),
        "task": request.task,
        "judges": request.judges,
        "sample": request.sample if request.data is not None else None,
        "seed": request.seed,
    }


def sample_indices(total: int, size: int, seed: int) -> set[int]:
    digest = hashlib.sha256(f"review-sample\x1f{seed}".encode()).digest()
    return set(random.Random(int.from_bytes(digest, "big")).sample(range(total), min(size, total)))


def prepare(request: ReviewRequest, rubric: Rubric, folder: Path, root: Path) -> list[Stage]:
    """Write the stages' inputs into `folder`; the stages' experiments go into `root`."""
    folder.mkdir(parents=True, exist_ok=True)
    meta_rubric, item = folder / "meta-rubric.yaml", folder / "meta-item.jsonl"
    write_yaml(meta_rubric, meta_rubric_data(request.meta, bool(request.task), rubric))
    write_atomic(item, orjson.dumps(meta_item(rubric, request.task)) + b"\n")
    stages = [Stage(meta_rubric, item, root / "meta")]
    if request.data is not None:
        total = sum(1 for _ in iter_records(request.data))
        chosen = sample_indices(total, request.sample, request.seed)
        sample = part_path(request.data, "sample", folder)
        write_parts(request.data, [sample], [0 if i in chosen else -1 for i in range(total)])
        stages.append(Stage(request.rubric, sample, root / "sample"))
    return stages


def engine_for(request: ReviewRequest, root: Path) -> Engine:
    return Engine.of(request, root, f"autorubric review {request.rubric} ...")


def run_review(request: ReviewRequest) -> ReviewResult:
    """Grade every stage (or continue them), then the result, also written to review.json."""
    rubric = load_rubric(request.rubric)
    root = output_directory("review", request, rubric)
    check_inputs(root, review_inputs(request))
    stages = prepare(request, rubric, root, root)
    engine = engine_for(request, root)
    for stage in stages:  # every refusal before the first call
        engine.check(stage.rubric, stage.dataset, stage.directory)
    done = [engine.run(s.rubric, s.dataset, s.directory) for s in stages]
    result = review_result(request, rubric, root, done)
    write_atomic(root / RESULT, result.to_json().encode() + b"\n")
    return result


def review_result(
    request: ReviewRequest, rubric: Rubric, root: Path, done: list[OpenedExperiment]
) -> ReviewResult:
    meta, sample = done[0], done[1] if len(done) > 1 else None
    checks, record = review_checks(meta, rubric)
    findings = lint(rubric)
    quality = record.score
    passed = None
    if request.min_quality is not None and quality is not None:
        passed = quality >= request.min_quality
    return ReviewResult(
        rubric=str(request.rubric),
        task=request.task,
        meta=str(meta.directory.parent / "meta-rubric.yaml"),
        simulated=record.simulated or bool(sample and sample.manifest.simulated),
        quality=quality,
        min_quality=request.min_quality,
        passed=passed,
        checks=checks,
        criteria=review_criteria(rubric, checks, findings, sample_report(sample)),
        findings=findings,
        sample=None
        if sample is None
        else SampleSummary(
            items=sample.manifest.items_total,
            seed=request.seed,
            judges=[j.judge_id for j in sample.rubric.grader.judges],
            experiment=str(sample.directory),
        ),
        unknown_affected=sum(c.unknown_affected for c in checks),
        errored_checks=sum(c.verdict is None for c in checks),
        errored_items=sum(errored_items(d) for d in done),
        cost=stage_cost(*(d.directory for d in done)),
        directory=str(root),
    )


def review_bill(request: ReviewRequest) -> dict[str, Any]:
    """The `--dry-run` bill of every stage and their sum; writes nothing."""
    rubric = load_rubric(request.rubric)
    root = output_directory("review", request, rubric)
    engine = engine_for(request, root)
    with scratch() as folder:
        stages = prepare(request, rubric, folder, root)
        bills = {s.directory.name: engine.bill(s.rubric, s.dataset, s.directory) for s in stages}
    return total_bill(bills)
