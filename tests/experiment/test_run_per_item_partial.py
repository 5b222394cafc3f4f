"""Per-item replies that are partly or wholly unusable (docs/guides/per-item.md), through the
CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import cli
from tests.support.experiment.per_item import (
    CRITERIA,
    asked_names,
    item_rubric,
    records,
    report,
    scripted_label,
    served_tokens,
    without_call_accounting,
)
from tests.support.experiment.runs import token, write_dataset
from tests.support.judge_server import JudgeServer, RecordedRequest, scripted_answer

N = 4
NAMES = [c["name"] for c in CRITERIA]
REQUIREMENT = {c["name"]: c["requirement"] for c in CRITERIA}
scripted = scripted_answer(scripted_label)


def editing(edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> Any:
    """The scripted answer with its per-item entries passed through `edit`."""

    def answer(body: dict[str, Any]) -> str:
        reply = json.loads(scripted(body))
        reply["criteria"] = edit(reply["criteria"])
        return json.dumps(reply)

    return answer


def drop_style_when_not_alone(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if len(entries) == 1:
        return entries
    return [e for e in entries if e["criterion"] != "style"]


def style_out_of_range(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**e, "selected_option": 99} if e["criterion"] == "style" else e for e in entries]


def item_requests(requests: list[RecordedRequest], i: int) -> list[RecordedRequest]:
    return [r for r in requests if token(i) in r.text()]


def run(*args: str | Path) -> int:
    return cli(*args, "--format", "json").exit_code


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Records of a run whose replies are all usable (api_base is not in the records)."""
    tmp = tmp_path_factory.mktemp("clean")
    with JudgeServer(answer=scripted) as server:
        data = write_dataset(tmp / "data.jsonl", N)
        rubric = item_rubric(tmp / "r.yaml", server.api_base, judges=1, llm_calls="per_item")
        assert run("run", rubric, data, "--out", tmp / "clean", "--no-cache") == 0
    return records(tmp / "clean")


def test_a_missing_entry_is_asked_again_alone_in_one_follow_up(
    tmp_path: Path, clean: dict[str, dict[str, Any]]
) -> None:
    with JudgeServer() as server:
        data = write_dataset(tmp_path / "data.jsonl", N)
        rubric = item_rubric(tmp_path / "r.yaml", server.api_base, judges=1, llm_calls="per_item")
        server.answer = editing(drop_style_when_not_alone)
        assert run("run", rubric, data, "--out", tmp_path / "exp", "--no-cache") == 0
        requests = server.requests

    assert len(requests) == 2 * N
    for i in range(N):
        first, follow_up = item_requests(requests, i)
        assert asked_names(first) == NAMES
        assert asked_names(follow_up) == ["style"]
        text = follow_up.messages[-1]["content"]
        assert REQUIREMENT["style"] in text
        assert not any(REQUIREMENT[n] in text for n in NAMES if n != "style")
    exp = records(tmp_path / "exp")
    assert {k: without_call_accounting(v) for k, v in exp.items()} == {
        k: without_call_accounting(v) for k, v in clean.items()
    }
    for record in exp.values():
        style = record["criteria"][2]["votes"][0]
        assert (style["attempts"], style["billed_with"]) == (2, None)
        assert style["usage"]["prompt_tokens"] > 0  # it carries its own follow-up call
        assert record["criteria"][3]["votes"][0]["billed_with"] == "correct"
    assert report(tmp_path / "exp")["usage"] == served_tokens(requests)


def test_garbage_for_one_criterion_until_attempts_run_out_is_an_error_vote_for_it_alone(
    tmp_path: Path, clean: dict[str, dict[str, Any]]
) -> None:
    with JudgeServer() as server:
        data = write_dataset(tmp_path / "data.jsonl", N)
        rubric = item_rubric(tmp_path / "r.yaml", server.api_base, judges=1, llm_calls="per_item")
        server.answer = editing(style_out_of_range)
        assert run("run", rubric, data, "--out", tmp_path / "exp", "--no-cache") == 3
        requests = server.requests
        server.reset()
        server.answer = scripted
        assert run("resume", tmp_path / "exp", "--retry-errors", "--no-cache") == 0
        retried = server.requests

    assert len(requests) == 3 * N  # max_attempts: 3 calls listed `style`
    for i in range(N):
        asked = [asked_names(r) for r in item_requests(requests, i)]
        assert sorted(asked, key=len) == [["style"], ["style"], NAMES]
    failed = {}
    for line in (tmp_path / "exp" / "items.jsonl").read_text().splitlines():
        record = json.loads(line)
        failed.setdefault(record["id"], record)
    for item_id, record in failed.items():
        assert record["status"] == "error"
        style = record["criteria"][2]["votes"][0]
        assert style["error"] == "parse: selected_option 99 is outside 1..4"
        assert style["attempts"] == 3 and style["option_index"] is None
        others = [c for c in record["criteria"] if c["name"] != "style"]
        expected = [c for c in clean[item_id]["criteria"] if c["name"] != "style"]
        assert [without_call_accounting({"criteria": [c]}) for c in others] == [
            without_call_accounting({"criteria": [c]}) for c in expected
        ]

    # --retry-errors re-asks only the errored criterion, one call per item, reusing the rest.
    assert len(retried) == N
    assert all(asked_names(r) == ["style"] for r in retried)
    final = records(tmp_path / "exp")
    assert {k: without_call_accounting(v) for k, v in final.items()} == {
        k: without_call_accounting(v) for k, v in clean.items()
    }


def test_a_reply_that_fails_entirely_is_re_asked_like_any_unusable_reply(tmp_path: Path) -> None:
    with JudgeServer(answer=scripted, script=["malformed", "server_error"]) as server:
        data = write_dataset(tmp_path / "data.jsonl", 1)
        rubric = item_rubric(tmp_path / "r.yaml", server.api_base, judges=1, llm_calls="per_item")
        assert run("run", rubric, data, "--out", tmp_path / "exp", "--no-cache") == 0
        requests = server.requests
    assert [r.fault for r in requests] == ["malformed", "server_error", None]
    assert all(asked_names(r) == NAMES for r in requests)
    assert [m["role"] for m in requests[1].messages] == ["system", "user", "assistant", "user"]
    assert "could not be used" in requests[1].messages[-1]["content"]
    (record,) = records(tmp_path / "exp").values()
    assert record["status"] == "ok"
    assert [v["attempts"] for c in record["criteria"] for v in c["votes"]] == [3, 3, 3, 3]
    assert report(tmp_path / "exp")["usage"] == served_tokens(requests)
