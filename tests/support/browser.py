"""Debian's headless chromium through playwright, as every browser test starts it (never a
downloaded browser: `.ci/run` installs the `chromium` package)."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator

from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright


@contextlib.contextmanager
def headless_chromium() -> Iterator[Browser]:
    executable = shutil.which("chromium")
    assert executable, "Debian's chromium package is needed (.ci/run installs it)"
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
