"""The CI gate (docs/guides/ci.md): AND over checks, each a metric path into the report JSON."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from autorubric_cli.core.config import GateCheck


def resolve_metric(report: dict[str, Any], path: str) -> Any:
    """Follow a dotted path; a list of named objects is indexed by `name`. Names and object
    keys may hold dots (a system named `gpt-4.1` in a pairwise report): the longest key that
    matches is taken."""
    parts = path.split(".")
    node: Any = report
    i = 0
    while i < len(parts):
        if isinstance(node, dict) and parts[i] in node:
            node, i = node[parts[i]], i + 1
            continue
        if isinstance(node, dict):
            end = next(
                (e for e in range(len(parts), i + 1, -1) if ".".join(parts[i:e]) in node), None
            )
            if end is None:
                raise KeyError(path)
            node, i = node[".".join(parts[i:end])], end
            continue
        if isinstance(node, list):
            for end in range(len(parts), i, -1):
                name = ".".join(parts[i:end])
                match = next(
                    (x for x in node if isinstance(x, dict) and x.get("name") == name), None
                )
                if match is not None:
                    node, i = match, end
                    break
            else:
                raise KeyError(path)
            continue
        raise KeyError(path)
    return node


def evaluate_check(report: dict[str, Any], check: GateCheck) -> dict[str, Any]:
    result: dict[str, Any] = {"metric": check.metric}
    if check.min is not None:
        result["min"] = check.min
    if check.max is not None:
        result["max"] = check.max
    try:
        value = resolve_metric(report, check.metric)
    except KeyError:
        return {**result, "value": None, "passed": False, "reason": "metric not found"}
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        result.update(value=None, passed=False, reason="metric is undefined")
        if (report.get("items") or {}).get("errored"):
            # a broken run, not a bad model (docs/reference/exit-codes.md)
            result["undefined_by_errors"] = True
        return result
    passed = (check.min is None or value >= check.min) and (check.max is None or value <= check.max)
    return {**result, "value": value, "passed": passed}


def undefined_by_errors(check: dict[str, Any]) -> bool:
    """A failed check whose metric is undefined while items errored: the run is broken."""
    return not check["passed"] and bool(check.get("undefined_by_errors"))


def gate_exit_code(report: dict[str, Any]) -> int:
    """docs/reference/exit-codes.md: 1 when a gate check failed on a defined value (or an undefined
    one with no errored item to blame); else 3 when items errored (a check left undefined by them
    included); else 0."""
    gate = report["gate"]
    failed = [c for c in gate["checks"] if not c["passed"]] if gate is not None else []
    if any(not undefined_by_errors(c) for c in failed):
        return 1
    return 3 if report["items"]["errored"] else 0


def evaluate_gate(report: dict[str, Any], checks: Sequence[GateCheck]) -> dict[str, Any] | None:
    """None when there are no checks; else {"passed", "checks"}."""
    if not checks:
        return None
    results = [evaluate_check(report, c) for c in checks]
    return {"passed": all(r["passed"] for r in results), "checks": results}
