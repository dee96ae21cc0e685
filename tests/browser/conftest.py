"""Real-browser fixtures: Debian's Chromium driven by Playwright, on a phone screen.

Playwright never downloads a browser here; it drives /usr/bin/chromium. The
app servers come from tests/conftest.py (``server``) or tests/harness.py.
"""

from __future__ import annotations

import os
import shutil

import pytest

import phone

CHROMIUM = "/usr/bin/chromium"


def missing(what: str) -> None:
    """Skip on a developer machine without it; in CI (which installs it) fail loudly."""
    if os.environ.get("CI"):
        pytest.fail(f"{what} (CI must install it: see .ci/run)")
    pytest.skip(what)


@pytest.fixture(scope="session")
def playwright_driver():
    if not os.path.exists(CHROMIUM):
        missing("Debian's chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright_driver):
    chromium = playwright_driver.chromium.launch(executable_path=CHROMIUM, args=phone.ARGS)
    yield chromium
    chromium.close()


@pytest.fixture
def open_phone(browser):
    """Make phone-sized browser contexts; every page's CSP violations and script errors fail the test."""
    contexts = []

    def make(touch: bool = True, locale: str | None = None):
        """``locale``: the browser's language (Accept-Language), e.g. "ko-KR"."""
        language = {"locale": locale} if locale else {}
        ctx = browser.new_context(**phone.context_options(touch), **language)
        contexts.append(ctx)
        page = ctx.new_page()
        phone.watch(page)
        return page

    yield make
    for ctx in contexts:
        for page in ctx.pages:
            phone.check_clean(page)
        ctx.close()


@pytest.fixture(scope="session")
def axe_source(tmp_path_factory):
    """axe-core's browser build, fetched from the npm registry once per run (cached in test-artifacts/)."""
    if shutil.which("npm") is None:
        missing("npm is needed to fetch axe-core")
    return phone.axe_source()
