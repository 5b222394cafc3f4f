"""Bad input never crashes a loader: the only outcomes are success and a one-line InputError.

Property tests (hypothesis) over every loader of tests/support/fuzz_inputs.py, plus one test per
crash class a fuzzer found. bench/fuzz_loaders.py runs the same targets at scale.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autorubric_cli.errors import InputError
from autorubric_cli.experiment.manifest import ITEMS, MANIFEST
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.experiment.store import ReadIssues, iter_latest_records
from autorubric_cli.loading.dataset import iter_items
from autorubric_cli.loading.rubric_loader import parse_rubric
from autorubric_cli.report.build import build_report
from tests.support.cli import cli
from tests.support.fuzz_inputs import (
    RUBRIC,
    TARGETS,
    Workspace,
    generate,
    inspect_eval_bytes,
    inspect_log,
    run_case,
)

FUZZ = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    return Workspace(tmp_path_factory.mktemp("fuzz"))


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_seed_files_load(ws: Workspace, name: str) -> None:
    """The unmutated seed of every target loads: the fuzzer starts from valid input."""
    loader, seed, _ = TARGETS[name]
    loader(ws, seed(ws))


@pytest.mark.parametrize("name", sorted(TARGETS))
@FUZZ
@given(seed=st.integers(0, 2**32 - 1))
def test_mutated_inputs_never_crash(ws: Workspace, name: str, seed: int) -> None:
    data = generate(ws, name, random.Random(seed))
    crash = run_case(ws, name, data)
    assert crash is None, f"{type(crash).__name__}: {crash} on {data[:300]!r}"


@pytest.mark.parametrize("name", ["rubric.yaml", "data.jsonl", "data.csv", "items.jsonl"])
@FUZZ
@given(data=st.binary(max_size=300))
def test_random_bytes_never_crash(ws: Workspace, name: str, data: bytes) -> None:
    crash = run_case(ws, name, data)
    assert crash is None, f"{type(crash).__name__}: {crash} on {data!r}"


# --- the crash classes, one by one -----------------------------------------------------------


def rubric_error(text: str) -> InputError:
    with pytest.raises(InputError) as info:
        parse_rubric(text, "r.yaml")
    assert "\n" not in info.value.one_line()
    return info.value


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("criteria: " + "[" * 3000 + "]" * 3000, "deeper than 100"),
        ("criteria:\n" + "".join("  " * i + "- \n" for i in range(1, 150)), "deeper than 100"),
        ("a: &x\n  b: *x\ncriteria: []\n", "recursive YAML alias"),
        ("&x [*x]", "recursive YAML alias"),
        (
            "a: &a [x,x,x,x,x,x,x,x,x,x]\n"
            + "".join(
                f"{n}: &{n} [{', '.join([f'*{p}'] * 10)}]\n"
                for p, n in zip("abcdef", "bcdefg", strict=True)
            ),
            "more than 1000000 values",
        ),
    ],
)
def test_yaml_nesting_and_aliases_are_input_errors(text: str, message: str) -> None:
    assert message in rubric_error(text).message


def test_yaml_merge_keys_apply_and_explicit_keys_win() -> None:
    rubric = parse_rubric(
        "criteria:\n  - &d {name: a, weight: 3, requirement: from merge}\n"
        "  - <<: *d\n    name: b\n    weight: -2\n"
        "  - <<: [*d]\n    name: c\n",
        "r.yaml",
    )
    assert [(c.name, c.weight, c.requirement) for c in rubric.criteria] == [
        ("a", 3.0, "from merge"),
        ("b", -2.0, "from merge"),
        ("c", 3.0, "from merge"),
    ]


def test_yaml_merge_of_a_scalar_is_an_input_error() -> None:
    error = rubric_error("criteria:\n  - <<: 3\n    requirement: r\n")
    assert error.line == 2 and "merges only mappings" in error.message


@pytest.fixture
def experiment(ws: Workspace, tmp_path: Path) -> Path:
    target = tmp_path / "exp"
    shutil.copytree(ws.experiment(), target)
    return target


def records(directory: Path) -> list[dict]:
    return [json.loads(line) for line in (directory / ITEMS).read_text().splitlines()]


def rewrite(directory: Path, rows: list[dict]) -> None:
    (directory / ITEMS).write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))


def test_items_jsonl_directory_is_an_input_error(experiment: Path) -> None:
    (experiment / ITEMS).unlink()
    (experiment / ITEMS).mkdir()
    with pytest.raises(InputError, match="items.jsonl is a directory"):
        build_report(open_experiment(experiment))


def test_missing_items_jsonl_reports_nothing_completed(experiment: Path) -> None:
    (experiment / ITEMS).unlink()
    report = build_report(open_experiment(experiment))
    assert report["items"] == {"total": 3, "completed": 0, "errored": 0, "pending": 3}


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda r: r["criteria"][2]["option"].update(index=7),
        lambda r: r["criteria"][2]["votes"][0].update(option_index=-1),
        lambda r: r["criteria"][2]["votes"][0].update(shuffle_order=[0, 1, 9]),
        lambda r: r.update(criteria=[]),
        lambda r: r["criteria"].reverse(),
        lambda r: r.update(ground_truth={"style": "Nope"}),
        lambda r: r.update(human_ratings={"correct": [["MET", "maybe"]]}),
    ],
    ids=["option", "vote-option", "shuffle", "empty-criteria", "reordered", "truth", "human"],
)
def test_records_that_do_not_fit_the_rubric_are_set_aside(experiment: Path, corrupt) -> None:
    rows = records(experiment)
    corrupt(rows[1])
    rewrite(experiment, rows)
    issues = ReadIssues()
    criteria = open_experiment(experiment).rubric.criteria
    kept = list(iter_latest_records(experiment / ITEMS, issues, criteria))
    assert [r.id for r in kept] == [rows[0]["id"], rows[2]["id"]]
    assert issues.bad_lines == [2]
    report = build_report(open_experiment(experiment))
    assert report["items"]["completed"] == 2


@pytest.mark.parametrize(
    ("field", "value", "key"),
    [
        ("seed", "seven", "seed"),
        ("seed", -1, "seed"),
        ("items_total", [], "items_total"),
        ("config", {"concurrency": "many"}, "config.concurrency"),
        ("config", {"cannot_assess": {"strategy": "guess"}}, "config.cannot_assess.strategy"),
        ("dataset", {"path": 3, "sha256": "x"}, "dataset.path"),
        ("dataset_fields", {"answer": "x"}, "dataset_fields"),
    ],
)
def test_wrong_typed_manifest_fields_are_input_errors(
    experiment: Path, field: str, value: object, key: str
) -> None:
    manifest = json.loads((experiment / MANIFEST).read_text())
    manifest[field] = value if field != "config" else {**manifest["config"], **value}
    (experiment / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(InputError) as info:
        open_experiment(experiment)
    assert info.value.key == key
    assert info.value.path is not None and info.value.path.endswith(MANIFEST)


@pytest.mark.parametrize(
    ("grader", "message"),
    [
        ("few_shot: {examples: missing.jsonl}", "few-shot examples file not found"),
        ("judges: [{model: m, temperature: .nan}]", "temperature: must be a finite number"),
        ("judges: [{model: m, samples: 1000000000000}]", "samples: Input should be less than"),
        ("judges: [{model: m, samples: 1e12}]", "samples:"),
        ("seed: -3", "seed:"),
    ],
)
def test_check_rejects_bad_grader_settings(tmp_path: Path, grader: str, message: str) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text("criteria:\n  - requirement: r\ngrader:\n  " + grader + "\n")
    result = cli("check", rubric)
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_check_rejects_an_unreadable_few_shot_file(tmp_path: Path) -> None:
    (tmp_path / "shots").mkdir()
    rubric = tmp_path / "r.yaml"
    rubric.write_text(RUBRIC.replace("  seed: 3", "  seed: 3\n  few_shot: {examples: shots}"))
    result = cli("check", rubric)
    assert result.exit_code == 2 and "few_shot.examples" in result.stderr


def test_an_eval_log_of_an_unknown_zip_version_is_an_input_error(ws: Workspace) -> None:
    """A crash class the fuzzer found: zipfile raises NotImplementedError for it."""
    data = bytearray(inspect_eval_bytes())
    central = data.find(b"PK\x01\x02")
    data[central + 6 : central + 8] = (182).to_bytes(2, "little")  # "version needed": 18.2
    crash = run_case(ws, "inspect.eval", bytes(data))
    assert crash is None, crash
    path = ws.root / "i.eval"
    with pytest.raises(InputError, match="not a readable .eval log"):
        list(iter_items(path, ws.rubric))


def test_a_deeply_nested_inspect_sample_loads(ws: Workspace) -> None:
    """A crash class the fuzzer found: resolving attachments recursed through any depth."""
    text = json.dumps(inspect_log()).replace('"topic": "math"', '"topic": ' + "[" * 900 + "]" * 900)
    crash = run_case(ws, "inspect.json", text.encode())
    assert crash is None, crash
    items = list(iter_items(ws.root / "i.json", ws.rubric))
    assert len(items) == 4 and isinstance(items[0].metadata["topic"], list)
