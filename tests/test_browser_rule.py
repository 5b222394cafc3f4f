"""The browser tests' one rule (tests/support/browser.py): without chromium they are skipped
with one reason, and with AUTORUBRIC_REQUIRE_BROWSER=1 (as `.ci/run` sets) they fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.browser import REQUIRE_ENV, headless_chromium, require_chromium

ROOT = Path(__file__).resolve().parents[1]


def no_chromium(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no chromium anywhere


def test_without_chromium_a_browser_test_is_skipped_with_its_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    no_chromium(monkeypatch, tmp_path)
    monkeypatch.delenv(REQUIRE_ENV, raising=False)
    skipped = pytest.raises(pytest.skip.Exception, match="no chromium on PATH: the browser tests")
    with skipped, headless_chromium():
        pass


def test_without_chromium_a_required_browser_is_a_failure(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    no_chromium(monkeypatch, tmp_path)
    monkeypatch.setenv(REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match=f"{REQUIRE_ENV}=1 requires them"):
        require_chromium()


def test_a_chromium_on_path_is_used(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv(REQUIRE_ENV, "1")
    assert require_chromium() == str(fake)


def test_ci_requires_the_browser_tests() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert f"export {REQUIRE_ENV}=1" in script
    assert script.index(f"export {REQUIRE_ENV}=1") < script.index("pytest -q")
