"""The review's HTML page in headless chromium: self-contained (no request leaves the file),
every text escaped, the tables there; its Markdown from the same rows."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from PIL import Image, ImageStat

from tests.support.browser import Watched, headless_chromium
from tests.support.cli import cli

XSS = "<script>alert(1)</script><img src=x onerror=alert(2)>"


def reviewed(tmp_path: Path, fmt: str) -> str:
    criteria = [
        {"name": "greets", "requirement": f"Greets the customer {XSS}"},
        {"name": "policy", "requirement": "Explains the refund policy appropriately"},
        {"name": "blame", "requirement": "Blames the customer", "weight": -10},
    ]
    judges = [{"model": "simulated/a", "params": {"seed": 1}}]
    rubric = tmp_path / "r.yaml"
    rubric.write_text(yaml.safe_dump({"criteria": criteria, "grader": {"judges": judges}}))
    data = tmp_path / "d.jsonl"
    data.write_text(
        "".join(json.dumps({"id": f"i{i}", "submission": f"hi {i}"}) + "\n" for i in range(6))
    )
    done = cli("review", rubric, data, "--out", tmp_path / "rv", "--task", XSS, "-f", fmt)
    assert done.exit_code == 0, done.stderr
    return done.stdout


def test_the_page_is_offline_escaped_and_complete(tmp_path: Path) -> None:
    path = Path(reviewed(tmp_path, "html").strip())
    assert path == tmp_path / "rv" / "review.html"
    with headless_chromium() as browser:
        watched = Watched(browser, path.as_uri(), "#headline")
        page = watched.page
        assert page.locator("script").count() == 0  # no plot, so no script at all
        assert page.locator("#task").inner_text() == XSS  # shown as text
        assert page.locator("img").count() == 0
        assert page.locator("#checks tbody tr").count() == 36
        assert page.locator("#criteria tbody tr").count() == 3
        assert "simulated" in page.locator("#simulated-banner").inner_text().lower()
        page.wait_for_timeout(200)
        assert watched.dialogs == [] and watched.errors == []
        assert [u for u in watched.requests if not u.startswith("file:")] == []
        shot = tmp_path / "review.png"
        page.screenshot(path=str(shot), full_page=True)
    image = Image.open(shot).convert("L")
    assert image.size[1] > 1000 and ImageStat.Stat(image).stddev[0] > 20


def test_markdown_has_the_same_rows(tmp_path: Path) -> None:
    text = reviewed(tmp_path, "markdown")
    assert text.startswith("# Review of `")
    assert "## Checks" in text and "## Criteria" in text
    assert text.count("\n| task_") == 9 and "| greets | binary |" in text
