"""OpenTelemetry traces end to end (docs/guides/tracing.md): real judge calls over HTTP to the
loopback judge server, spans exported by the real SDK over OTLP/HTTP to a loopback receiver
that decodes `ExportTraceServiceRequest` as a collector does."""

from __future__ import annotations

import json
import socket
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.support.cli import KEY_VALUE, cli
from tests.support.experiment.runs import server_rubric, token, valid_lines, write_dataset
from tests.support.judge_server import JudgeServer
from tests.support.otlp_receiver import OtlpReceiver, ReceivedSpan

N = 4
ERROR = 2  # opentelemetry.proto.trace.v1.Status.STATUS_CODE_ERROR
CLIENT = 3  # opentelemetry.proto.trace.v1.Span.SPAN_KIND_CLIENT


def traced_run(
    tmp_path: Path, server: JudgeServer, receiver: OtlpReceiver, out: str, **env: str
) -> Path:
    rubric = server_rubric(tmp_path / "rubric.yaml", server.api_base, llm_calls=env.pop("calls"))
    data = write_dataset(tmp_path / "data.jsonl", N)
    variables = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, **env}
    done = cli("run", rubric, data, "--out", tmp_path / out, "--otel", env=variables)
    assert done.exit_code == 0, done.stderr
    assert "traces" not in done.stderr  # no export trouble
    return tmp_path / out


def chats(receiver: OtlpReceiver) -> list[ReceivedSpan]:
    return receiver.named("chat ")


@pytest.mark.parametrize("calls", ["per_criterion", "per_item"])
def test_one_span_per_run_item_and_call_attempt_with_parents_and_tokens(
    tmp_path: Path, calls: str
) -> None:
    with JudgeServer() as server, OtlpReceiver() as receiver:
        server.script("server_error")  # the first call fails once, then is retried
        exp = traced_run(tmp_path, server, receiver, "exp", calls=calls)
        sent = server.request_count
    (run,) = receiver.named("autorubric run")
    items = receiver.named("autorubric item")
    assert run.attributes["autorubric.experiment"] == "exp"
    assert run.attributes["autorubric.rubric"] == "engine-test"
    assert run.attributes["autorubric.status"] == "completed"
    assert run.parent_span_id == b""
    assert sorted(i.attributes["autorubric.item.id"] for i in items) == [
        f"it{i:04d}" for i in range(N)
    ]
    assert len(chats(receiver)) == sent  # one span per attempt: the failed one too
    assert {s.trace_id for s in receiver.spans} == {run.trace_id}
    item_of = {i.span_id: i.attributes["autorubric.item.id"] for i in items}
    assert all(i.parent_span_id == run.span_id for i in items)
    for chat in chats(receiver):
        assert item_of[chat.parent_span_id] == chat.attributes["autorubric.item.id"]
        assert chat.name == "chat judge-0" and chat.kind == CLIENT
        assert chat.attributes["gen_ai.operation.name"] == "chat"
        assert chat.attributes["gen_ai.provider.name"] == "openai"
        assert chat.attributes["gen_ai.request.model"] == "judge-0"
        assert chat.attributes["gen_ai.request.temperature"] == 0.0
        assert chat.attributes["autorubric.judge.id"] == "j0"
        assert chat.attributes["autorubric.sample"] == 0
        assert chat.attributes["server.address"] == "127.0.0.1"
        assert ("autorubric.criterion" in chat.attributes) == (calls == "per_criterion")
    records = {r["id"]: r for r in valid_lines(exp / "items.jsonl")}
    for item in items:
        record = records[item.attributes["autorubric.item.id"]]
        assert item.attributes["autorubric.item.status"] == record["status"] == "ok"
        assert item.attributes["autorubric.item.score"] == pytest.approx(record["score"])
        answered = [
            c
            for c in chats(receiver)
            if c.parent_span_id == item.span_id and "error.type" not in c.attributes
        ]
        inputs = sum(c.attributes["gen_ai.usage.input_tokens"] for c in answered)
        outputs = sum(c.attributes["gen_ai.usage.output_tokens"] for c in answered)
        assert (inputs, outputs) == (
            record["usage"]["prompt_tokens"],
            record["usage"]["completion_tokens"],
        )
        assert all(c.attributes["autorubric.cache_hit"] is False for c in answered)
    (failed,) = [c for c in chats(receiver) if "error.type" in c.attributes]
    assert failed.attributes["error.type"] == "server"  # the failure kind of a 500
    assert failed.status_code == ERROR
    assert "gen_ai.usage.input_tokens" not in failed.attributes
    criterion = failed.attributes.get("autorubric.criterion")
    again = [
        c
        for c in chats(receiver)
        if c.attributes["autorubric.attempt"] == 2
        and c.parent_span_id == failed.parent_span_id
        and c.attributes.get("autorubric.criterion") == criterion
    ]
    assert len(again) == 1 and "error.type" not in again[0].attributes
    assert Counter(c.attributes["autorubric.attempt"] for c in chats(receiver))[2] == 1


def test_no_key_and_no_content_unless_asked(tmp_path: Path) -> None:
    with JudgeServer() as server, OtlpReceiver() as receiver:
        traced_run(tmp_path, server, receiver, "exp", calls="per_criterion")
    bodies = b"".join(receiver.raw)
    assert chats(receiver)
    assert KEY_VALUE.encode() not in bodies and KEY_VALUE not in receiver.as_json()
    assert token(0).encode() not in bodies  # the item's text: no message content
    assert not any("gen_ai.input.messages" in s.attributes for s in receiver.spans)
    assert not any("gen_ai.output.messages" in s.attributes for s in receiver.spans)


def test_content_when_asked_then_cache_hits_send_no_request(tmp_path: Path) -> None:
    asked = {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"}
    with JudgeServer() as server, OtlpReceiver() as receiver:
        traced_run(tmp_path, server, receiver, "first", calls="per_criterion", **asked)
        sent = server.request_count
        first = list(chats(receiver))
        receiver.spans.clear()
        traced_run(tmp_path, server, receiver, "second", calls="per_criterion")
        assert server.request_count == sent  # every call of the rerun is a cache hit
    assert KEY_VALUE.encode() not in b"".join(receiver.raw)
    for chat in first:
        shown = json.loads(chat.attributes["gen_ai.input.messages"])
        item = int(chat.attributes["autorubric.item.id"].removeprefix("it"))
        assert [m["role"] for m in shown] == ["system", "user"]
        assert token(item) in shown[1]["parts"][0]["content"]
        (reply,) = json.loads(chat.attributes["gen_ai.output.messages"])
        assert reply["role"] == "assistant" and json.loads(reply["parts"][-1]["content"])
    hits = chats(receiver)
    assert len(hits) == len(first)
    for hit in hits:
        assert hit.attributes["autorubric.cache_hit"] is True
        assert hit.attributes["autorubric.cost_usd"] == 0.0
        assert "gen_ai.usage.input_tokens" not in hit.attributes


def dead_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_collector_that_is_down_costs_one_warning_line(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", N)
    endpoint = f"http://127.0.0.1:{dead_port()}"
    with JudgeServer() as server:
        rubric = server_rubric(tmp_path / "rubric.yaml", server.api_base)
        done = cli(
            "run", rubric, data, "--out", tmp_path / "exp", "--otel",
            env={"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint},
        )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "traces" in line]
    assert len(warnings) == 1 and warnings[0].startswith("autorubric: warning: traces:")
    assert endpoint in warnings[0]
    assert len(valid_lines(tmp_path / "exp" / "items.jsonl")) == N


@pytest.mark.parametrize(
    ("args", "env", "missing", "extra"),
    [
        (["--otel"], {}, "opentelemetry.sdk", "otel"),
        (["--otel", "--dry-run"], {}, "opentelemetry.sdk", "otel"),
        ([], {"AUTORUBRIC_OTEL": "1"}, "opentelemetry.sdk", "otel"),
        (["--mlflow"], {}, "mlflow", "mlflow"),
    ],
)
def test_without_the_extra_the_flag_is_an_input_error(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    env: dict[str, str],
    missing: str,
    extra: str,
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # as if not installed
    with JudgeServer() as server:
        rubric = server_rubric(tmp_path / "rubric.yaml", server.api_base)
        data = write_dataset(tmp_path / "data.jsonl", N)
        done = cli("run", rubric, data, "--out", tmp_path / "exp", *args, env=env)
        assert server.request_count == 0
    assert done.exit_code == 2
    assert f'pip install "autorubric-cli[{extra}]"' in done.stderr
    assert (args[0] if args else "AUTORUBRIC_OTEL=1") in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "exp").exists()
    if extra == "mlflow":
        exported = cli("export", "mlflow", tmp_path)
        assert exported.exit_code == 2 and 'pip install "autorubric-cli[mlflow]"' in exported.stderr


def test_resume_traces_only_what_it_grades(tmp_path: Path) -> None:
    with JudgeServer() as server, OtlpReceiver() as receiver:
        rubric = server_rubric(tmp_path / "rubric.yaml", server.api_base)
        data = write_dataset(tmp_path / "data.jsonl", N)
        server.script("bad_request")  # not retried: one item ends with an error vote
        first = cli("run", rubric, data, "--out", tmp_path / "exp")
        assert first.exit_code != 2, first.stderr
        errored = [
            r["id"] for r in valid_lines(tmp_path / "exp" / "items.jsonl") if r["status"] == "error"
        ]
        assert len(errored) == 1
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint}
        done = cli("resume", tmp_path / "exp", "--retry-errors", "--otel", env=env)
        assert done.exit_code == 0, done.stderr
    (run,) = receiver.named("autorubric run")
    assert run.attributes["autorubric.status"] == "completed"
    assert [
        i.attributes["autorubric.item.id"] for i in receiver.named("autorubric item")
    ] == errored
    assert chats(receiver)
    assert all(c.attributes["autorubric.item.id"] in errored for c in chats(receiver))


def test_an_error_span_says_what_went_wrong_without_content_or_keys(tmp_path: Path) -> None:
    """The OpenTelemetry conventions: the span's status description holds the error's text and
    an `exception` event its type and message; a backend (Phoenix, Jaeger) shows both. The text
    is the error vote's own, never the prompt or a key."""
    with JudgeServer() as server, OtlpReceiver() as receiver:
        server.script("server_error")
        exp = traced_run(tmp_path, server, receiver, "exp", calls="per_criterion")
    (failed,) = [c for c in chats(receiver) if "error.type" in c.attributes]
    assert failed.status_code == ERROR
    assert failed.status_message.startswith("server: HTTP 500")
    ((name, event),) = failed.events
    assert name == "exception"
    assert event["exception.type"] == "autorubric_cli.judges.policy.failures.JudgeFailure"
    assert event["exception.message"] == failed.status_message
    text = json.dumps([failed.status_message, failed.events])
    assert KEY_VALUE not in text and "[[item-" not in text
    assert "exception.stacktrace" not in event  # source lines are not the error's text
    answered = [c for c in chats(receiver) if "error.type" not in c.attributes]
    assert all(c.status_message == "" and c.events == [] for c in answered)
    assert valid_lines(exp / "items.jsonl")


def test_an_errored_item_span_says_why(tmp_path: Path) -> None:
    with JudgeServer() as server, OtlpReceiver() as receiver:
        server.script(*["server_error"] * 40)  # every attempt of the first calls fails
        rubric = server_rubric(tmp_path / "rubric.yaml", server.api_base, max_attempts=1)
        data = write_dataset(tmp_path / "data.jsonl", 1)
        variables = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint}
        done = cli("run", rubric, data, "--out", tmp_path / "exp", "--otel", env=variables)
    assert done.exit_code == 3, done.stderr
    (item,) = receiver.named("autorubric item")
    (record,) = valid_lines(tmp_path / "exp" / "items.jsonl")
    assert item.status_code == ERROR and record["status"] == "error"
    assert item.status_message == record["error"]


def test_cascade_call_spans_carry_their_stage(tmp_path: Path) -> None:
    """The first call fails once, with no retry: its criterion escalates to the then judge."""
    cascade = "  cascade: {first: [j0], then: [j1], escalate_below: 1.0}\n"
    with JudgeServer() as server, OtlpReceiver() as receiver:
        server.script("server_error")
        rubric = server_rubric(
            tmp_path / "rubric.yaml", server.api_base, judges=2, max_attempts=1,
            grader_extra=cascade,
        )  # fmt: skip
        data = write_dataset(tmp_path / "data.jsonl", N)
        variables = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint}
        done = cli("run", rubric, data, "--out", tmp_path / "exp", "--otel", env=variables)
    assert done.exit_code == 0, done.stderr
    stages: dict[str, set[str]] = {}
    for chat in chats(receiver):
        judge = chat.attributes["autorubric.judge.id"]
        stages.setdefault(judge, set()).add(chat.attributes["autorubric.cascade.stage"])
    assert stages == {"j0": {"first"}, "j1": {"then"}}
    assert not any(
        "autorubric.cascade.stage" in s.attributes for s in receiver.named("autorubric ")
    )
