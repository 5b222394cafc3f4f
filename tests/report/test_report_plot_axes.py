"""In the real browser: the score histogram counts items in whole-number ticks (never 0.5
items), and a confusion matrix leaves room for its rotated x labels (the first one included)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from tests.cli.runner_support import invoke
from tests.support.browser import headless_chromium

RUBRIC = """name: small
criteria:
  - name: resolution
    requirement: How was the ticket resolved?
    scale_type: nominal
    options:
      - {label: "solved in reply", value: 1.0}
      - {label: "no", value: 0.0}
      - {label: "x", value: 0.0}
grader:
  judges:
    - {model: simulated/a, params: {accuracy: 0.8, seed: 1}}
"""
AXES = """() => Bokeh.documents.map(d => d.roots()[0]).map(root => {
  const y = root.left[0], r = root.y_range;
  const view = Bokeh.index[root.id] || Object.values(Bokeh.index).find(v => v.model === root);
  const ticks = y.ticker.get_ticks(r.start, r.end, r, NaN).major;
  return {ticks: Array.from(ticks), cols: root.x_range.factors || null,
          frame_left: view ? view.frame.bbox.left : null};
})"""


@pytest.fixture(scope="module")
def plots(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("axes")
    rubric, data = tmp / "r.yaml", tmp / "d.jsonl"
    rubric.write_text(RUBRIC)
    labels = ["solved in reply", "no", "x"]
    rows = [
        {"id": f"t{i}", "submission": f"reply {i}", "ground_truth": {"resolution": labels[i % 3]}}
        for i in range(4)
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, stderr = invoke("run", rubric, data, "--out", tmp / "exp")
    assert code == 0, stderr
    with headless_chromium() as browser:
        page = browser.new_page()
        page.goto((tmp / "exp" / "report.html").as_uri())
        page.wait_for_selector("body[data-plots-ready]")
        found: list[dict[str, Any]] = page.evaluate(AXES)
    return found


def test_the_histogram_counts_items_in_whole_numbers(plots: list[dict[str, Any]]) -> None:
    histogram = plots[0]  # the first figure of the page: the score distribution
    assert histogram["ticks"] and all(float(t).is_integer() for t in histogram["ticks"])
    assert max(histogram["ticks"]) >= 2  # the tallest bar (2 items) is reached


def test_a_confusion_matrix_leaves_room_for_its_first_rotated_label(
    plots: list[dict[str, Any]],
) -> None:
    matrix = next(p for p in plots if p["cols"] == ["solved in reply", "no", "x"])
    reach = math.cos(0.6) * len("solved in reply") * 7  # the rotated label's width leftwards
    assert matrix["frame_left"] is not None and matrix["frame_left"] >= reach
