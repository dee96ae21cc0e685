"""A web page on another site, opened in a real Chromium, tries to lock its reader's
address out of the game: 80 <img> tags and 20 fetches that look up a made-up room.

Browsers tell the server where such requests come from (Fetch Metadata, Origin),
and the server refuses them before they count against any limit, so the reader's
address keeps its whole budget. (Before the fix, 21 of them tripped the address's
miss limit and every lookup from it, a seated player's hold socket too, got 429.)
"""

from __future__ import annotations

import http.server
import threading

import pytest
import requests

from harness import AppServer, free_port
from harness import forget_counts

IMAGES, FETCHES = 80, 20


@pytest.fixture(scope="module")
def real(redis_url):
    srv = AppServer(redis_url, env={"TA_RATE_LIMIT_SCALE": "1"})
    yield srv
    srv.stop()


def foreign_site(target: str) -> tuple[http.server.HTTPServer, str]:
    """A page on another site (localhost is not 127.0.0.1's site) aimed at ``target``."""
    images = "".join(f'<img src="{target}/r/ZZZZ/state?n={i}" alt="">' for i in range(IMAGES))
    script = (f"<script>Promise.allSettled([...Array({FETCHES}).keys()].map(i => "
              f"fetch('{target}/r/ZZZZ/state?f=' + i, {{mode: 'no-cors'}})))"
              ".then(() => document.title = 'done')</script>")
    body = f"<!doctype html><title>prank</title>{images}{script}".encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    site = http.server.HTTPServer(("127.0.0.1", free_port()), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    return site, f"http://localhost:{site.server_port}/"


def test_a_foreign_pages_images_and_fetches_count_for_nothing(real, redis_url, browser):
    forget_counts(redis_url)
    site, url = foreign_site(real.url)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_function("document.title === 'done'", timeout=20_000)
        page.wait_for_load_state("load")
        page.screenshot(path="test-artifacts/foreign-page.png")
    finally:
        context.close()
        site.shutdown()
        site.server_close()
    # Every one of them reached the server and was refused before it counted: the
    # address still has its whole minute of misses.
    statuses = [requests.get(f"{real.url}/r/ZZZZ/state", headers={"Accept": "application/json"},
                             timeout=10).status_code for _ in range(59)]
    assert statuses == [404] * 59, statuses
    # ...and they did reach it (the server's access log), each answered 403.
    log = [line for line in real.output().splitlines() if "/r/ZZZZ/state?" in line]
    assert len(log) == IMAGES + FETCHES, log[:3]
    assert all('" 403 ' in line for line in log), log[:3]
    print(f"{IMAGES} images and {FETCHES} fetches from another site; the address's misses "
          f"afterwards: {statuses.count(404)} of 59 answered")
