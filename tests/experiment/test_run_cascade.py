"""Live cascades end to end against the loopback server: replay = live, the call cache after a
calibration, the stage accounting, errors and abstentions, resume mid-escalation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autorubric_cli.core.thresholds import criterion_threshold
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.grading.calibrate import Thresholds, record_pairs, replayed_outcome
from autorubric_cli.report.calibrate import calibrate_experiments, latest
from tests.support.cli import cli
from tests.support.experiment.batch import fast_batches
from tests.support.experiment.cache import MODELS
from tests.support.experiment.cascade import cascade_report, cascade_rubric, decisions, records
from tests.support.experiment.runs import write_dataset
from tests.support.judge_server import JudgeServer

N = 30
T = 0.7


def ok(*args: str | Path) -> None:
    result = cli(*args)
    assert result.exit_code == 0, result.stderr


def calls_by_model(server: JudgeServer) -> dict[str, int]:
    counts: dict[str, int] = {}
    for request in server.requests:
        counts[request.model] = counts.get(request.model, 0) + 1
    return counts


def first_and_then_runs(tmp_path: Path, server: JudgeServer, **settings: object) -> Path:
    data = write_dataset(tmp_path / "data.jsonl", N)
    for stage in ("first", "then"):
        rubric = cascade_rubric(
            tmp_path / f"{stage}.yaml", server.api_base, stages=(stage,), **settings
        )
        ok("run", rubric, data, "--out", tmp_path / stage)
    return data


def test_a_replay_equals_the_live_run_which_the_cache_serves(tmp_path: Path) -> None:
    with JudgeServer() as server:
        data = first_and_then_runs(tmp_path, server)
        calibration = calibrate_experiments(tmp_path / "first", tmp_path / "then", 0.95)
        server.reset()
        rubric = cascade_rubric(tmp_path / "c.yaml", server.api_base, threshold=T)
        ok("run", rubric, data, "--out", tmp_path / "live")
        assert server.request_count == 0  # every call was made by the two runs

    live = decisions(tmp_path / "live")
    assert live == replayed(tmp_path, T)
    escalated = sum(flag for flag, _ in live.values())
    assert 0 < escalated < len(live)  # both branches are exercised
    entry = next(e for e in calibration.thresholds if e.threshold == T)
    report = cascade_report(tmp_path / "live")
    assert entry.escalation_rate == report["escalation_rate"] == escalated / len(live)
    assert report["first"]["cached"] == report["first"]["votes"] == N * 4 * 3
    assert report["first"]["calls"] == report["then"]["calls"] == 0


def replayed(tmp_path: Path, threshold: Thresholds) -> dict[tuple[str, str], tuple[bool, str]]:
    """(item, criterion) -> (escalated, outcome) of the two runs' replay at `threshold`."""
    first = open_experiment(tmp_path / "first")
    thens = latest(open_experiment(tmp_path / "then"))
    names = [c.name for c in first.rubric.criteria]
    return {
        (pair.item, names[pair.criterion]): replayed_outcome(
            pair, criterion_threshold(threshold, names[pair.criterion])
        )
        for item, record in latest(first).items()
        for pair in record_pairs(record, thens[item], first.rules)
    }


def test_a_per_criterion_replay_equals_the_live_run_call_for_call(tmp_path: Path) -> None:
    with JudgeServer() as server:
        data = first_and_then_runs(tmp_path, server)
        calibration = calibrate_experiments(
            tmp_path / "first", tmp_path / "then", 0.9, per_criterion=True
        )
        chosen = calibration.recommended
        assert chosen is not None and chosen.per_criterion is not None
        fitted = chosen.per_criterion
        assert len(set(fitted.values())) > 1  # the criteria really get different thresholds
        server.reset()
        rubric = cascade_rubric(tmp_path / "c.yaml", server.api_base, threshold=fitted)
        ok("run", rubric, data, "--out", tmp_path / "live")
        assert server.request_count == 0  # the same calls as the two runs, every one cached
    live = decisions(tmp_path / "live")
    assert live == replayed(tmp_path, fitted)
    report = cascade_report(tmp_path / "live")
    assert report["escalate_below"] == fitted
    assert {c["name"]: c["escalate_below"] for c in report["criteria"]} == fitted
    assert report["escalation_rate"] == chosen.escalation_rate
    by_name = {c.name: c.escalation_rate for c in chosen.criteria}
    assert {c["name"]: c["escalation_rate"] for c in report["criteria"]} == by_name
    markdown = cli("report", tmp_path / "live", "--format", "markdown").stdout
    assert "below each criterion's threshold" in markdown
    rows = [line for line in markdown.splitlines() if line.startswith("| tone |")]
    assert rows[-1].startswith(f"| tone | {fitted['tone']:g} |")
    html = cli("report", tmp_path / "live", "--format", "html", "-o", tmp_path / "r.html")
    assert html.exit_code == 0
    page = (tmp_path / "r.html").read_text()
    assert "below each criterion&#39;s threshold" in page or "below each criterion's" in page


def test_per_item_escalations_are_the_only_new_calls(tmp_path: Path) -> None:
    with JudgeServer() as server:
        data = first_and_then_runs(tmp_path, server, llm_calls="per_item")
        server.reset()
        rubric = cascade_rubric(
            tmp_path / "c.yaml", server.api_base, threshold=T, llm_calls="per_item"
        )
        ok("run", rubric, data, "--out", tmp_path / "live")
        sent = server.requests
    live = records(tmp_path / "live")
    escalating = [r for r in live.values() if any(c["escalated"] for c in r["criteria"])]
    flags = [c["escalated"] for r in live.values() for c in r["criteria"]]
    assert any(flags) and not all(flags)
    # the first stage is all cached, and so is an escalation of every criterion (the then
    # run's own call); an item escalating some criteria asks the then judge about those alone
    partial = [r for r in escalating if not all(c["escalated"] for c in r["criteria"])]
    assert partial
    assert {r.model for r in sent} == {MODELS[1].removeprefix("openai/")}
    assert len(sent) == len(partial)
    for request in sent:
        names = json.dumps(request.body["response_format"])
        item = next(r for r in partial if r["id"][2:] in request.text())
        for c in item["criteria"]:
            assert (f'"{c["name"]}"' in names) == c["escalated"]


def test_the_stage_accounting_equals_what_the_server_saw(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", N)
    with JudgeServer(fault_rate=0.15, fault_kinds=("server_error", "malformed")) as server:
        rubric = cascade_rubric(tmp_path / "c.yaml", server.api_base, threshold=T)
        ok("run", rubric, data, "--out", tmp_path / "live", "--no-cache")
        seen = calls_by_model(server)
        faulted = {r.model for r in server.requests if r.fault is not None}
    report = cascade_report(tmp_path / "live")
    full = json.loads((tmp_path / "live" / "report.json").read_text())
    # every request counts once, failed ones included (a request for several samples too)
    assert report["first"]["calls"] == seen[MODELS[0].removeprefix("openai/")]
    assert report["then"]["calls"] == seen[MODELS[1].removeprefix("openai/")]
    assert MODELS[0].removeprefix("openai/") in faulted  # so retries were among them
    assert report["first"]["calls"] < report["first"]["votes"]  # samples asked together
    assert abs(report["cost"] - full["cost"]) < 1e-12
    assert report["first"]["cost"] > 0 and report["then"]["cost"] > 0


def test_errored_and_abstaining_first_votes_always_escalate(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data.jsonl", N)
    with JudgeServer(fault_rate=0.2) as server:
        rubric = cascade_rubric(tmp_path / "c.yaml", server.api_base, threshold=0.0, max_attempts=1)
        result = cli("run", rubric, data, "--out", tmp_path / "live", "--no-cache")
        assert result.exit_code in (0, 3), result.stderr
    troubled = kept = 0
    for record in records(tmp_path / "live").values():
        for c in record["criteria"]:
            first = [v for v in c["votes"] if v["stage"] == "first"]
            bad = any(
                v["error"] is not None
                or v["verdict"] == "CANNOT_ASSESS"
                or (v["verdict"] is None and v["option_index"] is None)
                for v in first
            )
            troubled += bad
            kept += not c["escalated"]
            if bad:
                assert c["escalated"] is True
            else:  # threshold 0: nothing else escalates
                assert c["escalated"] is False
    assert troubled > 0 and kept > 0


def test_resume_mid_escalation_loses_nothing_and_pays_nothing_twice(tmp_path: Path) -> None:
    """The then judge fails every call, so every item with an escalation is recorded with its
    first stage paid and its escalation errored; `resume --retry-errors` sends only the
    escalations (no call cache: the record's first-stage votes are kept)."""
    data = write_dataset(tmp_path / "data.jsonl", N)
    patient = {"consecutive_failures": 100_000, "failed_votes": 100_000}
    with JudgeServer() as cheap, JudgeServer(fault_rate=1.0) as strong:
        rubric = cascade_rubric(
            tmp_path / "c.yaml",
            cheap.api_base,
            strong.api_base,
            threshold=T,
            max_attempts=2,
            breaker=patient,
        )
        result = cli("run", rubric, data, "--out", tmp_path / "live", "--no-cache")
        assert result.exit_code == 3, result.stderr
        broken = records(tmp_path / "live")
        first_stage = cheap.request_count
        cheap.reset()
        strong.reset()
        strong.fault_rate = 0.0
        ok("resume", tmp_path / "live", "--retry-errors", "--no-cache")
        assert cheap.request_count == 0
        resumed_then = strong.request_count
        ok("run", rubric, data, "--out", tmp_path / "straight", "--no-cache")
        assert cheap.request_count == first_stage > 0  # the straight run's first stage, once
    errored = [r for r in broken.values() if r["status"] == "error"]
    escalations = sum(c["escalated"] for r in broken.values() for c in r["criteria"])
    assert errored and escalations > 0
    assert resumed_then == escalations  # each escalation asked once, nothing else
    live = decisions(tmp_path / "live")
    assert live == decisions(tmp_path / "straight")  # nothing lost
    resumed, straight = cascade_report(tmp_path / "live"), cascade_report(tmp_path / "straight")
    assert resumed["escalated"] == straight["escalated"] == escalations
    assert resumed["then"]["cost"] == pytest.approx(straight["then"]["cost"], rel=1e-12)
    assert resumed["first"]["cost"] == pytest.approx(straight["first"]["cost"], rel=1e-12)


def test_a_batched_cascade_gives_the_direct_outcomes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both stages through the batch API: the escalations go in later batches, built from the
    first stage's answers."""
    fast_batches(monkeypatch)
    data = write_dataset(tmp_path / "data.jsonl", N)
    with JudgeServer(batch_delay=0.1) as server:
        rubric = cascade_rubric(tmp_path / "c.yaml", server.api_base, threshold=T)
        ok("run", rubric, data, "--out", tmp_path / "direct", "--no-cache")
        direct = calls_by_model(server)
        server.reset()
        ok("run", rubric, data, "--out", tmp_path / "batch", "--batch", "--no-cache")
        batched = calls_by_model(server)
        assert server.request_count == len(server.batch_requests)
    assert decisions(tmp_path / "batch") == decisions(tmp_path / "direct")
    report = cascade_report(tmp_path / "batch")
    assert batched == {
        MODELS[0].removeprefix("openai/"): direct[MODELS[0].removeprefix("openai/")],
        MODELS[1].removeprefix("openai/"): report["escalated"],
    }
