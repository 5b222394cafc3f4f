"""Bad rubric files: each is an InputError naming file, line and key (docs/reference/rubric-file.md,
docs/reference/exit-codes.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autorubric_cli.errors import InputError
from autorubric_cli.loading.rubric_loader import load_rubric

C = "criteria:\n  - requirement: a\n"  # a valid two-line criteria block
G = C + "grader:\n"  # grader: starts on line 3
J = G + "  judges:\n    - model: m\n"  # the first judge starts on line 5
TWO_OPTIONS = "    options:\n      - {label: x, value: 0}\n      - {label: y, value: 1}\n"

# (id, file content, expected line, expected key); "" = the error is not about one key
BAD_RUBRICS: list[tuple[str, str | bytes, int, str]] = [
    # YAML itself
    ("yaml-bad-indent", "name: x\ncriteria:\n  - requirement: a\n   weight: 3\n", 4, ""),
    ("yaml-tab", "criteria:\n\t- requirement: a\n", 2, ""),
    ("yaml-junk-after-scalar", '# c\n\ncriteria:\n  - requirement: "a" b\n', 4, ""),
    ("yaml-duplicate-key", C + "    weight: 1\n    weight: 2\n", 4, "criteria[0].weight"),
    ("yaml-duplicate-top-key", C + "name: a\nname: b\n", 4, "name"),
    ("yaml-bad-tagged-value", C + "    weight: !!float abc\n", 3, "criteria[0].weight"),
    # whole file
    ("empty-file", "", 1, ""),
    ("only-comments", "# nothing here\n\n", 1, ""),
    ("top-level-scalar", "just text\n", 1, ""),
    ("binary-file", "criteria:\n  - requirement: a\x00b\n", 2, ""),
    ("not-utf8", b"name: x\ncriteria:\n  - requirement: caf\xe9\n", 3, ""),
    # wrong types
    ("weight-string", C + "    weight: heavy\n", 3, "criteria[0].weight"),
    ("criteria-string", "name: x\ncriteria: hello\n", 2, "criteria"),
    ("criterion-string", "criteria:\n  - hello\n", 2, "criteria[0]"),
    ("name-list", C + "    name: [a]\n", 3, "criteria[0].name"),
    ("normalize-not-bool", G + "  normalize: maybe\n", 4, "grader.normalize"),
    ("workers-negative", G + "  workers: -1\n", 4, "grader.workers"),
    ("workers-word", G + "  workers: many\n", 4, "grader.workers"),
    ("workers-fraction", G + "  workers: 1.5\n", 4, "grader.workers"),
    ("samples-zero", J + "      samples: 0\n", 6, "grader.judges[0].samples"),
    (
        "partial-credit-2",
        G + "  cannot_assess: {strategy: partial, partial_credit: 2}\n",
        4,
        "grader.cannot_assess.partial_credit",
    ),
    ("api-key-not-a-name", J + "      api_key_env: sk-123\n", 6, "grader.judges[0].api_key_env"),
    (
        "missing-requirement",
        "criteria:\n  - name: a\n    weight: 1\n",
        2,
        "criteria[0].requirement",
    ),
    # unknown keys
    ("unknown-top", C + "foo: 1\n", 3, "foo"),
    ("unknown-criterion-key", C + "    wieght: 3\n", 3, "criteria[0].wieght"),
    ("unknown-grader-key", G + "  normalise: true\n", 4, "grader.normalise"),
    ("unknown-judge-key", J + "      temp: 0\n", 6, "grader.judges[0].temp"),
    (
        "unknown-option-key",
        C + "    options:\n      - {label: x, value: 0, score: 1}\n      - {label: y, value: 1}\n",
        4,
        "criteria[0].options[0].score",
    ),
    ("unknown-key-named-str", C + "str: 1\n", 3, "str"),
    ("unknown-key-named-float", C + "    float: 1\n", 3, "criteria[0].float"),
    # unknown strategies
    ("aggregation", G + "  aggregation: plurality\n", 4, "grader.aggregation"),
    (
        "ordinal-aggregation",
        G + "  ordinal_aggregation: average\n",
        4,
        "grader.ordinal_aggregation",
    ),
    ("nominal-aggregation", G + "  nominal_aggregation: median\n", 4, "grader.nominal_aggregation"),
    (
        "cannot-assess-flow",
        G + "  cannot_assess: {strategy: ignore}\n",
        4,
        "grader.cannot_assess.strategy",
    ),
    (
        "cannot-assess-block",
        G + "  cannot_assess:\n    strategy: ignore\n",
        5,
        "grader.cannot_assess.strategy",
    ),
    ("sample-aggregation", G + "  sample_aggregation: mode\n", 4, "grader.sample_aggregation"),
    ("scale-type", C + "    scale_type: interval\n" + TWO_OPTIONS, 3, "criteria[0].scale_type"),
    (
        "apply-to",
        G + "  length_penalty: {apply_to: reasoning}\n",
        4,
        "grader.length_penalty.apply_to",
    ),
    ("criterion-agg-binary", C + "    aggregation: mean\n", 3, "criteria[0].aggregation"),
    (
        "criterion-agg-nominal",
        C + "    scale_type: nominal\n    aggregation: median\n" + TWO_OPTIONS,
        4,
        "criteria[0].aggregation",
    ),
    (
        "criterion-agg-ordinal",
        C + "    aggregation: weighted\n" + TWO_OPTIONS,
        3,
        "criteria[0].aggregation",
    ),
    # duplicates
    (
        "duplicate-name",
        "criteria:\n  - name: a\n    requirement: a\n  - name: a\n    requirement: b\n",
        4,
        "criteria[1].name",
    ),
    ("duplicate-default-name", C + "  - name: c1\n    requirement: b\n", 3, "criteria[1].name"),
    ("duplicate-judge-id", J + "    - model: m\n", 6, "grader.judges[1]"),
    # options
    (
        "option-value-1.5",
        C + "    options:\n      - {label: x, value: 0}\n      - {label: y, value: 1.5}\n",
        5,
        "criteria[0].options[1].value",
    ),
    (
        "option-value-negative",
        C + "    options:\n      - {label: x, value: -0.1}\n      - {label: y, value: 1}\n",
        4,
        "criteria[0].options[0].value",
    ),
    (
        "one-option-only",
        C + "    options:\n      - {label: x, value: 0}\n      - {label: n, na: true}\n",
        3,
        "criteria[0].options",
    ),
    (
        "option-without-value",
        C + "    options:\n      - {label: x}\n      - {label: y, value: 1}\n",
        4,
        "criteria[0].options[0]",
    ),
    # numbers
    ("nan-weight", C + "    weight: .nan\n", 3, "criteria[0].weight"),
    ("inf-weight", "\n" + C + "    weight: -.inf\n", 4, "criteria[0].weight"),
    ("judge-weight-zero", J + "      weight: 0\n", 6, "grader.judges[0].weight"),
    (
        "judge-weight-negative",
        J + "    - model: n\n      weight: -1\n",
        7,
        "grader.judges[1].weight",
    ),
    ("judge-weight-nan", J + "      weight: .nan\n", 6, "grader.judges[0].weight"),
    # gate and length penalty
    ("gate-without-bounds", C + "gate:\n  - {metric: score.mean}\n", 4, "gate[0]"),
    ("gate-infinite-bound", C + "gate:\n  - {metric: score.mean, min: .inf}\n", 4, "gate[0].min"),
    (
        "cap-equals-budget",
        G + "  length_penalty: {free_budget: 100, max_cap: 100}\n",
        4,
        "grader.length_penalty.max_cap",
    ),
    (
        "cap-below-budget",
        G + "  length_penalty:\n    free_budget: 100\n    max_cap: 50\n",
        6,
        "grader.length_penalty.max_cap",
    ),
]


def assert_located(err: InputError, path: Path, line: int, key: str) -> None:
    text = err.one_line()
    assert "\n" not in text
    assert err.path == str(path)
    assert (err.line, err.key) == (line, key), text
    prefix = f"{path}:{line}: " + (f"{key}: " if key else "")
    assert text.startswith(prefix), text
    assert text[len(prefix) :].strip(), "the message itself is missing"
    assert str(err) == text


@pytest.mark.parametrize(
    ("content", "line", "key"),
    [pytest.param(c, n, k, id=i) for i, c, n, k in BAD_RUBRICS],
)
def test_bad_rubric(tmp_path: Path, content: str | bytes, line: int, key: str) -> None:
    path = tmp_path / "rubric.yaml"
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    with pytest.raises(InputError) as info:
        load_rubric(path)
    assert_located(info.value, path, line, key)


def test_bad_rubric_table_is_large_and_distinct() -> None:
    assert len(BAD_RUBRICS) >= 25
    assert len({c for _, c, _, _ in BAD_RUBRICS}) == len(BAD_RUBRICS)
    assert len({i for i, _, _, _ in BAD_RUBRICS}) == len(BAD_RUBRICS)


@pytest.mark.parametrize("make", ["missing", "directory"])
def test_unreadable_rubric_path_names_the_file(tmp_path: Path, make: str) -> None:
    path = tmp_path / "rubric.yaml"
    if make == "directory":
        path.mkdir()
    with pytest.raises(InputError) as info:
        load_rubric(path)
    assert info.value.path == str(path)
    assert info.value.one_line().startswith(str(path))
    assert "\n" not in info.value.one_line()


def test_error_message_mentions_the_offending_value(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(C + "    wieght: 3\n")
    with pytest.raises(InputError, match="wieght"):
        load_rubric(path)
    path.write_text(G + "  aggregation: plurality\n")
    with pytest.raises(InputError, match="majority"):
        load_rubric(path)
