"""`autorubric pairwise` end to end with simulated judges: the report, its gates and exit codes,
the refusals, the formats, and `report`/`resume` of a pairwise experiment."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from autorubric_cli.core.items import Item
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.errors import InputError
from autorubric_cli.pairwise.checks import shared_items
from autorubric_cli.pairwise.plan import Unit
from tests.support.cli import cli
from tests.support.experiment.pairwise import simulated_rubric, systems, write_system

ONE_JUDGE = "{model: simulated/a, id: a, params: {accuracy: 0.9}}"


@pytest.fixture
def three(tmp_path: Path) -> list[Path]:
    return systems(tmp_path, {"new": 0.9, "mid": 0.5, "old": 0.1}, items=8)


def run_json(*args: object) -> tuple[int, dict, str]:
    result = cli("pairwise", *args, "--format", "json")
    data = json.loads(result.stdout) if result.stdout.strip().startswith("{") else {}
    return result.exit_code, data, result.stderr


def test_three_systems_every_pair_and_a_leaderboard(tmp_path: Path, three: list[Path]) -> None:
    rubric = simulated_rubric(tmp_path / "r.yaml", ONE_JUDGE, overall=True)
    code, report, err = run_json(rubric, *three, "--out", tmp_path / "exp")
    assert code == 0, err
    assert report["questions"] == ["correct", "harmful", "style", "overall"]
    assert report["comparisons"] == {"total": 24, "completed": 24, "errored": 0, "pending": 0}
    pairs = report["pairwise"]
    assert list(pairs) == ["new_vs_mid", "new_vs_old", "mid_vs_old", "leaderboard"]
    new_old = pairs["new_vs_old"]
    assert new_old["decided_by"] == "overall" and new_old["n"] == 8
    assert new_old["wins"] + new_old["ties"] + new_old["losses"] == 8
    assert new_old["win_rate"] == (new_old["wins"] + new_old["ties"] / 2) / 8
    assert new_old["win_rate"] > 0.5 and new_old["overall"]["win_rate"] == new_old["win_rate"]
    assert set(new_old["criteria"]) == {"correct", "harmful", "style"}
    board = pairs["leaderboard"]
    ranked = sorted(board, key=lambda name: board[name]["rank"])
    assert ranked[0] == "new" and ranked[-1] == "old"
    assert sum(r["elo"] for r in board.values()) == pytest.approx(3000)
    assert report["judges"][0]["order_pairs"] == 24 * 4  # every question asked in both orders
    saved = json.loads((tmp_path / "exp" / "report.json").read_text())
    assert saved == report
    assert (tmp_path / "exp" / "report.html").is_file()


def test_a_judge_that_always_picks_the_first_shown_gives_only_ties(
    tmp_path: Path, three: list[Path]
) -> None:
    judge = "{model: simulated/biased, id: biased, params: {position_bias: 1.0}}"
    rubric = simulated_rubric(tmp_path / "r.yaml", judge)
    code, report, err = run_json(rubric, *three[:2], "--out", tmp_path / "exp")
    assert code == 0, err
    pair = report["pairwise"]["new_vs_mid"]
    assert (pair["wins"], pair["ties"], pair["losses"]) == (0, 8, 0)
    assert all(c["ties"] == 8 for c in pair["criteria"].values())
    judge_bias = report["judges"][0]
    assert judge_bias["order_consistency"] == 0.0 and judge_bias["first_position_rate"] == 1.0
    assert judge_bias["first_position_p_value"] < 1e-10
    assert report["pairwise"]["leaderboard"] is None
    assert "three or more" in report["leaderboard_note"]


def test_gates_exit_1_or_0(tmp_path: Path, three: list[Path]) -> None:
    gate = "    - {metric: pairwise.new_vs_mid.criteria.correct.win_rate, min: 0.5}\n"
    rubric = simulated_rubric(tmp_path / "r.yaml", ONE_JUDGE, gate=gate)
    new, mid, _ = three
    code, report, _ = run_json(rubric, new, mid, "--out", tmp_path / "a", "--min-win-rate", "0.5")
    assert code == 0 and report["gate"]["passed"]
    assert [c["metric"] for c in report["gate"]["checks"]] == [
        "pairwise.new_vs_mid.criteria.correct.win_rate",
        "pairwise.new_vs_mid.win_rate",
    ]
    plain = simulated_rubric(tmp_path / "plain.yaml", ONE_JUDGE)
    code, report, _ = run_json(plain, mid, new, "--out", tmp_path / "b", "--min-win-rate", "0.5")
    assert code == 1 and not report["gate"]["passed"]
    # the rubric's check names a pair these systems do not form: refused before any call
    code, _, err = run_json(rubric, mid, new, "--out", tmp_path / "c")
    assert code == 2 and "did you mean 'pairwise.mid_vs_new.criteria.correct.win_rate'" in err


def test_everything_a_comparison_refuses_is_refused_before_a_call(
    tmp_path: Path, three: list[Path]
) -> None:
    rubric = simulated_rubric(tmp_path / "r.yaml", ONE_JUDGE)
    other = write_system(tmp_path / "other.jsonl", "other", 3, 0.5)
    renamed = other.read_text().replace('"q', '"z')
    (tmp_path / "elsewhere.jsonl").write_text(renamed)
    typo = "    - {metric: pairwise.new_vs_mid.win_rat, min: 0.5}\n"
    cases = [
        ((rubric, three[0]), "two or more systems"),
        ((rubric, three[0], tmp_path / "elsewhere.jsonl"), "share no item id"),
        ((rubric, *three[:2], "--name", "nope=x"), "no system named 'nope'"),
        ((rubric, three[0], three[0]), "two systems are named 'new'"),
        ((rubric, *three[:2], "--name", "new=tie"), "cannot name a system"),
        ((simulated_rubric(tmp_path / "g.yaml", ONE_JUDGE, gate=typo), *three[:2]), "did you mean"),
        ((rubric, *three[:2], "--min-win-rate", "2"), "--min-win-rate"),
        ((rubric, *three[:2], "--swap", "sometimes"), "--swap"),
    ]
    any_rubric = simulated_rubric(tmp_path / "any.yaml", ONE_JUDGE, grader="  aggregation: any\n")
    cases.append(((any_rubric, *three[:2]), "has no meaning for pairs"))
    empty = tmp_path / "empty.yaml"
    empty.write_text(f"criteria: []\ngrader:\n  judges:\n    - {ONE_JUDGE}\n")
    cases.append(((empty, *three[:2]), "nothing to ask"))

    for args, message in cases:
        result = cli("pairwise", *args, "--out", tmp_path / "never")
        assert result.exit_code == 2, (args, result.stderr)
        assert message in result.stderr, (message, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "never").exists()
    questions = other.read_text().replace("Question", "Another question")
    (tmp_path / "asks.jsonl").write_text(questions)
    result = cli("pairwise", rubric, other, tmp_path / "asks.jsonl", "--check")
    assert result.exit_code == 2 and "answers different queries" in result.stderr


def test_check_and_dry_run_call_nothing(tmp_path: Path, three: list[Path]) -> None:
    rubric = simulated_rubric(tmp_path / "r.yaml", ONE_JUDGE, overall=True)
    result = cli("pairwise", rubric, *three, "--check")
    assert result.exit_code == 0, result.stderr
    assert "3 pairs, 24 comparisons, 192 judge calls" in result.stdout
    bill = cli("pairwise", rubric, *three, "--dry-run", "--format", "json", cwd=tmp_path)
    assert bill.exit_code == 0, bill.stderr
    data = json.loads(bill.stdout)
    assert data["calls"]["total"] == 24 * 4 * 2
    assert {line["criterion"] for line in data["criteria"]} == {
        "correct",
        "harmful",
        "style",
        "overall",
    }
    random = cli("pairwise", rubric, *three, "--dry-run", "--swap", "random", "-f", "json")
    assert json.loads(random.stdout)["calls"]["total"] == 24 * 4
    assert not (tmp_path / "experiments").exists()


def test_every_format_and_report_of_the_directory(tmp_path: Path, three: list[Path]) -> None:
    rubric = simulated_rubric(tmp_path / "r.yaml", ONE_JUDGE, overall=True)
    exp = tmp_path / "exp"
    table = cli("pairwise", rubric, *three, "--out", exp)
    assert table.exit_code == 0, table.stderr
    assert "Leaderboard" in table.stdout and "SIMULATED" in table.stdout
    markdown = cli("report", exp, "--format", "markdown")
    assert "### Pairs" in markdown.stdout and "| new_vs_mid |" in markdown.stdout
    rows = cli("report", exp, "--format", "csv").stdout.splitlines()
    assert rows[0] == "metric,value"
    report = json.loads(cli("report", exp, "--format", "json").stdout)
    values = dict(row.split(",") for row in rows[1:])
    assert (
        float(values["pairwise.new_vs_old.win_rate"])
        == report["pairwise"]["new_vs_old"]["win_rate"]
    )
    assert (
        float(values["pairwise.leaderboard.new.elo"])
        == report["pairwise"]["leaderboard"]["new"]["elo"]
    )
    page = cli("report", exp, "--format", "html", "-o", tmp_path / "page.html")
    assert page.exit_code == 0 and (tmp_path / "page.html").is_file()
    refused = cli("report", exp, "--fail-under", "0.5")
    assert refused.exit_code == 2 and "--fail-under" in refused.stderr
    compared = cli("compare", exp, exp)
    assert compared.exit_code == 2 and "pairwise experiment" in compared.stderr
    for flag in ("--timeout", "--max-attempts"):  # run's operational flags pairwise lacks
        resumed = cli("resume", exp, flag, "5")
        assert resumed.exit_code == 2 and flag in resumed.stderr, resumed.stderr
        assert "not used when resuming a pairwise experiment" in resumed.stderr


def test_an_experiment_directory_is_a_system(tmp_path: Path, three: list[Path]) -> None:
    run_rubric = simulated_rubric(tmp_path / "run.yaml", ONE_JUDGE)
    graded = tmp_path / "graded"
    assert cli("run", run_rubric, three[1], "--out", graded).exit_code == 0
    rubric = simulated_rubric(tmp_path / "r.yaml", ONE_JUDGE)
    code, report, err = run_json(rubric, three[0], graded, "--out", tmp_path / "exp")
    assert code == 0, err
    assert [s["name"] for s in report["systems"]] == ["new", "graded"]
    assert report["systems"][1]["kind"] == "experiment"
    # records without the answers (written before records kept them): the run's dataset, or a
    # one-line error once it is gone
    items = graded / "items.jsonl"
    lines = [json.loads(line) for line in items.read_text().splitlines()]
    items.write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "submission"}) + "\n" for r in lines)
    )
    code, _, err = run_json(rubric, three[0], graded, "--out", tmp_path / "exp2")
    assert code == 0, err
    three[1].unlink()
    code, _, err = run_json(rubric, three[0], graded, "--out", tmp_path / "exp3")
    assert code == 2 and "keep no submissions" in err and "is gone" in err


def test_items_with_criteria_or_a_context_of_their_own_are_refused() -> None:
    own = Item(id="q0", submission="x", rubric=[Criterion(name="i1", requirement="r")])
    plain = Item(id="q0", submission="y")
    context = Item(id="q0", submission="z", context=[{"role": "user", "content": "Earlier."}])
    for first, second in ((own, plain), (plain, context)):
        systems = [SimpleNamespace(name=n, source=SimpleNamespace(path=f"{n}.jsonl")) for n in "ab"]
        plan = SimpleNamespace(
            systems=systems,
            pairs=lambda pair=tuple(systems): [pair],
            all_units=lambda f=first, s=second: iter([Unit("q0|a|b", 0, "q0", "a", "b", f, s)]),
        )
        with pytest.raises(InputError, match="of its own") as refused:
            shared_items(plan)  # type: ignore[arg-type]
        assert refused.value.path == ("a.jsonl" if first is own else "b.jsonl")
