"""Gate metric paths checked against the report's shape for one rubric, before any call
(docs/reference/report-json.md).

The shape is the report's JSON Schema (`report_schema.json` beside this module, written from the
report's models by `python -m autorubric_cli.report.schema`; a test keeps it current). A path is
walked as `core.gate.resolve_metric` walks a report: object keys, then lists of named objects
indexed by criterion name; a criterion's block is the one of its kind (binary, ordinal,
nominal). The path must end on a number.
"""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SCHEMA_FILE = Path(__file__).with_name("report_schema.json")
Node = dict[str, Any]

# Keys a criterion's summary holds for one kind only (report/build.py sets them null otherwise).
KIND_ONLY = {"met_rate": "binary"}


@functools.cache
def _schema() -> Node:
    loaded: Node = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return loaded


def _resolve(node: Node) -> Node:
    """Follow `$ref`s and drop `null` from unions; `int | float` is a number."""
    defs = _schema()["$defs"]
    while True:
        if "$ref" in node:
            node = defs[node["$ref"].rsplit("/", 1)[1]]
            continue
        if "anyOf" in node:
            kept = [n for n in node["anyOf"] if n.get("type") != "null"]
            if len(kept) == 1:
                node = kept[0]
                continue
            if all(_is_number(n) for n in kept):
                return {"type": "number"}
        return node


def _is_number(node: Node) -> bool:
    return node.get("type") in ("number", "integer")


def _variant(items: Node, kind: str) -> Node:
    """The block of a list of criteria for a criterion of `kind` (a discriminated union)."""
    mapping = items.get("discriminator", {}).get("mapping")
    return _resolve({"$ref": mapping[kind]} if mapping else items)


def _numbers_under(node: Node) -> list[str]:
    return [k for k, v in node.get("properties", {}).items() if _is_number(_resolve(v))]


def _did_you_mean(word: str, choices: Sequence[str], prefix: str, listed: str) -> str:
    """The closest choice, else the list of choices (under the name `listed`)."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    if close:
        return f"; did you mean {prefix + close[0]!r}?"
    return f"; {listed}: {', '.join(choices)}" if choices else ""


def metric_problem(path: str, criteria: Sequence[tuple[str, str]]) -> str | None:
    """Why `path` names no number in the report of a rubric with `criteria` ((name, kind)
    pairs), with a "did you mean"; None when it names one."""
    parts = path.split(".")
    kinds = dict(criteria)
    node, i, walked, criterion = _schema(), 0, "", ""
    while i < len(parts):
        node = _resolve(node)
        here = walked + "." if walked else ""
        if "properties" in node:
            key = parts[i]
            if key not in node["properties"]:
                where = f"{walked!r}" if walked else "the report"
                last = i == len(parts) - 1  # the last part names a number, others a block
                keys = (_numbers_under(node) if last else []) or list(node["properties"])
                hint = _did_you_mean(key, keys, here, "its figures")
                return f"unknown metric {path!r}: {where} has no key {key!r}{hint}"
            node, i, walked = node["properties"][key], i + 1, here + key
            if criterion and kinds[criterion] != KIND_ONLY.get(key, kinds[criterion]):
                return (
                    f"unknown metric {path!r}: `{key}` is defined for {KIND_ONLY[key]} criteria "
                    f"only and {criterion!r} is {kinds[criterion]}; did you mean "
                    f"{here + 'mean_value'!r}?"
                )
            criterion = ""
        elif node.get("type") == "object" and "additionalProperties" in node:
            stop = _key_end(parts, i, _resolve(node["additionalProperties"]))
            node, i, walked = node["additionalProperties"], stop, here + ".".join(parts[i:stop])
        elif node.get("type") == "array" and _is_named(node["items"]):
            end = _criterion_end(parts, i, kinds)
            if end is None:
                hint = _did_you_mean(parts[i], list(kinds), here, "the rubric's criteria")
                return f"unknown metric {path!r}: no criterion named {parts[i]!r}{hint}"
            criterion = ".".join(parts[i:end])
            node, i, walked = _variant(node["items"], kinds[criterion]), end, here + criterion
        else:
            return f"unknown metric {path!r}: {walked!r} is not a block of named figures"
    node = _resolve(node)
    if _is_number(node):
        return None
    numbers = _numbers_under(node)
    choices = f": one of {', '.join(walked + '.' + n for n in numbers)}" if numbers else ""
    return f"metric {path!r} is not a number; a gate needs one{choices}"


def _key_end(parts: list[str], start: int, value: Node) -> int:
    """Where a free key (a judge id, a tag such as `theme:a.b`) starting at parts[start] ends:
    at the first part after it that names a key of its value, so keys may hold dots."""
    keys = value.get("properties", {})
    for end in range(start + 1, len(parts)):
        if parts[end] in keys:
            return end
    return start + 1


def _is_named(items: Node) -> bool:
    resolved = _resolve(items)
    if "oneOf" in resolved:
        resolved = _resolve(resolved["oneOf"][0])
    return "name" in resolved.get("properties", {})


def _criterion_end(parts: list[str], start: int, kinds: dict[str, str]) -> int | None:
    """Where the criterion name starting at parts[start] ends (names may hold dots)."""
    for end in range(len(parts), start, -1):
        if ".".join(parts[start:end]) in kinds:
            return end
    return None


def unreachable_bound(metric: str, low: float | None, normalize: bool) -> str | None:
    """A `min` no score can reach: a normalized score lies in [0, 1] (docs/guides/ci.md)."""
    if normalize and metric.startswith("score.") and low is not None and low > 1:
        return (
            f"min {low:g} on {metric} can never pass: scores are normalized to [0, 1] "
            "(set a bound between 0 and 1, or `normalize: false` for raw scores)"
        )
    return None
