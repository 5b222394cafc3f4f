"""A dataset whose items carry their own criteria and context, in HealthBench's format, through
the features that must work on it (docs/guides/per-item-rubrics.md): the field mapping, per-item
calls, SIGKILL and resume, shards and merge, batches (OpenAI's on the loopback server, Claude's
and Gemini's on their fakes), the dry run's bill, traces and the MLflow export."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
import yaml

from autorubric_cli.core.criterion import Criterion
from autorubric_cli.core.items import Item
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.experiment.loop import first_seen, window_for
from autorubric_cli.experiment.runner import items_in_flight
from tests.support.cli import cli
from tests.support.experiment.batch import comparable, fast_batches
from tests.support.experiment.item_rubrics import (
    FIELD_FLAGS,
    criteria_count,
    healthbench_dataset,
    healthbench_row,
    item_rubric_file,
    native_dataset,
)
from tests.support.experiment.provider_batch import FAKES, offline, provider_rubric, run_here
from tests.support.experiment.runs import (
    assert_nothing_lost_nothing_rejudged,
    ok,
    sigkill_and_resume,
    token,
    untimed_records,
)
from tests.support.judge_server import JudgeServer, item_entries
from tests.support.otlp_receiver import OtlpReceiver

N = 10


@pytest.mark.parametrize("llm_calls", ["per_criterion", "per_item"])
def test_a_healthbench_file_is_graded_as_it_is(tmp_path: Path, llm_calls: str) -> None:
    data = healthbench_dataset(tmp_path / "hb.jsonl", N)
    with JudgeServer() as server:
        rubric = item_rubric_file(tmp_path / "r.yaml", server.api_base, llm_calls=llm_calls)
        ok("run", rubric, data, *FIELD_FLAGS, "--out", tmp_path / "exp", "--no-cache")
        requests = server.requests
    if llm_calls == "per_criterion":
        assert len(requests) == criteria_count(N)
    else:  # one call per item, listing that item's criteria
        asked = {len(item_entries(r.body) or []) for r in requests}
        assert len(requests) == N and asked == {2, 3, 4, 5}
    for i in range(N):  # every call shows the item's context, then its answer
        row = healthbench_row(i, 2 + i % 4)
        texts = [r.text() for r in requests if token(i) in r.text()]
        assert texts and all(row["prompt"][0]["content"] in t for t in texts)
    for i, record in enumerate(sorted(untimed_records(tmp_path / "exp"), key=lambda r: r["index"])):
        row = healthbench_row(i, 2 + i % 4)
        assert record["id"] == row["prompt_id"] and record["status"] == "ok"
        assert record["context"] == row["prompt"] and record["tags"] == row["example_tags"]
        kept = [(c["name"], c["requirement"], c["weight"], c["tags"]) for c in record["criteria"]]
        assert kept == [
            (f"i{k + 1}", c["criterion"], c["points"], c["tags"])
            for k, c in enumerate(row["rubrics"])
        ]
    assert (tmp_path / "exp" / "report.json").is_file()


def test_sigkill_and_resume_lose_nothing_and_judge_nothing_twice(tmp_path: Path) -> None:
    n = 24
    with JudgeServer(latency=0.12) as server:
        rubric = item_rubric_file(tmp_path / "r.yaml", server.api_base, concurrency=3)
        data = healthbench_dataset(tmp_path / "hb.jsonl", n)
        ok("run", rubric, data, *FIELD_FLAGS, "--out", tmp_path / "reference", "--no-cache")
        server.reset()
        exp = tmp_path / "exp"
        run_args = [rubric, data, *FIELD_FLAGS, "--no-cache"]
        snapshots = sigkill_and_resume(run_args, exp, server, random.Random(7), 3)
        requests = server.requests
    assert_nothing_lost_nothing_rejudged(exp, tmp_path / "reference", snapshots, requests, n)


def test_merged_shards_equal_a_single_run(tmp_path: Path) -> None:
    data = healthbench_dataset(tmp_path / "hb.jsonl", N)
    with JudgeServer() as server:
        rubric = item_rubric_file(tmp_path / "r.yaml", server.api_base)
        ok("run", rubric, data, *FIELD_FLAGS, "--out", tmp_path / "single", "--no-cache")
        shards = [tmp_path / f"s{k}" for k in (1, 2)]
        for k, shard in enumerate(shards, start=1):
            ok("run", rubric, data, *FIELD_FLAGS, "--out", shard, "--shard", f"{k}/2", "--no-cache")
    assert all(0 < len(untimed_records(s)) < N for s in shards)
    ok("merge", tmp_path / "merged", *shards)
    merged, single = untimed_records(tmp_path / "merged"), untimed_records(tmp_path / "single")
    assert merged == sorted(single, key=lambda r: r["index"])
    report = json.loads((tmp_path / "merged" / "report.json").read_text())
    assert report["items"]["total"] == N


def test_the_dry_run_bills_the_calls_the_run_makes(tmp_path: Path) -> None:
    data = healthbench_dataset(tmp_path / "hb.jsonl", N)
    with JudgeServer() as server:
        rubric = item_rubric_file(tmp_path / "r.yaml", server.api_base)
        bill = json.loads(
            ok("run", rubric, data, *FIELD_FLAGS, "--dry-run", "-f", "json", "--no-cache")
        )
        assert server.request_count == 0 and not (tmp_path / "per-item").exists()
        ok("run", rubric, data, *FIELD_FLAGS, "--out", tmp_path / "exp", "--no-cache")
        sent = server.request_count
    assert bill["calls"]["total"] == bill["calls"]["to_send"] == sent == criteria_count(N)
    [line] = bill["criteria"]
    assert (line["criterion"], line["calls"]) == ("(item criteria)", sent)


def test_an_openai_batch_run_equals_the_direct_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast_batches(monkeypatch)
    data = native_dataset(tmp_path / "d.jsonl", N)
    with JudgeServer(batch_delay=0.1) as server:
        rubric = item_rubric_file(tmp_path / "r.yaml", server.api_base)
        ok("run", rubric, data, "--out", tmp_path / "direct", "--no-cache")
        server.reset()
        ok("run", rubric, data, "--out", tmp_path / "batch", "--batch", "--no-cache")
        assert server.request_count == len(server.batch_requests) == criteria_count(N)
    reference = comparable(tmp_path / "direct")
    assert len(reference) == N and comparable(tmp_path / "batch") == reference


@pytest.mark.parametrize("provider", sorted(FAKES))
def test_a_provider_batch_run_equals_the_direct_run(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    offline(monkeypatch)
    fast_batches(monkeypatch)
    data = native_dataset(tmp_path / "d.jsonl", N)
    with FAKES[provider]() as server:
        rubric = provider_rubric(tmp_path / "r.yaml", provider, server.api_base)
        spec = yaml.safe_load(rubric.read_text())
        rubric.write_text(yaml.safe_dump({**spec, "criteria": []}))
        run_here(rubric, data, tmp_path / "direct", batch=False)
        direct = len(server.direct_requests)
        server.reset()
        run_here(rubric, data, tmp_path / "batch", batch=True)
        assert server.direct_requests == [] and len(server.batch_requests) == direct
    assert direct == criteria_count(N)
    reference = comparable(tmp_path / "direct")
    assert len(reference) == N and comparable(tmp_path / "batch") == reference


def test_traces_and_the_mlflow_export_work_on_item_criteria(tmp_path: Path) -> None:
    data = healthbench_dataset(tmp_path / "hb.jsonl", 4)
    with JudgeServer() as server, OtlpReceiver() as receiver:
        rubric = item_rubric_file(tmp_path / "r.yaml", server.api_base)
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint}
        done = cli("run", rubric, data, *FIELD_FLAGS, "--out", tmp_path / "exp", "--otel", env=env)
        assert done.exit_code == 0, done.stderr
        sent = server.request_count
    chats = receiver.named("chat ")
    assert len(chats) == sent == criteria_count(4)
    asked = Counter(c.attributes["autorubric.criterion"] for c in chats)
    assert asked == Counter(f"i{k + 1}" for i in range(4) for k in range(2 + i % 4))
    assert len(receiver.named("autorubric item")) == 4
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    exported = cli("export", "mlflow", tmp_path / "exp", "--tracking-uri", uri, cwd=tmp_path)
    assert exported.exit_code == 0, exported.stderr
    assert "mlflow run " in exported.stderr


def test_an_item_criterion_changed_after_the_run_started_is_refused_by_resume(
    tmp_path: Path,
) -> None:
    """The dataset's SHA-256 in the manifest covers the items' own criteria."""
    data = healthbench_dataset(tmp_path / "hb.jsonl", 3)
    rubric = tmp_path / "r.yaml"
    rubric.write_text("criteria: []\ngrader: {judges: [{model: simulated/a}]}\n")
    ok("run", rubric, data, *FIELD_FLAGS, "--out", tmp_path / "exp")
    data.write_text(data.read_text().replace('"points": 3', '"points": 4', 1))
    resumed = cli("resume", tmp_path / "exp")
    assert resumed.exit_code == 2 and "dataset changed since the run started" in resumed.stderr


def test_a_second_run_is_served_from_the_call_cache(tmp_path: Path) -> None:
    data = healthbench_dataset(tmp_path / "hb.jsonl", 4)
    with JudgeServer() as server:
        rubric = item_rubric_file(tmp_path / "r.yaml", server.api_base)
        ok("run", rubric, data, *FIELD_FLAGS, "--out", tmp_path / "a")
        assert server.request_count == criteria_count(4)
        server.reset()
        ok("run", rubric, data, *FIELD_FLAGS, "--out", tmp_path / "b")
        assert server.request_count == 0
    votes = [v for r in untimed_records(tmp_path / "b") for c in r["criteria"] for v in c["votes"]]
    assert len(votes) == criteria_count(4) and all(v["cached"] for v in votes)


def test_items_in_flight_are_sized_by_the_first_items_criteria() -> None:
    rubric = Rubric.model_validate({"grader": {"judges": [{"model": "simulated/a"}]}})
    items = [
        Item(
            id=f"x{i}",
            submission="a",
            rubric=[Criterion(name=f"i{k}", requirement="r") for k in range(11)],
        )
        for i in range(3)
    ]
    rest, criteria = first_seen(iter(items), rubric)
    assert criteria == 11 and list(rest) == items
    assert window_for(rubric, criteria) == items_in_flight(64, 11) < window_for(rubric, 1)
    assert first_seen(iter([]), rubric)[1] == 0
