"""Debian's headless chromium through playwright, as every browser test starts it (never a
downloaded browser: `.ci/run` installs the `chromium` package)."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator

from playwright.sync_api import Browser, sync_playwright


@contextlib.contextmanager
def headless_chromium() -> Iterator[Browser]:
    executable = shutil.which("chromium")
    assert executable, "Debian's chromium package is needed (.ci/run installs it)"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True)
        yield browser
        browser.close()
