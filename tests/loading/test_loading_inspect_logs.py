"""Inspect AI logs as datasets, read from logs that `inspect eval` itself wrote (the offline
`mockllm/model`, tests/support/inspect_task.py) in both log formats, with two epochs and one;
checked against Inspect's own reader of the same logs, and graded by `autorubric run`."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pytest
from inspect_ai.log import EvalSample, read_eval_log

from autorubric_cli.core.conversation import arguments_text, message_text, reasoning_text
from autorubric_cli.core.items import Item
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.loading import inspect_log
from autorubric_cli.loading.dataset import iter_items
from autorubric_cli.loading.rubric_loader import parse_rubric
from tests.support.browser import Watched, headless_chromium
from tests.support.cli import cli

ROOT = Path(__file__).resolve().parents[2]

TASK = Path(__file__).resolve().parents[1] / "support" / "inspect_task.py"
RUBRIC = """
criteria:
  - name: helpful
    requirement: The assistant answers the question.
  - name: closing
    requirement: The reply is brief.
    scope: final_turn
grader:
  judges: [{model: simulated/a}]
"""
RUNS = {"eval": ("eval", 2), "json": ("json", 2), "single": ("json", 1)}


def offline_env(log_dir: Path) -> dict[str, str]:
    """No network: tiktoken (which mockllm counts tokens with) reads the encodings litellm
    ships, and every HTTP client is pointed at a closed loopback port."""
    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.submodule_search_locations
    tokenizers = Path(spec.submodule_search_locations[0]) / "litellm_core_utils" / "tokenizers"
    closed = "http://127.0.0.1:9"
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    return {
        **env,
        "TIKTOKEN_CACHE_DIR": str(tokenizers),
        "HTTP_PROXY": closed,
        "HTTPS_PROXY": closed,
        "INSPECT_LOG_DIR": str(log_dir),
        "INSPECT_DISPLAY": "none",
    }


def inspect_eval(root: Path, name: str) -> Path:
    log_format, epochs = RUNS[name]
    log_dir = root / name
    command = [
        str(Path(sys.executable).parent / "inspect"),
        "eval",
        TASK.name,
        "--model",
        "mockllm/model",
        "--epochs",
        str(epochs),
        "--log-format",
        log_format,
    ]
    done = subprocess.run(
        command, cwd=TASK.parent, env=offline_env(log_dir), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (log,) = log_dir.glob(f"*.{log_format}")
    return log


@pytest.fixture(scope="session")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("inspect-logs")
    with ThreadPoolExecutor(len(RUNS)) as pool:
        paths = dict(zip(RUNS, pool.map(lambda n: inspect_eval(root, n), RUNS), strict=True))
    for path in paths.values():
        assert read_eval_log(str(path)).status == "success"
    return paths


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return parse_rubric(RUBRIC, "rubric.yaml")


def expected_id(sample: EvalSample, several: bool) -> str:
    return f"{sample.id}#{sample.epoch}" if several else str(sample.id)


def check_item(item: Item, sample: EvalSample) -> None:
    """Our item against Inspect's own reading of the sample."""
    assert item.query == (sample.input if isinstance(sample.input, str) else None)
    target = sample.target if isinstance(sample.target, str) else "\n".join(sample.target)
    assert item.reference_submission == target
    assert item.metadata == {
        **sample.metadata,
        "task": "conversations",
        "model": "mockllm/model",
        "sample_id": sample.id,
        "epoch": sample.epoch,
    }
    messages = item.submission.messages
    assert messages is not None
    assert [m.role for m in messages] == [m.role for m in sample.messages]
    for ours, theirs in zip(messages, sample.messages, strict=True):
        assert (message_text(ours) or "") == theirs.text
        if theirs.role == "assistant":
            parts = theirs.content if isinstance(theirs.content, list) else []
            thinking = [c.reasoning for c in parts if c.type == "reasoning"]
            assert reasoning_text(ours) == ("\n".join(thinking) if thinking else None)
            calls = theirs.tool_calls or []
            assert [(c.id, c.function.name) for c in ours.tool_calls or ()] == [
                (c.id, c.function) for c in calls
            ]
            assert [json.loads(arguments_text(c)) for c in ours.tool_calls or ()] == [
                c.arguments for c in calls
            ]
        if theirs.role == "tool":
            assert ours.tool_call_id == theirs.tool_call_id


@pytest.mark.parametrize("name", list(RUNS))
def test_one_item_per_sample_and_epoch(logs: dict[str, Path], rubric: Rubric, name: str) -> None:
    log = read_eval_log(str(logs[name]))
    assert log.samples
    several = RUNS[name][1] > 1
    items = {item.id: item for item in iter_items(logs[name], rubric)}
    samples = {expected_id(s, several): s for s in log.samples}
    assert sorted(items) == sorted(samples)
    assert len(items) == 2 * RUNS[name][1]
    for item_id, sample in samples.items():
        check_item(items[item_id], sample)


def test_the_eval_archive_is_zstd_compressed(logs: dict[str, Path]) -> None:
    """The reader's own zstd path is the one exercised (zipfile cannot read these)."""
    with zipfile.ZipFile(logs["eval"]) as archive:
        kinds = {m.compress_type for m in archive.infolist() if m.filename.startswith("samples/")}
    assert kinds == {93}


def test_both_log_formats_give_the_same_items(logs: dict[str, Path], rubric: Rubric) -> None:
    def dump(path: Path) -> dict[str, Any]:
        return {i.id: i.model_dump(exclude={"index", "line"}) for i in iter_items(path, rubric)}

    assert dump(logs["eval"]) == dump(logs["json"])


@pytest.mark.parametrize("name", ["eval", "json"])
def test_autorubric_run_grades_the_log(logs: dict[str, Path], tmp_path: Path, name: str) -> None:
    (tmp_path / "rubric.yaml").write_text(RUBRIC)
    out = tmp_path / "exp"
    outcome = cli("run", tmp_path / "rubric.yaml", logs[name], "--out", out)
    assert outcome.exit_code == 0, outcome.output
    records = [orjson.loads(x) for x in (out / "items.jsonl").read_bytes().splitlines()]
    assert sorted(r["id"] for r in records) == ["2#1", "2#2", "six-sevens#1", "six-sevens#2"]
    assert all(r["status"] == "ok" and len(r["criteria"]) == 2 for r in records)
    # assistant content only: "Looking it up." and "Default output from mockllm/model"
    assert {r["word_counts"]["output"] for r in records} == {7}


def test_the_report_shows_a_samples_target_and_the_final_turn_scope(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    """An Inspect sample's target is its reference submission: the HTML report's item details
    show it under the conversation, and the `final_turn` criterion says what it grades."""
    (tmp_path / "rubric.yaml").write_text(RUBRIC)
    out = tmp_path / "exp"
    assert cli("run", tmp_path / "rubric.yaml", logs["single"], "--out", out).exit_code == 0
    with headless_chromium() as browser:
        report = Watched(browser, (out / "report.html").as_uri(), "body[data-items-ready]")
        report.page.click("tr.item-row[data-id=six-sevens]")
        detail = report.page.locator("tr.detail-row[data-detail-for=six-sevens]")
        assert detail.locator(".conversation .turn").count() == 5
        reference = detail.locator(".reference")
        assert reference.locator("h4").inner_text().startswith("Reference submission")
        assert reference.locator("pre").inner_text() == "42"  # the sample's target
        closing = detail.locator("tr.criterion-row[data-criterion=closing] .crit-scope")
        assert closing.inner_text().startswith("scope: final turn")
        assert detail.locator("tr.criterion-row[data-criterion=helpful] .crit-scope").count() == 0
        detail.screenshot(path=str(tmp_path / "inspect-item.png"))
        assert report.errors == [] and report.dialogs == []


def test_field_mapping_applies_to_a_log(logs: dict[str, Path], rubric: Rubric) -> None:
    items = list(iter_items(logs["single"], rubric, {"query": "metadata.topic"}))
    assert {i.id: i.query for i in items} == {"six-sevens": "math", "2": None}


def test_a_broken_sample_names_its_position_and_key(
    logs: dict[str, Path], rubric: Rubric, tmp_path: Path
) -> None:
    data = json.loads(logs["json"].read_text())
    position, sample = next(
        (n, s) for n, s in enumerate(data["samples"], start=1) if s["id"] == "six-sevens"
    )
    tool = next(n for n, m in enumerate(sample["messages"]) if m["role"] == "tool")
    sample["messages"][tool]["tool_call_id"] = "call_9"
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data))
    with pytest.raises(InputError) as info:
        list(iter_items(broken, rubric))
    assert (info.value.line, info.value.key) == (position, f"submission[{tool}].tool_call_id")


@pytest.mark.parametrize("cut", [0.3, 0.9])
def test_a_truncated_eval_log_is_an_input_error(
    logs: dict[str, Path], tmp_path: Path, cut: float
) -> None:
    data = logs["eval"].read_bytes()
    broken = tmp_path / "broken.eval"
    broken.write_bytes(data[: int(len(data) * cut)])
    (tmp_path / "rubric.yaml").write_text(RUBRIC)
    outcome = cli("check", tmp_path / "rubric.yaml", broken)
    assert outcome.exit_code == 2
    assert str(broken) in outcome.stderr


def test_zstandard_comes_with_the_plain_install() -> None:
    """`pip install autorubric-cli` (the README's install) reads `.eval` logs: zstandard is a
    dependency; the `inspect` extra stays, so old install commands still work."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    plain = [re.split(r"[<>=!~ ]", d, maxsplit=1)[0] for d in project["dependencies"]]
    assert "zstandard" in plain
    assert "inspect" in project["optional-dependencies"]
    guides = "".join(
        (ROOT / "docs" / page).read_text()
        for page in ("guides/conversations.md", "guides/datasets.md", "reference/dataset-files.md")
    )
    assert "needs the `inspect` extra" not in guides and '".[inspect]"' not in guides


def test_without_zstandard_the_error_says_to_reinstall(
    logs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inspect_log, "zstandard", None)  # as if it were not installed
    with pytest.raises(InputError) as caught:
        list(iter_items(logs["eval"], parse_rubric(RUBRIC, "rubric.yaml")))
    message = str(caught.value)
    assert "zstandard" in message and "pip install zstandard" in message
    assert "[inspect]" not in message
