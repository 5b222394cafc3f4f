"""The base of the typed JSON results (report, compare, validate): frozen pydantic models whose
field order is the JSON's key order.

A key that is sometimes absent (not null) is a field declared with `absent()`: it is left out
of the dump while it is None. `to_json` is the text every `--format json` prints.
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field


def _is_none(value: object) -> bool:
    return value is None


def absent() -> Any:
    """A field whose key is left out of the JSON while it is None (not printed as null)."""
    return Field(None, exclude_if=_is_none)


class Block(BaseModel):
    """A frozen JSON object with exactly its declared keys."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def to_dict(self) -> dict[str, Any]:
        """The JSON object `--format json` prints, as Python values."""
        return to_json_dict(self)

    def to_json(self) -> str:
        """The JSON text `--format json` prints (2-space indent)."""
        return to_json(self).decode()


def to_json_dict(model: BaseModel) -> dict[str, Any]:
    """The model as the JSON object the CLI prints."""
    return model.model_dump(mode="json")


def to_json(model: BaseModel) -> bytes:
    """The JSON text `--format json` prints (2-space indent)."""
    return orjson.dumps(to_json_dict(model), option=orjson.OPT_INDENT_2)
