"""Datasets whose items carry their own criteria (docs/reference/dataset-files.md, per-item
rubrics): what is read, and each bad input as one error naming file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.loading.dataset import iter_items

NO_SHARED = Rubric.model_validate({"criteria": []})


def test_an_item_with_no_criterion_at_all_is_an_error(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "a", "submission": "x"}\n')
    with pytest.raises(InputError) as caught:
        list(iter_items(data, NO_SHARED))
    assert (caught.value.line, caught.value.key) == (1, "rubric")
    assert "no criterion" in caught.value.message
