"""The JSON contract (docs/reference/report-json.md, docs/guides/compare.md, validate): `report`,
`compare` and `validate --format json` are byte-identical to golden files generated from the code
before the typed report.

Experiments are built offline with simulated judges (deterministic: each answer is seeded from
judge, item, criterion and sample), then edited where a state cannot be produced on demand
(errored items, a failed or interrupted run, a torn line, a repeated id). The temporary
directory is replaced by ``<TMP>`` in the output, the repository root by ``<ROOT>``.

To regenerate after an intended change of the JSON (and say so in the commit):
``AUTORUBRIC_REGENERATE_GOLDEN=1 python -m pytest tests/report/test_report_golden.py``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from autorubric_cli.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "golden"
DEMO = (ROOT / "rubrics" / "demo.yaml", ROOT / "datasets" / "demo.jsonl")
VALIDATE_DEMO = (ROOT / "rubrics" / "validate-demo.yaml", ROOT / "datasets" / "validate-demo.jsonl")
REGENERATE = os.environ.get("AUTORUBRIC_REGENERATE_GOLDEN") == "1"


def cli(*args: object) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def run(rubric_and_data: tuple[Path, Path], out: Path, *options: object) -> Path:
    rubric, data = rubric_and_data
    result = cli("run", *rubric_and_data, "--out", out, "--no-cache", *options)
    assert result.exit_code in (0, 1), result.output
    assert rubric.exists() and data.exists()
    return out


def edit_lines(directory: Path, edit: dict[int, dict[str, object]], extra: list[bytes]) -> None:
    """Update the record on each numbered line with `edit`, then append the `extra` lines."""
    items = directory / "items.jsonl"
    lines = items.read_bytes().splitlines()
    for number, changes in edit.items():
        record = json.loads(lines[number])
        record.update(changes)
        lines[number] = json.dumps(record).encode()
    items.write_bytes(b"".join(line + b"\n" for line in [*lines, *extra]))


def set_status(directory: Path, status: str, items_total: int | None = None) -> None:
    path = directory / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["status"] = status
    if items_total is not None:
        manifest["items_total"] = items_total
    path.write_text(json.dumps(manifest, indent=2))


def with_votes(record: dict, **changes: object) -> dict[str, object]:
    """The record's first criterion with `changes` applied to each of its votes."""
    criteria = record["criteria"]
    criteria[0]["votes"] = [{**vote, **changes} for vote in criteria[0]["votes"]]
    return {"criteria": criteria}


def write_labels(directory: Path) -> None:
    """Two raters' labels (docs/guides/labels.md) on the first items, agreeing on most."""
    labels = {
        "energy_density": ["MET", "UNMET"],
        "clarity": ["Poor", "Fair", "Good", "Excellent"],
        "tone": ["Technical", "Conversational", "Marketing"],
    }
    lines = []
    for i in range(12):
        for rater, shift in (("ana", 0), ("bo", i % 4 == 0)):
            chosen = {name: options[(i + shift) % len(options)] for name, options in labels.items()}
            line = {"id": f"q{i + 1:03d}", "rater": rater, "labels": chosen}
            lines.append(json.dumps(line | {"labelled_at": f"2026-01-01T00:00:{i:02d}Z"}))
    (directory / "human_labels.jsonl").write_text("".join(f"{line}\n" for line in lines))


def errored(message: str) -> dict[str, object]:
    return {"status": "error", "error": message, "score": None, "raw_score": None}


@pytest.fixture(scope="module")
def experiments(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("golden")
    demo = run(DEMO, base / "demo")
    run(DEMO, base / "per-item", "--llm-calls", "per_item")
    run(VALIDATE_DEMO, base / "samples")
    shutil.copytree(demo, base / "labelled")
    write_labels(base / "labelled")
    for name, status in (("failed", "failed"), ("interrupted", "interrupted")):
        copy = base / name
        shutil.copytree(demo, copy)
        (copy / "report.json").unlink(missing_ok=True)
        lines = (copy / "items.jsonl").read_bytes().splitlines()
        repeated = json.loads(lines[4])
        repeated["score"] = 0.125  # the newest line of an id wins
        retried = with_votes(json.loads(lines[6]), error="timeout", attempts=3, cost=0.002)
        cached = with_votes(json.loads(lines[7]), cached=True, cost=0.0005)
        edit_lines(
            copy,
            {
                2: errored("judge careful: rate limited after 6 attempts"),
                6: retried,
                7: cached | {"cost_saved": 0.0015, "usage_saved": {"prompt_tokens": 12}},
                9: errored("boom"),
            },
            [json.dumps(repeated).encode(), b'{"id": "torn'],
        )
        set_status(copy, status, items_total=60 if status == "interrupted" else None)
    return base


CASES: dict[str, tuple[list[object], int]] = {
    "report-demo": (["report", "{demo}", "--format", "json"], 0),
    "report-demo-as-category": (
        ["report", "{demo}", "--format", "json", "--ca-mode", "as_category"],
        0,
    ),
    "report-per-item": (["report", "{per-item}", "--format", "json"], 0),
    "report-samples": (["report", "{samples}", "--format", "json"], 0),
    "report-failed": (["report", "{failed}", "--format", "json", "--fail-under", "0.9"], 1),
    "report-interrupted": (["report", "{interrupted}", "--format", "json"], 3),
    "report-labelled": (["report", "{labelled}", "--format", "json"], 0),
    "report-what-if": (
        [
            "report",
            "{demo}",
            "--format",
            "json",
            "--cannot-assess",
            "zero",
            "--aggregation",
            "majority",
            "--ordinal-aggregation",
            "median",
        ],
        0,
    ),  # fmt: skip
    "compare-demo-per-item": (["compare", "{demo}", "{per-item}", "--format", "json"], 0),
    "compare-demo-failed": (
        ["compare", "{demo}", "{failed}", "--format", "json", "--fail-on-regression", "--top", "5"],
        3,
    ),
    "compare-demo-samples": (
        ["compare", "{demo}", "{samples}", "--format", "json", "--max-drop", "0.01"],
        1,
    ),
    "compare-per-item-demo-max-drop": (
        ["compare", "{per-item}", "{demo}", "--format", "json", "--max-drop", "0", "--seed", "3"],
        0,
    ),
    "validate-samples": (["validate", "{samples}", "--format", "json"], 0),
    "validate-labelled": (["validate", "{labelled}", "--format", "json"], 0),
    "validate-samples-beta-sweep": (
        [
            "validate",
            "{samples}",
            "--format",
            "json",
            "--criterion",
            "satisfaction",
            "--beta-pair",
            "Satisfied,Very satisfied",
            "--beta-sweep",
            "0,0.25",
            "--tau",
            "0.75",
        ],
        0,
    ),  # fmt: skip
}


def substitute(args: list[object], base: Path) -> list[object]:
    out: list[object] = []
    for arg in args:
        if isinstance(arg, str) and arg.startswith("{") and arg.endswith("}"):
            out.append(base / arg[1:-1])
        else:
            out.append(arg)
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_json_output_is_byte_identical_to_the_golden_file(case: str, experiments: Path) -> None:
    args, expected_code = CASES[case]
    result = cli(*substitute(args, experiments))
    assert result.exit_code == expected_code, result.output
    json.loads(result.stdout)  # one JSON document, nothing else on stdout
    text = result.stdout.replace(str(experiments), "<TMP>").replace(str(ROOT), "<ROOT>")
    golden = GOLDEN / f"{case}.json"
    if REGENERATE:
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(text)
    assert text == golden.read_text()
