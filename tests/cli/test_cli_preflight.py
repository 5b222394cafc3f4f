"""`check`, `run --dry-run` and `run` refuse the same things, before any judge call.

Every rule of the shared pre-flight list (experiment/preflight.py RULES) has a case here; a rule
added without a case fails `test_every_preflight_rule_has_a_case`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autorubric_cli.cli.app import app
from autorubric_cli.experiment.preflight import RULES
from tests.support.judge_server import JudgeServer

UNSET_KEY = "AUTORUBRIC_U26_NEVER_SET_KEY"
GOOD_LINE = '{"id": "a", "submission": "NMC stores 270 Wh/kg."}\n'


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


@dataclass
class Case:
    rule: str  # the RULES function (or plan-building step) that refuses it
    rubric: str
    expected: str  # the start of the one-line message, after "autorubric: error: "
    args: list[str] = field(default_factory=list)
    dataset: str = GOOD_LINE
    check_applies: bool = True  # check takes no --out/--name: it writes nowhere


def judge_block(extra: str = "", model: str = "simulated/a") -> str:
    return f"grader:\n  judges:\n    - model: {model}\n{extra}"


CRITERIA = "criteria:\n  - name: acc\n    requirement: States the figure\n"

CASES = {
    "simulated-param-misspelt": Case(
        "simulated_params",
        CRITERIA + judge_block("      params:\n        acuracy: 0.9\n"),
        "{rubric}:8: grader.judges[0].params.acuracy: judge 'simulated/a': unknown",
    ),
    "simulated-param-out-of-range": Case(
        "simulated_params",
        CRITERIA + judge_block("      params: {{accuracy: 1.5}}\n"),
        "{rubric}:7: grader.judges[0].params.accuracy: judge 'simulated/a': param",
    ),
    "key-variable-unset": Case(
        "key_variables",
        CRITERIA
        + judge_block(
            f"      api_key_env: {UNSET_KEY}\n      api_base: {{api_base}}\n",
            model="openai/loopback",
        ),
        f"{{rubric}}:7: grader.judges[0].api_key_env: judge 'openai/loopback' needs the "
        f"environment variable {UNSET_KEY}",
    ),
    "judge-flag-without-provider-key": Case(
        "key_variables",
        CRITERIA,
        "--judge: judge 'openai/gpt-4.1-mini' needs the environment variable OPENAI_API_KEY",
        args=["--judge", "openai/gpt-4.1-mini"],
    ),
    "provider-refuses-a-thinking-budget": Case(
        "provider_settings",
        CRITERIA
        + judge_block(
            f"      api_key_env: {UNSET_KEY}\n      thinking: 2048\n", model="openai/gpt-4.1-mini"
        ),
        "{rubric}:8: grader.judges[0].thinking: ",
    ),
    "per-item-with-criterion-prompt": Case(
        "per_item_settings",
        CRITERIA + judge_block("  llm_calls: per_item\n  system_prompt: Be strict.\n"),
        "{rubric}:8: grader.system_prompt: `system_prompt` is not used",
    ),
    "few-shot-file-missing": Case(
        "few_shot_examples",
        CRITERIA + judge_block("  few_shot: {{examples: nope.jsonl}}\n"),
        "{dir}/nope.jsonl: grader.few_shot.examples: few-shot examples file not found",
    ),
    "batch-simulated": Case(
        "batch_providers",
        CRITERIA + judge_block(),
        "grader.batch: judge 'simulated/a': provider `simulated` has no batch API",
        args=["--batch"],
    ),
    "spend-cap-with-an-unpriced-judge": Case(
        "spend_cap_priced",
        CRITERIA
        + judge_block(f"      api_key_env: {UNSET_KEY}\n", model="openai/loopback")
        + "  max_cost: 5\n",
        "{rubric}:8: grader.max_cost: judge 'openai/loopback' (model openai/loopback) has no price",
    ),
    "spend-cap-flag-with-an-unpriced-judge": Case(
        "spend_cap_priced",
        CRITERIA + judge_block(f"      api_key_env: {UNSET_KEY}\n", model="openai/loopback"),
        "--max-cost: judge 'openai/loopback' (model openai/loopback) has no price",
        args=["--max-cost", "5"],
        check_applies=False,
    ),
    "dataset-bad-line": Case(
        "dataset_items",
        CRITERIA + judge_block(),
        "{dataset}:2: ",
        dataset=GOOD_LINE + '{"id": "b"}\n',
    ),
    "directory-used": Case(
        "directory_free",
        CRITERIA + judge_block(),
        "{out}: experiment directory already exists",
        args=["--out", "{out}"],
        check_applies=False,
    ),
    "name-and-out": Case(
        "name_or_out",
        CRITERIA + judge_block(),
        "--name: use either --name or --out, not both",
        args=["--name", "x", "--out", "{out}"],
        check_applies=False,
    ),
    "no-judge": Case(
        "judges_configured",
        CRITERIA,
        "grader.judges: no judge configured",
        check_applies=False,  # `check` lints a rubric meant for `run --judge` (it says so)
    ),
    "no-judge-checked-with-judge-flag": Case(
        "key_variables",
        CRITERIA,
        "--judge: judge 'openai/x' needs the environment variable OPENAI_API_KEY",
        args=["--judge", "openai/x"],
    ),
    "gate-metric-misspelt": Case(
        "gate_metrics",
        CRITERIA + judge_block() + "gate:\n  - {{metric: score.maen, min: 0.4}}\n",
        "{rubric}:8: gate[0].metric: unknown metric 'score.maen': 'score' has no key 'maen'; "
        "did you mean 'score.mean'?",
    ),
    "gate-criterion-unknown": Case(
        "gate_metrics",
        CRITERIA + judge_block() + "gate:\n  - {{metric: criteria.acc.met_rate, min: 0}}\n"
        "  - {{metric: criteria.blame_customer.met_rate, max: 0.3}}\n",
        "{rubric}:9: gate[1].metric: unknown metric 'criteria.blame_customer.met_rate': no "
        "criterion named 'blame_customer'; the rubric's criteria: acc",
    ),
    "gate-min-above-a-normalized-score": Case(
        "gate_metrics",
        CRITERIA + judge_block() + "gate:\n  - {{metric: score.mean, min: 1.5}}\n",
        "{rubric}:8: gate[0].min: min 1.5 on score.mean can never pass: scores are normalized",
    ),
    "fail-under-above-one": Case(
        "gate_metrics",
        CRITERIA + judge_block(),
        "--fail-under: min 1.5 on score.mean can never pass",
        args=["--fail-under", "1.5"],
    ),
    "provider-misspelt-on-the-flag": Case(
        "judge_providers",
        CRITERIA,
        "--judge: judge 'simulatd/x': unknown provider 'simulatd' in model 'simulatd/x' "
        "(litellm's providers and `simulated`); did you mean 'simulated/x'?",
        args=["--judge", "simulatd/x"],
    ),
    "provider-misspelt-in-the-rubric": Case(
        "judge_providers",
        CRITERIA + judge_block(f"      api_key_env: {UNSET_KEY}\n", model="opnai/gpt-4.1-mini"),
        "{rubric}:6: grader.judges[0].model: judge 'opnai/gpt-4.1-mini': unknown provider 'opnai'",
    ),
    "bad-shard": Case(
        "make_plan", CRITERIA + judge_block(), "--shard: expected K/N", args=["--shard", "x"]
    ),
    "bad-field": Case(
        "make_plan",
        CRITERIA + judge_block(),
        "--field: expected TARGET=PATH",
        args=["--field", "x"],
    ),
}


@pytest.fixture
def setup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judge_server: JudgeServer
) -> dict[str, str]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(UNSET_KEY, raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "used"
    out.mkdir()
    (out / "items.jsonl").write_text("")
    return {
        "rubric": str(tmp_path / "r.yaml"),
        "dataset": str(tmp_path / "d.jsonl"),
        "dir": str(tmp_path),
        "out": str(out),
        "api_base": judge_server.api_base,
    }


@pytest.mark.parametrize("name", list(CASES))
def test_check_dry_run_and_run_make_the_same_refusal_before_any_call(
    name: str, setup: dict[str, str], tmp_path: Path, judge_server: JudgeServer
) -> None:
    case = CASES[name]
    Path(setup["rubric"]).write_text(case.rubric.format(**setup))
    Path(setup["dataset"]).write_text(case.dataset)
    args = [a.format(**setup) for a in case.args]
    expected = "autorubric: error: " + case.expected.format(**setup)
    commands = [["run"], ["run", "--dry-run"]]
    if case.check_applies:
        commands.append(["check"])
    for command in commands:
        code, stdout, stderr = invoke(*command, setup["rubric"], setup["dataset"], *args)
        assert code == 2, (command, stdout, stderr)
        assert stderr.startswith(expected), (command, stderr)
        assert len(stderr.strip().splitlines()) == 1, stderr
        assert stdout == "", (command, stdout)
    assert not (tmp_path / "experiments").exists()
    assert [p.name for p in (tmp_path / "used").iterdir()] == ["items.jsonl"]
    assert judge_server.request_count == 0


def test_every_preflight_rule_has_a_case() -> None:
    covered = {case.rule for case in CASES.values()}
    assert {check.rule.__name__ for check in RULES} <= covered


def test_check_no_env_skips_only_the_environment(setup: dict[str, str]) -> None:
    rubric = Path(setup["rubric"])
    rubric.write_text(CASES["key-variable-unset"].rubric.format(**setup))
    code, stdout, stderr = invoke("check", rubric, "--no-env")
    assert code == 0, stderr
    assert "environment not checked" in stdout
    rubric.write_text(CASES["simulated-param-misspelt"].rubric)
    code, _, stderr = invoke("check", rubric, "--no-env")
    assert code == 2 and "params.acuracy" in stderr


def test_check_passes_when_the_key_variable_is_set(
    setup: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rubric = Path(setup["rubric"])
    rubric.write_text(CASES["key-variable-unset"].rubric.format(**setup))
    monkeypatch.setenv(UNSET_KEY, "sk-test-value")
    Path(setup["dataset"]).write_text(GOOD_LINE)
    code, stdout, stderr = invoke("check", rubric, setup["dataset"])
    assert code == 0, stderr
    assert "sk-test-value" not in stdout + stderr


def test_check_of_a_rubric_without_judges_says_run_needs_one(setup: dict[str, str]) -> None:
    rubric = Path(setup["rubric"])
    rubric.write_text(CRITERIA)
    code, stdout, stderr = invoke("check", rubric)
    assert code == 0, stderr
    assert "`run` needs --judge MODEL" in " ".join(stdout.split())


def test_version_prints_the_version_and_exits_0() -> None:
    from autorubric_cli import __version__

    code, stdout, _ = invoke("--version")
    assert code == 0
    assert stdout.strip() == f"autorubric {__version__}"


def test_cloud_judges_with_credential_chains_need_no_key_variable(
    setup: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from autorubric_cli.core.config import JudgeSpec
    from autorubric_cli.experiment.preflight import missing_key_variables

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    bedrock = JudgeSpec(model="bedrock/anthropic.claude-3-7-sonnet-20250219-v1:0")
    assert missing_key_variables(bedrock) == []  # an IAM role or a profile may supply them
    assert missing_key_variables(JudgeSpec(model="openai/gpt-4.1-mini")) == ["OPENAI_API_KEY"]
