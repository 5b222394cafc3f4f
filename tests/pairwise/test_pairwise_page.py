"""The pairwise page in headless chromium: offline, escaped, each comparison's two answers side by
side with every judge's reason, and the filters work."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.browser import Watched, headless_chromium
from tests.support.cli import cli
from tests.support.experiment.pairwise import simulated_rubric

HOSTILE = "<script>alert(1)</script></pre></article><img src=x onerror=alert(2)>"


def test_the_page_shows_answers_side_by_side_offline_and_escaped(tmp_path: Path) -> None:
    for name, text in (("x", HOSTILE), ("y", "A plain answer.")):
        rows = [
            {"id": f"q{i}", "query": f"<b>Q{i}</b>", "submission": f"{text} {i}"} for i in range(3)
        ]
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "z.jsonl").write_text(json.dumps({"id": "q0", "submission": "z"}) + "\n")
    judges = "{model: simulated/a, id: a}\n{model: simulated/b, id: b, params: {position_bias: 1}}"
    rubric = simulated_rubric(tmp_path / "r.yaml", judges, overall=True)
    out = tmp_path / "exp"
    systems = [tmp_path / f"{n}.jsonl" for n in "xyz"]
    assert cli("pairwise", rubric, *systems, "--out", out).exit_code == 0
    page = out / "report.html"
    with headless_chromium() as browser:
        watched = Watched(browser, page.as_uri(), "#shown-count")
        p = watched.page
        assert watched.dialogs == [] and watched.errors == []
        assert all(url.startswith("file:") for url in watched.requests)
        cards = p.locator("article.cmp")
        assert cards.count() == 5  # q0 in three pairs (z answers q0 only), q1 and q2 in x_vs_y
        first = cards.first
        answers = first.locator(".side .answer")
        assert answers.count() == 2
        assert HOSTILE in answers.nth(0).locator("pre").inner_text()
        assert first.locator(".query").inner_text() == "query: <b>Q0</b>"
        assert first.locator("table.votes tbody tr").count() == 4 * (1 + 2 * 2)
        assert "simulated judge prefers" in first.locator("td.reason").first.inner_text()
        boxes = [answers.nth(k).bounding_box() for k in range(2)]
        assert boxes[0] and boxes[1] and boxes[0]["x"] < boxes[1]["x"]  # side by side
        assert abs(boxes[0]["y"] - boxes[1]["y"]) < 1
        p.select_option("#pair", "x_vs_z")
        assert p.locator("article.cmp:visible").count() == 1
        p.select_option("#pair", "")
        p.fill("#filter", "Q2")
        assert p.locator("article.cmp:visible").count() == 1
        assert p.locator("#shown-count").inner_text() == "1 of 5 shown"
        assert p.locator("#simulated").is_visible()
