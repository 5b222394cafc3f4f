"""Readers by format, field mapping, the library's rubric shapes and did-you-mean keys."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.errors import InputError
from autorubric_cli.judges.request import Call
from autorubric_cli.judges.transports.litellm import request_kwargs
from autorubric_cli.loading.dataset import iter_items
from autorubric_cli.loading.fields import parse_field_flags
from autorubric_cli.loading.rubric_loader import parse_rubric

RUBRIC = parse_rubric(
    "criteria:\n  - {name: ok, requirement: r}\n"
    "  - name: tone\n    requirement: t\n"
    "    options: [{label: Dry, value: 0.2}, {label: Warm, value: 0.7}, {label: NA, na: true}]\n",
    "r.yaml",
)


def error_of(path: Path, fields: dict[str, str] | None = None) -> InputError:
    with pytest.raises(InputError) as info:
        list(iter_items(path, RUBRIC, fields))
    assert "\n" not in info.value.one_line()
    return info.value


def test_csv_nests_dotted_columns_and_parses_human_rating_cells(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text(
        "id,submission,ground_truth.ok,ground_truth.tone,human_ratings.tone,metadata.src,extra\n"
        'a,"x, y",MET,warm,"[""Dry"", [""Dry"", ""Warm""]]",web,7\n'
        "b,z,,,,,\n"
    )
    first, second = iter_items(path, RUBRIC)
    assert (first.id, first.line, first.submission.output) == ("a", 2, "x, y")
    assert first.ground_truth == {"ok": "MET", "tone": "Warm"}
    assert first.human_ratings == {"tone": ["Dry", ["Dry", "Warm"]]}
    assert first.metadata == {"extra": "7", "src": "web"}
    assert (second.id, second.line, second.ground_truth, second.metadata) == ("b", 3, {}, {})


def test_csv_row_number_counts_multiline_cells(tmp_path: Path) -> None:
    path = tmp_path / "d.tsv"
    path.write_text('id\tsubmission\tground_truth.ok\na\t"two\nlines"\tMET\nb\tz\tmaybe\n')
    error = error_of(path)
    assert (error.line, error.key) == (4, "ground_truth.ok")


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        (b"id,submission\na,b,c\n", 2, "row has 3 fields"),
        (b"id,submission,id\na,b,c\n", 1, "duplicate column"),
        (b'id,submission\na,"b\n', 2, "CSV error"),
        (b"id,submission\na,b\nc,\xff\n", 3, "not UTF-8"),
        (b"id,submission,human_ratings.tone\na,b,[oops\n", 2, "cell must be JSON"),
        (b"id,submission,ground_truth,ground_truth.ok\na,b,[1],MET\n", 2, "both a value and"),
    ],
)
def test_csv_errors_name_the_row(tmp_path: Path, content: bytes, line: int, message: str) -> None:
    path = tmp_path / "d.csv"
    path.write_bytes(content)
    error = error_of(path)
    assert error.path == str(path) and error.line == line and message in error.message


def test_json_array_element_number_is_the_line(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text(json.dumps([{"submission": "a"}, {"submission": 3}]))
    error = error_of(path)
    assert (error.line, error.key) == (2, "submission")


def test_gzip_and_bom_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl.gz"
    lines = b'\xef\xbb\xbf{"id": "a", "submission": "x"}\r\n\r\n{"submission": "y"}\r\n'
    path.write_bytes(gzip.compress(lines))
    assert [(i.id, i.submission.output) for i in iter_items(path, RUBRIC)] == [
        ("a", "x"),
        ("3", "y"),
    ]
    path.write_bytes(gzip.compress(lines)[:30])
    assert "corrupt or truncated" in error_of(path).message


def test_parquet_is_read_by_row_group_with_rows_as_lines(tmp_path: Path) -> None:
    path = tmp_path / "d.parquet"
    rows = [{"qid": f"r{i}", "resp": {"text": f"t{i}"}, "ground_truth.ok": "MET"} for i in range(5)]
    rows[3]["ground_truth.ok"] = "maybe"
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=2)
    assert pq.ParquetFile(path).num_row_groups == 3
    fields = {"id": "qid", "submission": "resp.text"}
    error = error_of(path, fields)
    assert (error.line, error.key) == (4, "ground_truth.ok")
    rows[3]["ground_truth.ok"] = "UNMET"
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=2)
    items = list(iter_items(path, RUBRIC, fields))
    assert [(i.id, i.line, i.submission.output) for i in items][3] == ("r3", 4, "t3")
    assert items[0].metadata == {}


def test_unknown_extension_and_not_a_parquet_file(tmp_path: Path) -> None:
    path = tmp_path / "d.xlsx"
    path.write_text("x")
    assert "unknown dataset format" in error_of(path).message
    path = tmp_path / "d.parquet"
    path.write_bytes(b"PAR1 not really")
    assert "not a readable Parquet file" in error_of(path).message


def test_mapping_moves_fields_and_keeps_the_rest_in_metadata(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    row = {
        "qid": 9,
        "out": {"text": "hi", "tokens": 3},
        "q": "?",
        "model": "m",
        "metadata": {"m": 1},
    }
    path.write_text(json.dumps(row) + "\n")
    (item,) = iter_items(path, RUBRIC, {"id": "qid", "submission": "out.text", "query": "q"})
    assert (item.id, item.submission.output, item.query) == ("9", "hi", "?")
    assert item.metadata == {"model": "m", "m": 1}
    error = error_of(path, {"submission": "out.missing"})
    assert (error.line, error.key) == (1, "submission")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["submision=x"], "unknown field `submision`; did you mean `submission`?"),
        (["submission"], "expected TARGET=PATH"),
        (["submission=a..b"], "bad path"),
    ],
)
def test_bad_field_flags(flags: list[str], message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_field_flags(flags)
    assert message in info.value.message and info.value.key == "--field"


def test_rubric_dataset_json_is_read_with_positional_ground_truth(tmp_path: Path) -> None:
    path = tmp_path / "lib.json"
    data = {
        "rubric": [],
        "prompt": "P",
        "items": [
            {"submission": "s", "description": "d", "ground_truth": ["UNMET", "Warm"]},
            {"submission": "t", "description": "e", "ground_truth": None, "prompt": "Q"},
        ],
    }
    path.write_text(json.dumps(data))
    first, second = iter_items(path, RUBRIC)
    assert first.ground_truth == {"ok": "UNMET", "tone": "Warm"} and first.query == "P"
    assert first.metadata == {"description": "d"} and first.id == "1"
    assert second.ground_truth == {} and second.query == "Q"
    data["items"][1]["rubric"] = [{"name": None, "requirement": "x", "weight": 2}]
    path.write_text(json.dumps(data))
    first, second = iter_items(path, RUBRIC)  # the library's per-item rubrics are read
    assert first.rubric == [] and [(c.name, c.weight) for c in second.rubric] == [("i1", 2)]


@pytest.mark.parametrize(
    ("text", "line", "key", "message"),
    [
        (
            "criteria:\n  - requirment: x\n",
            2,
            "criteria[0].requirment",
            "did you mean `requirement`?",
        ),
        ("- requirement: a\n- requirement: b\n  wieght: 2\n", 3, "[1].wieght", "`weight`?"),
        (
            "sections:\n  - name: s\n    criteria:\n      - requirement: a\n"
            "  - criteria:\n      - {requirement: b, weight: .nan}\n",
            6,
            "sections[1].criteria[0].weight",
            "finite",
        ),
        (
            "criteria:\n  - requirement: x\ngrader: {agregation: any}\n",
            3,
            "grader.agregation",
            "`aggregation`?",
        ),
        (
            "criteria:\n  - requirement: x\ndataset: {fields: {submision: a}}\n",
            3,
            "dataset.fields.submision",
            "`submission`?",
        ),
        (
            "criteria:\n  - requirement: x\ngrader:\n  judges: [{model: m, params: {model: x}}]\n",
            4,
            "grader.judges[0].params.model",
            "set by autorubric",
        ),
    ],
)
def test_rubric_errors_name_line_key_and_closest_key(
    text: str, line: int, key: str, message: str
) -> None:
    with pytest.raises(InputError) as info:
        parse_rubric(text, "r.yaml")
    assert (info.value.line, info.value.key) == (line, key)
    assert message in info.value.message


@pytest.mark.parametrize(
    "text",
    [
        "- {name: a, requirement: x, weight: 3}\n- {criteria: [{name: b, requirement: y}]}\n",
        "name: n\nguidelines: g\nsections:\n  - criteria: [{name: a, requirement: x, weight: 3}]\n"
        "  - criteria: [{name: b, requirement: y}]\n",
        '{"rubric": {"guidelines": "g", "criteria": [{"name": "a", "requirement": "x", '
        '"weight": 3}, {"name": null, "requirement": "y"}]}, "name": "n", "items": []}',
    ],
    ids=["list-with-section", "sections", "rubric-dataset"],
)
def test_library_rubric_shapes_load(text: str) -> None:
    rubric = parse_rubric(text, "r.yaml")
    assert [(c.name, c.weight) for c in rubric.criteria][0] == ("a", 3.0)
    assert rubric.criteria[1].requirement == "y"


def test_judge_params_pass_through_to_litellm() -> None:
    params = {"top_p": 0.9, "seed": 4, "extra_headers": {"X-Team": "evals"}}
    call = Call([], {}, None)  # type: ignore[arg-type]
    kwargs = request_kwargs(JudgeSpec(model="openai/x", params=params), 30.0, call)
    assert {k: kwargs[k] for k in params} == params
    assert kwargs["model"] == "openai/x" and kwargs["max_retries"] == 0
