"""`grader.cascade` is validated when the rubric is read: file:line: key, exit 2, no call."""

from __future__ import annotations

from pathlib import Path

import pytest

from autorubric_cli.errors import InputError
from autorubric_cli.loading.rubric_loader import parse_rubric
from tests.support.cli import cli

JUDGES = """\
criteria:
  - name: a
    requirement: x
grader:
  judges:
    - {model: simulated/cheap, id: cheap}
    - {model: simulated/strong, id: strong}
    - {model: simulated/other, id: other}
  cascade:
"""


def rubric_text(cascade: str) -> str:
    return JUDGES + "".join(f"    {line}\n" for line in cascade.splitlines())


@pytest.mark.parametrize(
    ("cascade", "key", "words"),
    [
        ("first: [cheap]\nthen: [nobody, strong, other]", "grader.cascade", "unknown judge id"),
        ("first: [cheap, other]\nthen: [strong, cheap]", "grader.cascade.then", "in first"),
        ("first: []\nthen: [strong, cheap, other]", "grader.cascade.first", "at least one"),
        ("first: [cheap]\nthen: [strong]", "grader.cascade", "'other' is in no cascade stage"),
        ("first: [cheap, other]\nthen: [strong]\nescalate_below: 1.5", "escalate_below", "1"),
        ("first: [cheap, other]\nthen: [strong]\nescalate_below: -0.1", "escalate_below", "0"),
        ("first: [cheap, other]", "grader.cascade.then", "missing"),
        (
            "first: [cheap, other]\nthen: [strong]\nescalate_below: {a: 0.5, b: 0.7}",
            "grader.cascade.escalate_below.b",
            "unknown criterion `b`",
        ),
        (
            "first: [cheap, other]\nthen: [strong]\nescalate_below: {a: 1.2}",
            "grader.cascade.escalate_below.a",
            "threshold of `a` must be a number in [0, 1]",
        ),
        (
            "first: [cheap, other]\nthen: [strong]\nescalate_below: {'*': yes}",
            "grader.cascade.escalate_below.*",
            "threshold of `*`",
        ),
        ("first: [cheap, other]\nthen: [strong]\nescalate_below: {}", "escalate_below", "empty"),
        ("first: [cheap, other]\nthen: [strong]\nescalate_below: '0.5'", "escalate_below", "map"),
    ],
)
def test_bad_cascades_name_the_key(cascade: str, key: str, words: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_rubric(rubric_text(cascade), "r.yaml")
    assert caught.value.key is not None and caught.value.key.endswith(key)
    assert caught.value.line is not None and caught.value.line >= 9
    assert words in caught.value.message


def test_a_good_cascade_is_read() -> None:
    rubric = parse_rubric(
        rubric_text("first: [cheap, other]\nthen: [strong]\nescalate_below: 0.7"), "r.yaml"
    )
    cascade = rubric.grader.cascade
    assert cascade is not None
    assert (cascade.first, cascade.then, cascade.escalate_below) == (
        ["cheap", "other"],
        ["strong"],
        0.7,
    )


@pytest.mark.parametrize("command", ["check", "run"])
def test_check_and_run_refuse_before_any_call(tmp_path: Path, command: str) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text(rubric_text("first: [cheap]\nthen: [cheap, strong, other]"))
    data = tmp_path / "d.jsonl"
    data.write_text('{"submission": "hi"}\n')
    out = tmp_path / "exp"
    args = [command, rubric, data] + (["--out", out] if command == "run" else [])
    result = cli(*args)
    assert result.exit_code == 2
    assert "r.yaml:11: grader.cascade.then:" in result.stderr
    assert not out.exists()


def test_a_threshold_map_is_read_and_applied_per_criterion() -> None:
    rubric = parse_rubric(
        rubric_text("first: [cheap, other]\nthen: [strong]\nescalate_below: {a: 0.6, '*': 0.8}"),
        "r.yaml",
    )
    cascade = rubric.grader.cascade
    assert cascade is not None and cascade.escalate_below == {"a": 0.6, "*": 0.8}
    assert (cascade.threshold("a"), cascade.threshold("anything else")) == (0.6, 0.8)


@pytest.mark.parametrize("command", ["check", "run"])
def test_a_map_naming_an_unknown_criterion_is_refused_before_any_call(
    tmp_path: Path, command: str
) -> None:
    rubric = tmp_path / "r.yaml"
    text = "first: [cheap, other]\nthen: [strong]\nescalate_below:\n  '*': 0.9\n  aa: 0.5"
    rubric.write_text(rubric_text(text))
    data = tmp_path / "d.jsonl"
    data.write_text('{"submission": "hi"}\n')
    out = tmp_path / "exp"
    result = cli(command, rubric, data, *(["--out", out] if command == "run" else []))
    assert result.exit_code == 2
    line = "r.yaml:14: grader.cascade.escalate_below.aa: cascade escalate_below: unknown "
    assert line + "criterion `aa`; did you mean `a`?" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_a_judge_flag_that_breaks_the_cascade_is_an_input_error(tmp_path: Path) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text(rubric_text("first: [cheap, other]\nthen: [strong]"))
    data = tmp_path / "d.jsonl"
    data.write_text('{"submission": "hi"}\n')
    result = cli("check", rubric, data, "--judge", "simulated/x")
    assert result.exit_code == 2
    assert "--judge" in result.stderr and "unknown judge id 'cheap'" in result.stderr
