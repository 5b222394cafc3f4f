"""Headless chromium through playwright, as every browser test starts it (never a downloaded
browser: `.ci/run` installs Debian's `chromium` package).

The one rule for a machine without chromium (tests/support/requirements.py, docs/testing.md):
the browser tests are skipped with one reason, unless AUTORUBRIC_REQUIRE_BROWSER=1 (set by
`.ci/run`), where its absence is a failure, so CI never passes without running them.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator

from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from tests.support.requirements import missing

REQUIRE_ENV = "AUTORUBRIC_REQUIRE_BROWSER"
EXECUTABLES = ("chromium", "chromium-browser")
MISSING = (
    "no chromium on PATH: the browser tests need a chromium executable "
    "(Debian/Ubuntu: apt install chromium)"
)


def require_chromium() -> str:
    """The chromium executable; else skip (or fail, when AUTORUBRIC_REQUIRE_BROWSER=1)."""
    for name in EXECUTABLES:
        found = shutil.which(name)
        if found:
            return found
    missing(MISSING, REQUIRE_ENV)


@contextlib.contextmanager
def headless_chromium() -> Iterator[Browser]:
    executable = require_chromium()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True)
        yield browser
        browser.close()


class Watched:
    """A page opened at `url` with its console errors, dialogs (dismissed) and requests
    recorded; `load` (re)opens it and waits for the `ready` selector."""

    def __init__(self, opener: Browser | BrowserContext, url: str, ready: str) -> None:
        self.page: Page = opener.new_page()
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = url
        self.ready = ready
        self.load()

    def load(self) -> None:
        self.page.goto(self.url)
        self.page.wait_for_selector(self.ready, timeout=30_000)
