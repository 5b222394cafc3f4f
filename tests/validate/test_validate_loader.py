"""--human and --fc-matrix files: canonical labels, and one-line errors naming file:line:key."""

from __future__ import annotations

from pathlib import Path

import pytest

from autorubric_cli.core.rubric import Criterion, CriterionOption, Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.validate.loader import read_fc_matrix, read_human_file, selected_criteria

RUBRIC = Rubric(
    criteria=[
        Criterion(name="resolved", requirement="Resolves it"),
        Criterion(
            name="satisfaction",
            requirement="How satisfied?",
            options=[
                CriterionOption(label="Satisfied", value=1.0),
                CriterionOption(label="Dissatisfied", value=0.0),
            ],
        ),
    ]
)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "human.jsonl"
    path.write_text(text)
    return path


def test_labels_are_canonicalised_like_the_dataset_loader(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '{"id": "a", "human_ratings": {"resolved": ["met", " UNMET "]}}\n\n'
        '{"id": 7, "human_ratings": {"satisfaction": ["satisfied", ["SATISFIED", "dissatisfied"]]},'
        ' "submission": "ignored"}\n',
    )
    table = read_human_file(path, RUBRIC)
    assert table == {
        "a": {"resolved": ["MET", "UNMET"]},
        "7": {"satisfaction": ["Satisfied", ["Satisfied", "Dissatisfied"]]},
    }


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ('{"id": "a", "human_ratings": {"resolved": ["MAYBE"]}}', ":1: human_ratings.resolved:"),
        ('{"id": "a", "human_ratings": {"nope": ["MET"]}}', ":1: human_ratings.nope:"),
        ('{"id": "a", "human_ratings": {"resolved": [[]]}}', ":1: human_ratings.resolved:"),
        ('{"id": "a", "human_ratings": {"resolved": "MET"}}', ":1: human_ratings.resolved:"),
        ('{"human_ratings": {"resolved": ["MET"]}}', ":1: id:"),
        ('{"id": "a"}', ":1: human_ratings:"),
        ('{"id": "a", "human_ratings": {"resolved": ["MET"]}', ":1: invalid JSON"),
        ("[1, 2]", ":1: each line must be a JSON object"),
    ],
)
def test_bad_lines_name_file_line_and_key(tmp_path: Path, line: str, where: str) -> None:
    path = write(tmp_path, line + "\n")
    with pytest.raises(InputError) as info:
        read_human_file(path, RUBRIC)
    message = info.value.one_line()
    assert message.startswith(f"{path}{where}") and "\n" not in message


def test_duplicate_ids_are_an_error_on_the_second_line(tmp_path: Path) -> None:
    line = '{"id": "a", "human_ratings": {"resolved": ["MET"]}}\n'
    path = write(tmp_path, line + line)
    with pytest.raises(InputError, match="duplicate id") as info:
        read_human_file(path, RUBRIC)
    assert info.value.line == 2 and info.value.key == "id"


def test_a_missing_human_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        read_human_file(tmp_path / "nope.jsonl", RUBRIC)


def test_fc_matrix_file_must_be_a_json_object_of_known_criteria(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text('{"satisfaction": {}}')
    assert read_fc_matrix(path, RUBRIC) == {"satisfaction": {}}
    for text, needle in (("[1]", "must be a JSON object"), ("{", "invalid JSON")):
        path.write_text(text)
        with pytest.raises(InputError, match=needle):
            read_fc_matrix(path, RUBRIC)
    path.write_text('{"nope": {}}')
    with pytest.raises(InputError) as info:
        read_fc_matrix(path, RUBRIC)
    assert info.value.key == "nope"


def test_selected_criteria_checks_names() -> None:
    assert selected_criteria(RUBRIC, []) == ["resolved", "satisfaction"]
    assert selected_criteria(RUBRIC, ["satisfaction"]) == ["satisfaction"]
    with pytest.raises(InputError) as info:
        selected_criteria(RUBRIC, ["nope"])
    assert info.value.key == "--criterion"
