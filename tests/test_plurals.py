"""Counts of things are written by one helper (`core.words.plural`): `1 item`, `2 items`, never
`1 items` or `item(s)` (docs/guides/reports.md, "One vocabulary"). The source check looks for a
number written straight before a counted noun in an f-string; the judge prompts are exempt (their
text is part of every cached call's identity)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from autorubric_cli.core.words import plural
from tests.support.cli import cli

PACKAGE = Path(__file__).resolve().parents[1] / "autorubric_cli"
ROOT = PACKAGE.parent
PROMPTS = {"judges/prompts.py", "judges/per_item/prompts.py"}
NOUNS = (
    "item|cluster|vote|call|judge|shard|pair|rater|attempt|sample|line|error|batch|criteri"
    "|paired item|scored item|errored item|option|request|span|metric|run"
)
COUNTED = re.compile(rf"^ (?:{NOUNS})(?:s|a|on)?\b|^ \w+\(s\)")


def counted_nouns(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of every f-string part that follows a number with a counted noun."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.JoinedStr):
            continue
        parts = node.values
        for before, after in zip(parts, parts[1:], strict=False):
            if (
                isinstance(before, ast.FormattedValue)
                and "kind" not in ast.unparse(before.value).lower()  # `{kind} criteria`
                and isinstance(after, ast.Constant)
                and isinstance(after.value, str)
                and COUNTED.search(after.value)
            ):
                found.append((node.lineno, after.value[:30]))
    return found


def test_no_count_is_written_next_to_its_noun_by_hand() -> None:
    found = [
        f"autorubric_cli/{path.relative_to(PACKAGE).as_posix()}:{line}: {text!r}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).as_posix() not in PROMPTS
        for line, text in counted_nouns(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []


def test_the_source_check_can_fail() -> None:
    tree = ast.parse('f"{n} items"; f"{n} shard(s)"; f"{n:,} paired items"; f"{x} of them"')
    assert [text for _, text in counted_nouns(tree)] == [" items", " shard(s)", " paired items"]


@pytest.mark.parametrize(
    ("count", "word", "many", "written"),
    [
        (1, "item", None, "1 item"),
        (0, "item", None, "0 items"),
        (2, "paired item", None, "2 paired items"),
        (1200, "item", None, "1,200 items"),
        (1, "criterion", "criteria", "1 criterion"),
        (3, "criterion", "criteria", "3 criteria"),
        (2, "batch", "batches", "2 batches"),
    ],
)
def test_plural(count: int, word: str, many: str | None, written: str) -> None:
    assert plural(count, word, many) == written


def test_check_says_1_item(tmp_path: Path) -> None:
    data = tmp_path / "one.jsonl"
    data.write_text('{"id": "a", "submission": "NMC reaches 270 Wh/kg."}\n')
    rubric = tmp_path / "r.yaml"
    rubric.write_text(
        "criteria:\n  - {name: c, requirement: r}\ngrader:\n  judges: [{model: simulated/a}]\n"
    )
    done = cli("check", rubric, data)
    assert done.exit_code == 0, done.stderr
    assert ": 1 item," in done.output and "1 items" not in done.output
