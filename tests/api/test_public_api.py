"""The public Python API: a script or notebook drives run, resume, report and compare
with nothing but the names `autorubric_cli` exports."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import autorubric_cli as ar

ROOT = Path(__file__).resolve().parents[2]
RUBRIC = ROOT / "rubrics" / "demo.yaml"
DATASET = ROOT / "datasets" / "demo.jsonl"


def _drop_last_lines(items: Path, n: int) -> list[str]:
    lines = items.read_text().splitlines(keepends=True)
    items.write_text("".join(lines[:-n]))
    return [json.loads(line)["id"] for line in lines[-n:]]


def test_run_resume_report_compare_through_public_names(tmp_path: Path) -> None:
    first = ar.run(RUBRIC, DATASET, out=tmp_path / "a", limit=12)
    assert isinstance(first, ar.Experiment)
    assert first.status == "completed"
    typed = first.report()
    assert isinstance(typed, ar.Report)
    assert typed.items.completed == 12
    report = typed.to_dict()
    assert json.loads(typed.to_json()) == report
    # the API writes report.json as the CLI does, equal to what report() returns
    assert json.loads((tmp_path / "a" / "report.json").read_text()) == report

    # a crash that lost the last records: resume grades exactly those again
    lost = _drop_last_lines(tmp_path / "a" / "items.jsonl", 3)
    assert {r.id for r in first.items()}.isdisjoint(lost)
    resumed = ar.resume(tmp_path / "a")
    records = list(resumed.items())
    assert len(records) == 12
    assert set(lost) <= {r.id for r in records}
    assert all(isinstance(r, ar.ItemRecord) for r in records)
    assert resumed.report().score == typed.score

    other = ar.run(RUBRIC, DATASET, out=tmp_path / "b", limit=12, seed=7)
    compared = other.compare(first, max_drop=1.0)
    assert isinstance(compared, ar.CompareResult)
    comparison = compared.to_dict()
    assert comparison["items"]["paired"] == 12
    assert comparison["base"]["path"] == str(tmp_path / "a")
    assert comparison["gate"]["passed"] is True
    assert ar.open_experiment(tmp_path / "b").compare(tmp_path / "a") == other.compare(first)


def test_report_fail_under_adds_the_gate_check(tmp_path: Path) -> None:
    experiment = ar.run(RUBRIC, DATASET, out=tmp_path / "e", limit=5)
    gate = experiment.report(fail_under=1.01).to_dict()["gate"]
    assert gate["passed"] is False
    added = [c for c in gate["checks"] if c["metric"] == "score.mean" and c.get("min") == 1.01]
    assert len(added) == 1 and added[0]["passed"] is False


def test_bad_input_raises_the_cli_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("criteria:\n  - requirment: typo\n")
    with pytest.raises(ar.InputError) as caught:
        ar.run(bad, DATASET, out=tmp_path / "x")
    assert "bad.yaml:2" in str(caught.value)
    assert not (tmp_path / "x").exists()
    with pytest.raises(ar.InputError):
        ar.open_experiment(tmp_path / "nowhere")


def test_load_rubric_and_dataset_and_the_grader_as_context_manager() -> None:
    rubric = ar.load_rubric(RUBRIC)
    items = ar.load_dataset(DATASET, rubric)
    assert [i.index for i in items[:3]] == [0, 1, 2]
    handmade = ar.Item(id="mine", submission="NMC reaches 270 Wh/kg.")
    assert handmade.submission.output == "NMC reaches 270 Wh/kg."

    async def grade() -> tuple[ar.ItemRecord, ar.ItemRecord]:
        # the seed comes from the rubric; a second grader with it explicit agrees
        async with ar.CriterionGrader(rubric) as grader:
            implicit = await grader.grade(handmade)
        async with ar.CriterionGrader(rubric, seed=rubric.grader.seed) as grader:
            explicit = await grader.grade(handmade)
        return implicit, explicit

    implicit, explicit = asyncio.run(grade())
    assert implicit.status == "ok"
    assert [c.model_dump() for c in implicit.criteria] == [
        c.model_dump() for c in explicit.criteria
    ]


async def test_async_twins_inside_a_running_event_loop(tmp_path: Path) -> None:
    # pytest-asyncio runs this coroutine in a loop that is already running, as Jupyter does
    loop = asyncio.get_running_loop()
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    beat = loop.create_task(ticker())
    experiment = await ar.arun(RUBRIC, DATASET, out=tmp_path / "nb", limit=6)
    lost = _drop_last_lines(tmp_path / "nb" / "items.jsonl", 2)
    resumed = await ar.aresume(tmp_path / "nb")
    beat.cancel()
    assert experiment.status == "completed"
    assert set(lost) <= {r.id for r in resumed.items()}
    assert ticks > 0  # the caller's loop kept running while the grading ran
