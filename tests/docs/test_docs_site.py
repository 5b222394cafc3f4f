"""The docs site builds with `mkdocs build --strict`, and that build fails on a broken link.

`.ci/run` runs the same build; these tests make the README's test command catch a broken site
too, and prove the check can fail: a build whose warnings were hidden (`--quiet`) once passed
with seven broken links.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.docs.doc_blocks import ROOT


def build(root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,  # hang guard
    )


def copy_site_sources(into: Path) -> Path:
    shutil.copytree(ROOT / "docs", into / "docs")
    shutil.copy(ROOT / "mkdocs.yml", into / "mkdocs.yml")
    return into


def test_the_site_builds_in_strict_mode_with_no_warning(tmp_path: Path) -> None:
    result = build(ROOT, tmp_path / "site")
    warnings = [line for line in result.stderr.splitlines() if "WARNING" in line]
    assert result.returncode == 0, result.stderr
    assert warnings == []
    assert (tmp_path / "site" / "index.html").is_file()


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    root = copy_site_sources(tmp_path / "src")
    page = root / "docs" / "guides" / "ci.md"
    page.write_text(page.read_text() + "\nSee [the missing page](../no-such-page.md).\n")
    result = build(root, tmp_path / "site")
    assert result.returncode != 0
    assert "no-such-page.md" in result.stderr
