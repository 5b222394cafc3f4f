"""Conversation submissions read from every dataset format and through field mapping; the item
keeps the conversation as given."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from autorubric_cli.core.conversation import as_given
from autorubric_cli.core.items import Item
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.loading.dataset import iter_items
from autorubric_cli.loading.rubric_loader import parse_rubric
from tests.support.cli import cli
from tests.support.conversations import (
    CONVERSATIONS,
    REASONING_TURNS,
    SUPPORT_CHAT_DEVELOPER,
    jsonl_text,
    rows,
)

RUBRIC = "criteria:\n  - name: polite\n    requirement: The assistant is polite.\n"


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return parse_rubric(RUBRIC, "rubric.yaml")


def conversations(items: list[Item]) -> dict[str, list[dict[str, Any]]]:
    out = {}
    for item in items:
        assert item.submission.messages is not None, item.id
        out[item.id] = as_given(item.submission.messages)
    return out


def without_nulls(value: Any) -> Any:
    """A Parquet struct gives every message every key; the absent ones are null."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def test_jsonl_keeps_each_conversation_as_given(tmp_path: Path, rubric: Rubric) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text(jsonl_text())
    items = list(iter_items(path, rubric))
    assert conversations(items) == CONVERSATIONS
    assert [i.query for i in items] == ["Grade the assistant."] * len(CONVERSATIONS)


def test_json_array_and_gzip(tmp_path: Path, rubric: Rubric) -> None:
    plain = tmp_path / "data.json"
    plain.write_text(json.dumps(rows()))
    packed = tmp_path / "data.jsonl.gz"
    packed.write_bytes(gzip.compress(jsonl_text().encode()))
    assert conversations(list(iter_items(plain, rubric))) == CONVERSATIONS
    assert conversations(list(iter_items(packed, rubric))) == CONVERSATIONS


@pytest.mark.parametrize(("name", "delimiter"), [("data.csv", ","), ("data.tsv", "\t")])
def test_csv_and_tsv_cells_holding_json(
    tmp_path: Path, rubric: Rubric, name: str, delimiter: str
) -> None:
    path = tmp_path / name
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, delimiter=delimiter)
        writer.writerow(["id", "submission", "query"])
        for row in rows():
            writer.writerow([row["id"], json.dumps(row["submission"]), "q"])
        writer.writerow(["plain", "[not a conversation] just text", "q"])
        writer.writerow(["list", "[1, 2]", "q"])
    items = list(iter_items(path, rubric))
    assert conversations(items[:-2]) == CONVERSATIONS
    assert [i.submission.output for i in items[-2:]] == ["[not a conversation] just text", "[1, 2]"]
    assert items[-1].submission.messages is None


def test_a_csv_messages_column_nests_under_submission(tmp_path: Path, rubric: Rubric) -> None:
    path = tmp_path / "data.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "submission.messages"])
        writer.writerow(["r", json.dumps(REASONING_TURNS)])
    assert conversations(list(iter_items(path, rubric))) == {"r": REASONING_TURNS}


def test_parquet_list_of_structs_and_json_text(tmp_path: Path, rubric: Rubric) -> None:
    structs = tmp_path / "structs.parquet"
    table = pa.Table.from_pylist(
        [
            {"id": "r", "submission": REASONING_TURNS},
            {"id": "s", "submission": SUPPORT_CHAT_DEVELOPER},
        ]
    )
    pq.write_table(table, structs)
    read = conversations(list(iter_items(structs, rubric)))
    assert without_nulls(read) == {"r": REASONING_TURNS, "s": SUPPORT_CHAT_DEVELOPER}
    text = tmp_path / "text.parquet"
    pq.write_table(
        pa.Table.from_pylist(
            [{"id": r["id"], "submission": json.dumps(r["submission"])} for r in rows()]
        ),
        text,
    )
    assert conversations(list(iter_items(text, rubric))) == CONVERSATIONS


def test_field_mapping_reaches_a_nested_conversation(tmp_path: Path, rubric: Rubric) -> None:
    path = tmp_path / "data.jsonl"
    records = [
        {"qid": key, "sample": {"messages": messages, "model": "m1"}}
        for key, messages in CONVERSATIONS.items()
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    items = list(iter_items(path, rubric, {"submission": "sample.messages", "id": "qid"}))
    assert conversations(items) == CONVERSATIONS
    flat = tmp_path / "flat.jsonl"
    flat.write_text("".join(json.dumps({"messages": m}) + "\n" for m in CONVERSATIONS.values()))
    mapped = list(iter_items(flat, rubric, {"submission": "messages"}))
    assert [as_given(i.submission.messages or []) for i in mapped] == list(CONVERSATIONS.values())


def test_field_mapping_from_the_command_line(tmp_path: Path) -> None:
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(RUBRIC)
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({"messages": m}) + "\n" for m in CONVERSATIONS.values()))
    assert cli("check", rubric, data).exit_code == 2
    outcome = cli("check", rubric, data, "--field", "submission=messages")
    assert outcome.exit_code == 0, outcome.output
