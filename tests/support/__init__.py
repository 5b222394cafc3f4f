"""Test support: the loopback judge server and small builders shared by tests and benches."""

from __future__ import annotations

import socket
from typing import Any

from autorubric_cli.core.items import Item, Submission
from autorubric_cli.core.rubric import Rubric

TEST_KEY_ENV = "AUTORUBRIC_TEST_JUDGE_KEY"
BINARY = {"name": "accuracy", "requirement": "States the correct figure"}
MULTI_CHOICE = {
    "name": "quality",
    "requirement": "How good is the answer?",
    "options": [
        {"label": "Poor", "value": 0.0},
        {"label": "Fair", "value": 0.5},
        {"label": "Good", "value": 0.8},
        {"label": "Excellent", "value": 1.0},
    ],
}


def http_judge(api_base: str, name: str = "loopback", **spec: Any) -> dict[str, Any]:
    """A judge spec that reaches the loopback server through the real litellm path."""
    return {
        "model": f"openai/{name}",
        "api_base": api_base,
        "api_key_env": TEST_KEY_ENV,
        **spec,
    }


def make_rubric(
    judges: list[dict[str, Any]], criteria: list[dict[str, Any]] | None = None, **grader: Any
) -> Rubric:
    return Rubric.model_validate(
        {"criteria": criteria or [BINARY], "grader": {"judges": judges, **grader}}
    )


def make_item(
    item_id: str = "item-1",
    output: str = "The cell stores 270 Wh/kg.",
    index: int = 0,
    **fields: Any,
) -> Item:
    return Item(
        id=item_id, index=index, line=index + 1, submission=Submission(output=output), **fields
    )


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
