"""Provider conformance: every provider fake x every case, one parametrised test.

Each case is a real `autorubric run`, in this process (tests.support.cli), against one loopback
fake speaking the provider's wire format through litellm. It checks the exit code and the
records: the verdicts and shown options recorded are exactly the answers the fake gave (as
multisets; response sets are checked for shape), option orders are permutations, usage is
there, cost is non-null exactly for priced models, thinking is recorded when on; a fault leaves
the trace the provider's answer calls for (attempts, the error text naming the cause, the retry
hint honoured: the retry arrives after the hint, which is longer than our own backoff here); no
request was refused by the fake for its shape (an empty re-ask, a temperature with thinking).
One fake per provider per module (faults are scripted per test, `reset` before each); each
test writes only under its tmp_path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.support.cli import CliResult, cli
from tests.support.experiment.criteria import CORRECT, style, tone
from tests.support.providers.anthropic import AnthropicFake
from tests.support.providers.base import FakeProvider
from tests.support.providers.faults import Fault
from tests.support.providers.judges import KEY_ENV, PROVIDERS, Provider

ROOT = Path(__file__).resolve().parents[2]
HINT_S = 0.3  # the provider's retry hint; our own backoff here is at most 0.05 s
ITEMS = 2


BINARY = CORRECT
ORDINAL_NA = style("Not applicable")
NOMINAL = tone()


@dataclass(frozen=True)
class Case:
    """One row of the matrix: the rubric, the faults the fake plays, and what must follow."""

    criteria: tuple[dict[str, Any], ...] = (BINARY,)
    faults: tuple[Fault, ...] = ()
    samples: int = 1
    thinking: bool = False
    per_item: bool = False
    max_attempts: int = 3
    answer: str | None = None  # a fixed JSON answer instead of the hashed one
    exit_code: int = 0
    attempts: int = 1  # the first vote's attempts
    error: str | None = None  # the failed votes' error prefix ("{overload}": the provider's)


CASES: dict[str, Case] = {
    "binary": Case(),
    "ordinal_na": Case(criteria=(ORDINAL_NA,)),
    "nominal": Case(criteria=(NOMINAL,)),
    "cannot_assess": Case(
        answer=json.dumps(
            {"explanation": "too little to go on", "criterion_status": "CANNOT_ASSESS"}
        )
    ),
    "samples_3": Case(samples=3),
    "response_set": Case(
        criteria=({**ORDINAL_NA, "elicitation": "response_set"}, {**BINARY, "elicitation": "both"})
    ),
    "per_item": Case(criteria=(BINARY, ORDINAL_NA, NOMINAL), per_item=True),
    "thinking": Case(thinking=True),
    "prose_reasked": Case(faults=(Fault("prose"),), attempts=2),
    "empty_reasked": Case(faults=(Fault("empty"),), attempts=2),
    "truncated_reasked": Case(faults=(Fault("truncated"),), attempts=2),
    "rate_limit_hint": Case(faults=(Fault("rate_limit", retry_after=HINT_S),), attempts=2),
    "overload": Case(
        faults=(Fault("overloaded"),) * (2 * ITEMS),
        max_attempts=2,
        attempts=2,
        exit_code=3,
        error="{overload}: HTTP 5",
    ),
    "server_5xx": Case(faults=(Fault("server_error"),), attempts=2),
    "bad_request": Case(faults=(Fault("bad_request"),), exit_code=3, error="request: HTTP 400"),
    "unauthorized": Case(faults=(Fault("unauthorized"),), exit_code=2),
}


REASKED = ("prose", "empty", "truncated")  # unusable replies: re-asked a temperature step up


@pytest.fixture(scope="module")
def fakes() -> Iterator[dict[str, FakeProvider]]:
    started: dict[str, FakeProvider] = {}
    try:
        for provider in PROVIDERS:
            started[provider.name] = provider.fake().start()
        yield started
    finally:
        for fake in started.values():
            fake.stop()


def write_inputs(
    tmp: Path, provider: Provider, fake: FakeProvider, case: Case
) -> tuple[Path, Path]:
    judge = provider.judge_yaml(fake.api_base, thinking=case.thinking, samples=case.samples)
    rubric = {
        "name": "conformance",
        "criteria": list(case.criteria),
        "grader": {
            "judges": [json.loads(judge)],
            "seed": 3,
            "concurrency": 1,
            "workers": 0,
            "cache": False,
            "max_attempts": case.max_attempts,
            "llm_calls": "per_item" if case.per_item else "per_criterion",
            "retry": {"initial_wait": 0.01, "max_wait": 0.05, "max_retry_after": 2.0},
        },
    }
    (tmp / "rubric.yaml").write_text(json.dumps(rubric))  # JSON is YAML
    with (tmp / "data.jsonl").open("w") as handle:
        for i in range(ITEMS):
            handle.write(json.dumps({"id": f"it{i}", "submission": f"Paris is in France ({i})."}))
            handle.write("\n")
    return tmp / "rubric.yaml", tmp / "data.jsonl"


def run(tmp: Path, rubric: Path, data: Path, monkeypatch: pytest.MonkeyPatch) -> CliResult:
    monkeypatch.setenv(KEY_ENV, "sk-test-provider-0123456789")
    return cli("run", rubric, data, "--out", tmp / "exp", "--format", "json")


def records(directory: Path) -> list[dict[str, Any]]:
    path = directory / "items.jsonl"
    if not path.exists():
        return []
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def answered(fake: FakeProvider) -> list[dict[str, Any]]:
    """The usable JSON answers the fake sent (per-item answers split into their entries)."""
    out: list[dict[str, Any]] = []
    for text in fake.replies:
        try:
            answer = json.loads(text)
        except ValueError:
            continue
        out += answer.get("criteria", [answer])
    return out


def shown(vote: dict[str, Any]) -> Any:
    """What the judge answered, as the fake would have said it (a status or a shown position)."""
    if vote["shuffle_order"] is None:
        return vote["verdict"]
    return vote["shuffle_order"].index(vote["option_index"]) + 1


def check_verdicts(case: Case, fake: FakeProvider, votes: list[dict[str, Any]]) -> None:
    """The records hold exactly the answers the fake gave (statuses, shown positions)."""
    if any(c.get("elicitation", "forced_choice") == "response_set" for c in case.criteria):
        return
    given = sorted(str(a.get("criterion_status", a.get("selected_option"))) for a in answered(fake))
    assert given == sorted(str(shown(v)) for v in votes)


@pytest.mark.parametrize("case_name", list(CASES))
@pytest.mark.parametrize("provider", PROVIDERS, ids=[p.name for p in PROVIDERS])
def test_provider_conformance(
    provider: Provider,
    case_name: str,
    fakes: dict[str, FakeProvider],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    case = CASES[case_name]
    fake = fakes[provider.name]
    fake.reset()
    if case.answer is not None:
        fixed = case.answer
        monkeypatch.setattr(fake, "answer", lambda messages, schema: fixed)
    fake.script(*case.faults)
    rubric, data = write_inputs(tmp_path, provider, fake, case)

    result = run(tmp_path, rubric, data, monkeypatch)

    assert result.exit_code == case.exit_code, result.output
    refused = [r for r in fake.requests if r.status != 200 and r.fault is None]
    assert not refused, f"the provider refused a request: {refused[0]}"
    if case_name == "unauthorized":
        assert "auth:" in result.output
        manifest = json.loads((tmp_path / "exp" / "manifest.json").read_text())
        assert manifest["status"] == "failed"
        return
    lines = records(tmp_path / "exp")
    assert sorted(r["id"] for r in lines) == [f"it{i}" for i in range(ITEMS)]
    votes = [
        (c, v)
        for r in sorted(lines, key=lambda r: r["id"])
        for c in r["criteria"]
        for v in c["votes"]
    ]
    assert len(votes) == ITEMS * len(case.criteria) * case.samples
    assert max(v["attempts"] for _, v in votes) == case.attempts
    errored = [v for _, v in votes if v["error"] is not None]
    assert bool(errored) == (case.error is not None)
    if case.error is not None:
        prefix = case.error.format(overload=provider.overload)
        assert all(v["error"].startswith(prefix) for v in errored), errored
    for criterion, vote in votes:
        if vote["error"] is None:
            check_vote(provider, case, criterion, vote)
        reasked = bool(case.faults) and case.faults[0].kind in REASKED and vote["attempts"] > 1
        assert vote.get("temperature") == (0.3 if reasked else None), vote
    check_samples(case, votes)
    if case.error is None:
        check_verdicts(case, fake, [v for _, v in votes])
    check_faults(provider, case, fake)
    check_sent_temperature(provider, case, tmp_path / "exp", fake)


def check_vote(
    provider: Provider, case: Case, criterion: dict[str, Any], vote: dict[str, Any]
) -> None:
    assert vote["error"] is None, vote
    spec = next(c for c in case.criteria if c["name"] == criterion["name"])
    options = spec.get("options")
    elicitation = spec.get("elicitation", "forced_choice")
    if options is not None:
        order = vote["shuffle_order"]
        assert sorted(order) == list(range(len(options))), order
    else:
        assert vote["shuffle_order"] is None
    if elicitation == "response_set":
        assert vote["verdict"] is None and vote["option_index"] is None
    elif options is not None:
        assert 0 <= vote["option_index"] < len(options)
    else:
        assert vote["verdict"] in ("MET", "UNMET", "CANNOT_ASSESS")
    if elicitation != "forced_choice":
        size = len(options) if options is not None else 2
        assert vote["option_set"] and set(vote["option_set"]) <= set(range(size))
    if case.answer is not None:
        assert vote["verdict"] == "CANNOT_ASSESS"
    billed = vote.get("billed_with")
    # a binary criterion's samples are asked together where the provider returns several
    # choices: the request's prompt is billed on its first sample (docs/guides/judges.md)
    together = provider.several_choices and options is None and not case.per_item
    carries_prompt = not (together and vote["sample"] > 0)
    if billed is None or billed == criterion["name"]:
        assert (vote["usage"].get("prompt_tokens", 0) > 0) == carries_prompt, vote
        assert vote["usage"].get("completion_tokens", 0) > 0, vote
        assert (vote["cost"] is not None) == provider.priced, vote
    assert (vote["thinking"] is not None) == case.thinking, vote


def check_samples(case: Case, votes: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    per_criterion: dict[tuple[str, str], list[int]] = {}
    for criterion, vote in votes:
        per_criterion.setdefault((criterion["name"], str(id(criterion))), []).append(vote["sample"])
    assert all(sorted(s) == list(range(case.samples)) for s in per_criterion.values())


def check_faults(provider: Provider, case: Case, fake: FakeProvider) -> None:
    seen = fake.requests
    faulted = [i for i, r in enumerate(seen) if r.fault is not None]
    assert len(faulted) == len(case.faults)
    if not case.faults:
        return
    first = seen[faulted[0]]
    later = seen[faulted[0] + 1 :]
    if case.faults[0].kind == "rate_limit" and provider.has_hint:
        retry = next(r for r in later if r.body == first.body)
        assert retry.at - first.at >= HINT_S, "the provider's retry hint was not honoured"
    if case.faults[0].kind in ("prose", "empty"):
        assert any("could not be used" in json.dumps(r.body) for r in later)
    if case.faults[0].kind in REASKED:
        # the re-ask says why, and comes at a raised temperature
        said = "was cut off at" if case.faults[0].kind == "truncated" else "could not be used"
        reask = next(json.dumps(r.body) for r in later if said in json.dumps(r.body))
        assert '"temperature": 0.3' in reask, reask


def check_sent_temperature(
    provider: Provider, case: Case, directory: Path, fake: FakeProvider
) -> None:
    """The manifest says which temperature was sent; with thinking on Claude, none is."""
    manifest = json.loads((directory / "manifest.json").read_text())
    sent = manifest["sent"]["j"]["temperature"]
    claude_thinking = case.thinking and provider.name in ("anthropic", "bedrock")
    o_series = case.thinking and provider.thinking_model == "azure/o4-mini"
    assert sent == (None if claude_thinking or o_series else 0.0)
    body = json.dumps(fake.requests[0].body)
    assert ('"temperature"' in body) == (sent is not None)


@pytest.mark.parametrize(
    "model", ["anthropic/claude-opus-4-7", "anthropic/claude-opus-4-7-thinking"]
)
def test_temperature_one_models_work_without_the_user_knowing(
    model: str, fakes: dict[str, FakeProvider], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opus 4.7 accepts temperature 1 only (litellm raises before sending): none is sent."""
    fake = fakes["anthropic"]
    fake.reset()
    thinking = model.endswith("-thinking")
    provider = Provider(
        "anthropic", AnthropicFake, model.removesuffix("-thinking"), 2048, "overloaded"
    )
    rubric, data = write_inputs(tmp_path, provider, fake, Case(thinking=thinking))
    result = run(tmp_path, rubric, data, monkeypatch)
    assert result.exit_code == 0, result.output
    assert all("temperature" not in r.body for r in fake.requests)
    votes = [v for r in records(tmp_path / "exp") for c in r["criteria"] for v in c["votes"]]
    assert len(votes) == ITEMS and all(v["error"] is None for v in votes)
    assert all((v["thinking"] is not None) == thinking for v in votes)


AUDIT_HOOK = """
import json, os, sys

def _record(event, args):
    if event in ("socket.connect", "socket.getaddrinfo"):
        address = args[1] if event == "socket.connect" else args[:2]
        with open(os.environ["AUTORUBRIC_AUDIT_LOG"], "a") as log:
            log.write(json.dumps([event, repr(address)]) + "\\n")

sys.addaudithook(_record)
"""


@pytest.mark.parametrize("provider", PROVIDERS, ids=[p.name for p in PROVIDERS])
def test_a_run_connects_to_the_judge_api_base_only(
    provider: Provider, fakes: dict[str, FakeProvider], tmp_path: Path
) -> None:
    """Every socket connection and name lookup of a whole `autorubric run` (a subprocess whose
    `socket.connect` / `socket.getaddrinfo` calls an audit hook records) is to the fake."""
    fake = fakes[provider.name]
    fake.reset()
    rubric, data = write_inputs(tmp_path, provider, fake, Case(thinking=True))
    hook_dir = tmp_path / "hook"
    hook_dir.mkdir()
    (hook_dir / "sitecustomize.py").write_text(AUDIT_HOOK)
    log = tmp_path / "audit.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM_")}
    env.update(
        PYTHONPATH=os.pathsep.join([str(hook_dir), env.get("PYTHONPATH", ""), str(ROOT)]),
        AUTORUBRIC_AUDIT_LOG=str(log),
        **{KEY_ENV: "sk-test-provider-0123456789"},
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "autorubric_cli",
            "run",
            str(rubric),
            str(data),
            "--out",
            str(tmp_path / "exp"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert len(fake.requests) >= ITEMS
    events = [json.loads(line) for line in log.read_text().splitlines()]
    connects = [address for event, address in events if event == "socket.connect"]
    assert connects, "the audit hook saw no connection at all"
    allowed = {repr(("127.0.0.1", fake.port)), repr(("127.0.0.1", fake.port, 0, 0))}
    elsewhere = [a for a in connects if a not in allowed]
    assert not elsewhere, f"connections to other hosts: {elsewhere}"
    lookups = [a for event, a in events if event == "socket.getaddrinfo"]
    assert all("127.0.0.1" in a for a in lookups), f"name lookups: {lookups}"
    assert "Failed to fetch" not in done.stderr
