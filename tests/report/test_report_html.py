"""The HTML report without a browser: every section, for experiments of every shape
(docs/guides/html-report.md)."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from html_support import (
    DEMO_DATA,
    DEMO_RUBRIC,
    XSS,
    cli,
    demo_lines,
    parse,
    parse_text,
    ungated_demo,
    write_jsonl,
)

from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.report.build import build_report_and_fold
from autorubric_cli.report.html.items import worst_first_key
from autorubric_cli.report.html.page import render_report_html
from tests.support import TEST_KEY_ENV
from tests.support.judge_server import JudgeServer, default_answer

CRITERIA = [
    "energy_density",
    "cycle_life",
    "thermal_safety",
    "wrong_claim",
    "clarity",
    "satisfaction",
    "tone",
]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The offline demo, run by the CLI: it writes report.html at the end."""
    out = tmp_path_factory.mktemp("html") / "demo"
    result = cli("run", DEMO_RUBRIC, DEMO_DATA, "--out", out, "--no-cache")
    assert result.exit_code == 0, result.output
    return out


def test_run_writes_a_self_contained_page_with_every_section(demo: Path) -> None:
    path = demo / "report.html"
    page = parse(path)
    for section in ("summary", "scores", "criteria", "judges", "agreement", "ground-truth"):
        assert section in page.ids
    assert {"validate", "gate", "items", "simulated-banner", "judge-bias"} <= page.ids
    assert "errors" not in page.ids  # nothing errored
    expected = {"score", "met_rates", "agreement", "truth_score"}
    expected |= {f"options:{c}" for c in ("clarity", "satisfaction", "tone")}
    expected |= {f"confusion:{c}" for c in CRITERIA}
    judges = json.loads((demo / "report.json").read_text())["judge_bias"]
    expected |= {f"position:{j}" for j in judges}  # a chosen-position chart per judge
    assert set(page.plots) == expected and not page.empty_plots
    assert page.external == []  # no CDN, no fetch: nothing outside the file
    text = path.read_text()
    assert "<script src" not in text and "<link" not in text
    assert path.stat().st_size < 5_000_000


def test_header_names_judges_simulated_seed_cost_and_tokens(demo: Path) -> None:
    text = (demo / "report.html").read_text()
    header = text[text.index('id="summary"') : text.index('id="scores"')]
    report = json.loads((demo / "report.json").read_text())
    for judge in ("careful", "hasty", "biased"):
        assert f"{judge} (simulated/{judge}, simulated, weight" in header
    assert "<dt>seed</dt><dd>42</dd>" in header
    assert f"{report['usage']['prompt_tokens']:,} prompt" in header
    assert "$0.0000 paid" in header
    assert "SIMULATED" in header


def test_item_table_holds_every_item_with_votes_order_and_texts(demo: Path) -> None:
    page = parse(demo / "report.html")
    rows = page.items()
    assert sorted(r["id"] for r in rows) == [d["id"] for d in demo_lines()]
    meta = page.meta()
    assert [c["name"] for c in meta["criteria"]] == CRITERIA
    assert [j["id"] for j in meta["judges"]] == ["careful", "hasty", "biased"]
    assert meta["criteria"][5]["na"] == ["NA - not a question"]
    records = {
        r["id"]: r for r in map(orjson.loads, (demo / "items.jsonl").read_bytes().splitlines())
    }
    dataset = {d["id"]: d for d in demo_lines()}
    for row in rows:
        record = records[row["id"]]
        assert row["sc"] == record["score"] and row["st"] == record["status"]
        for criterion, embedded in zip(record["criteria"], row["c"], strict=True):
            label = (criterion["option"] or {}).get("label") or criterion["verdict"]
            assert embedded[0] == label
            votes = embedded[3]
            assert len(votes) == len(criterion["votes"]) == 3
            for vote, compact in zip(criterion["votes"], votes, strict=True):
                assert meta["judges"][compact[0]]["id"] == vote["judge"]
                assert compact[3] == vote["shuffle_order"]  # the order the judge was shown
                assert compact[4] == vote["reason"]
                outcome = vote["option_index"] if criterion["option"] else vote["verdict"]
                assert compact[2] == outcome
        submission = dataset[row["id"]]["submission"]
        output = submission if isinstance(submission, str) else submission["output"]
        assert row["sub"] == output and row["q"] == dataset[row["id"]]["query"]
    assert all(any(v[3] for v in row["c"][4][3]) for row in rows)  # clarity was shuffled


def test_report_format_html_writes_to_o_and_prints_the_path(demo: Path, tmp_path: Path) -> None:
    target = tmp_path / "page.html"
    result = cli("report", demo, "--format", "html", "-o", target)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(target)
    assert parse(target).plots == parse(demo / "report.html").plots
    missing = cli("report", demo, "--format", "html", "-o", tmp_path / "no" / "dir" / "x.html")
    assert missing.exit_code == 2


def test_what_if_html_needs_o_and_leaves_the_directory_alone(demo: Path, tmp_path: Path) -> None:
    before = (demo / "report.html").read_bytes()
    result = cli("report", demo, "--format", "html", "--aggregation", "any")
    assert result.exit_code == 2
    target = tmp_path / "what-if.html"
    result = cli("report", demo, "--format", "html", "--aggregation", "any", "-o", target)
    assert result.exit_code == 0 and "what-if" in target.read_text()
    assert (demo / "report.html").read_bytes() == before


def test_run_output_is_compact_and_report_prints_everything(tmp_path: Path) -> None:
    out = tmp_path / "exp"
    run = cli("run", DEMO_RUBRIC, DEMO_DATA, "--out", out, "--no-cache", "--limit", "12")
    lines = run.output.splitlines()
    assert "Criteria" in run.output and "Gate:" in run.output and "SIMULATED" in run.output
    assert "Agreement between judges" not in run.output and "Judges" not in run.output
    assert lines[-1] == f"Full report: {out}/report.html · all tables: autorubric report {out}"
    assert (out / "report.html").is_file()
    full = cli("report", out)
    assert "Agreement between judges" in full.output and "Judges" in full.output
    assert len(full.output.splitlines()) > len(lines) + 30


def test_dataset_text_is_escaped_and_never_markup(tmp_path: Path) -> None:
    rows = demo_lines()[:6]
    rows[0]["submission"] = f"Before {XSS} after"
    rows[0]["query"] = f"<b>{XSS}</b>"
    rows[0]["id"] = "x</script><script>alert(3)</script>"
    rows[1]["metadata"] = {"note": XSS}
    data = write_jsonl(tmp_path / "xss.jsonl", rows)
    out = tmp_path / "exp"
    result = cli("run", ungated_demo(tmp_path), data, "--out", out, "--no-cache")
    assert result.exit_code == 0, result.output
    text = (out / "report.html").read_text()
    assert "alert(1)" not in text and "alert(3)" not in text  # only inside the encoded payload
    page = parse(out / "report.html")
    row = next(r for r in page.items() if r["id"] == rows[0]["id"])
    assert row["sub"] == f"Before {XSS} after" and row["q"] == f"<b>{XSS}</b>"
    assets = Path(render_report_html.__code__.co_filename).parent / "assets"
    for script in ("report.js", "plots.js"):  # our page code never parses text as HTML
        code = (assets / script).read_text()
        assert "innerHTML" not in code and "insertAdjacentHTML" not in code
        assert "textContent" in code or script == "plots.js"


def _errored_experiment(tmp_path: Path) -> Path:
    def answer(body: dict) -> str:
        reply = json.loads(default_answer(body))
        reply["explanation"] = f"{XSS} judged"
        return json.dumps(reply)

    data = write_jsonl(
        tmp_path / "d.jsonl",
        [{"id": f"e{i}", "submission": f"answer {i}"} for i in range(8)],
    )
    rubric = tmp_path / "r.yaml"
    with JudgeServer(
        fault_rate=0.3, fault_kinds=("server_error",), fault_seed=5, answer=answer
    ) as server:
        rubric.write_text(
            "criteria:\n"
            "  - {name: correct, requirement: Correct}\n"
            "  - name: style\n    requirement: Style\n    options:\n"
            "      - {label: Bad, value: 0.0}\n      - {label: Good, value: 1.0}\n"
            "grader:\n  judges:\n"
            f"    - {{model: openai/j, id: j, api_base: '{server.api_base}', "
            f"api_key_env: {TEST_KEY_ENV}}}\n"
            "  max_attempts: 1\n"
        )
        out = tmp_path / "exp"
        result = cli("run", rubric, data, "--out", out)
    assert result.exit_code == 3, result.output
    return out


def test_an_experiment_with_errors_lists_them_and_shows_error_votes(
    tmp_path: Path, judge_api_key: str
) -> None:
    out = _errored_experiment(tmp_path)
    report = json.loads((out / "report.json").read_text())
    page = parse(out / "report.html")
    assert "errors" in page.ids and "ground-truth" not in page.ids
    text = (out / "report.html").read_text()
    for item in report["errored_items"]:
        assert f"<code>{item['id']}</code>" in text
    rows = {r["id"]: r for r in page.items()}
    errored = [r for r in rows.values() if r["st"] == "error"]
    assert len(errored) == report["items"]["errored"] > 0
    error_votes = [v for r in errored for c in r["c"] for v in c[3] if v[5]]
    assert error_votes and all("server" in v[5] for v in error_votes)
    assert [r["id"] for r in page.items()][: len(errored)] == [r["id"] for r in errored]
    reasons = [v[4] for r in rows.values() for c in r["c"] for v in c[3] if v[4]]
    assert reasons and all(XSS in reason for reason in reasons)
    assert XSS not in text


def test_multi_choice_only_has_no_met_rate_plot(tmp_path: Path) -> None:
    text = DEMO_RUBRIC.read_text()
    head, rest = text.split("criteria:\n", 1)
    multi = rest[rest.index("  - name: clarity") : rest.index("grader:")]
    rubric = tmp_path / "multi.yaml"
    rubric.write_text(
        head + "criteria:\n" + multi + rest[rest.index("grader:") : rest.index("gate:")]
    )
    rows = demo_lines()[:10]
    for row in rows:
        row["ground_truth"] = {
            k: v for k, v in row["ground_truth"].items() if k in ("clarity", "satisfaction", "tone")
        }
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    out = tmp_path / "exp"
    assert cli("run", rubric, data, "--out", out, "--no-cache").exit_code == 0
    page = parse(out / "report.html")
    assert page.empty_plots == ["met_rates"]
    assert {"options:clarity", "options:satisfaction", "options:tone"} <= set(page.plots)
    assert {"confusion:clarity", "confusion:tone"} <= set(page.plots)
    assert all(len(r["c"]) == 3 for r in page.items())


def test_no_ground_truth_means_no_ground_truth_section(tmp_path: Path) -> None:
    rows = demo_lines()[:10]
    for row in rows:
        row.pop("ground_truth")
        row.pop("human_ratings", None)
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    out = tmp_path / "exp"
    assert cli("run", ungated_demo(tmp_path), data, "--out", out, "--no-cache").exit_code == 0
    page = parse(out / "report.html")
    assert "ground-truth" not in page.ids and "validate" not in page.ids
    assert not any(p.startswith("confusion:") or p == "truth_score" for p in page.plots)
    assert {"score", "met_rates", "agreement"} <= set(page.plots)
    assert all(r["gt"] == {} for r in page.items())


def test_zero_completed_items(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "empty"
    out.mkdir()
    for name in ("manifest.json", "rubric.yaml"):
        (out / name).write_bytes((demo / name).read_bytes())
    (out / "items.jsonl").write_bytes(b"")
    result = cli("report", out, "--format", "html")
    assert result.exit_code == 1, result.output  # the demo gate fails on an undefined mean
    page = parse(out / "report.html")
    assert page.items() == []
    assert "score" in page.empty_plots and "met_rates" in page.empty_plots
    assert "ground-truth" not in page.ids and {"gate", "items"} <= page.ids
    assert "0 of 48 graded" in (out / "report.html").read_text()


def test_a_single_judge_has_no_agreement_heatmap(tmp_path: Path) -> None:
    text = ungated_demo(tmp_path).read_text()
    start = text.index("    - {model: simulated/hasty")
    end = text.index("  aggregation: weighted")
    rubric = tmp_path / "one.yaml"
    rubric.write_text(text[:start] + text[end:])
    data = write_jsonl(tmp_path / "d.jsonl", demo_lines()[:5])
    out = tmp_path / "exp"
    assert cli("run", rubric, data, "--out", out, "--no-cache").exit_code == 0
    page = parse(out / "report.html")
    assert "agreement" in page.empty_plots and "agreement" not in page.plots


def test_a_capped_sample_keeps_the_worst_items_and_says_so(demo: Path) -> None:
    experiment = open_experiment(demo)
    report, fold = build_report_and_fold(experiment)
    page_text = render_report_html(report, experiment, fold, cap=10)
    assert "Showing a sample of 10 of 48 items: the worst first" in page_text
    page = parse_text(page_text)
    shown = page.items()
    records = [orjson.loads(line) for line in (demo / "items.jsonl").read_bytes().splitlines()]
    records.sort(key=lambda r: worst_first_key(r["status"], r["score"], r["index"]))
    assert [r["id"] for r in shown] == [r["id"] for r in records[:10]]
    small = parse_text(render_report_html(report, experiment, fold, budget=1_500))
    assert 0 < len(small.items()) < 48 and "sample-note" in small.ids
    ordered = [r["id"] for r in records]
    assert [r["id"] for r in small.items()] == ordered[: len(small.items())]


def test_labels_from_the_rubric_cannot_close_a_script_element(tmp_path: Path) -> None:
    """Criterion names reach the plot specs and the item metadata (JSON in <script>)."""
    name = "tone</script><script>alert(4)</script>"
    text = ungated_demo(tmp_path).read_text().replace("name: tone", f"name: '{name}'")
    rubric = tmp_path / "r.yaml"
    rubric.write_text(text)
    rows = demo_lines()[:4]
    for row in rows:
        row["ground_truth"][name] = row["ground_truth"].pop("tone")
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    out = tmp_path / "exp"
    result = cli("run", rubric, data, "--out", out, "--no-cache")
    assert result.exit_code == 0, result.output
    html = (out / "report.html").read_text()
    assert "alert(4)" in html  # the name is there, escaped...
    assert "<script>alert(4)" not in html  # ...and never as markup
    page = parse(out / "report.html")
    assert page.meta()["criteria"][6]["name"] == name
    assert f"options:{name}" in page.specs() and f"confusion:{name}" in page.specs()
