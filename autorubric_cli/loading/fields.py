"""Field mapping (docs/reference/dataset-files.md): our item field <- a dotted path into the file's
record.

`--field submission=response` (repeatable) or the rubric's `dataset.fields` name where each of
our fields is read from; CLI flags win per field. A mapped path's top-level key is consumed;
every other key that is not one of ours goes into `metadata` (the record's own `metadata`
object wins on a clash).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from autorubric_cli.core.items import ITEM_FIELDS
from autorubric_cli.errors import InputError, unknown_name_message
from autorubric_cli.loading.where import Where

_MISSING = object()


def parse_field_flags(flags: Sequence[str]) -> dict[str, str]:
    """`target=dotted.path` strings to a mapping; a bad one is an InputError on --field."""
    out: dict[str, str] = {}
    for flag in flags:
        target, sep, path = flag.partition("=")
        target, path = target.strip(), path.strip()
        if not sep or not target or not path:
            raise InputError(f"expected TARGET=PATH, got {flag!r}", key="--field")
        out[target] = path
    check_fields(out, key="--field")
    return out


def check_fields(fields: Mapping[str, str], key: str, source: str | None = None) -> None:
    for target, path in fields.items():
        if target not in ITEM_FIELDS:
            raise InputError(
                unknown_name_message("field", target, ITEM_FIELDS), path=source, key=key
            )
        if not isinstance(path, str) or not all(path.split(".")):
            raise InputError(f"bad path {path!r} for field {target!r}", path=source, key=key)


def lookup(obj: Any, path: str) -> Any:
    """The value at a dotted path, or _MISSING."""
    node = obj
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return _MISSING
        node = node[part]
    return node


def require_submission(obj: dict[Any, Any], fields: Mapping[str, str], where: Where) -> None:
    """The record holds the submission where the mapping says; if not, name the fix: the keys
    the record has, and `--field` (a mapped path that is absent is named, with the closest
    key). A key present with `null` is not missing (the item's parser refuses the null)."""
    keys = [str(k) for k in obj]
    found = f"the record's keys: {', '.join(keys) or 'none'}"
    path = fields.get("submission")
    if path is None:
        if "submission" in obj:
            return
        raise where.error(
            f"missing required key 'submission' ({found}); name the key that holds the "
            "answer with --field submission=KEY (or `dataset.fields` in the rubric)",
            key="submission",
        )
    if lookup(obj, path) is _MISSING:
        close = difflib.get_close_matches(path.split(".")[0], keys, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise where.error(
            f"the field mapping submission={path} names {path!r}, which this record does not "
            f"have ({found}){hint}",
            key="submission",
        )


def apply_fields(obj: Any, fields: Mapping[str, str], where: Where) -> Any:
    """The record in our shape: mapped fields moved, unknown fields into `metadata`."""
    if not isinstance(obj, dict):
        return obj
    require_submission(obj, fields, where)
    if not fields and all(key in ITEM_FIELDS for key in obj):
        return obj
    out: dict[str, Any] = {}
    consumed = {path.split(".")[0] for path in fields.values()}
    for target, path in fields.items():
        value = lookup(obj, path)
        if value is not _MISSING:
            out[target] = value
    extra: dict[str, Any] = {}
    for key, value in obj.items():
        if key in consumed:
            continue
        if key in ITEM_FIELDS and key not in fields:
            out[key] = value
        else:
            extra[str(key)] = value
    if extra:
        metadata = out.get("metadata")
        if metadata is None:
            out["metadata"] = extra
        elif isinstance(metadata, dict):
            out["metadata"] = {**extra, **metadata}
        else:
            raise where.error("`metadata` must be an object", key="metadata")
    return out
