"""What goes over the wire: static files pre-compressed and cached for a year, pages
compressed, the event stream never compressed nor held back, and the room page's
first load within its byte budget."""

from __future__ import annotations

import gzip
import re
import time

import brotli
import pytest
import requests

from auction.web.pages import render
from client import Player

FIRST_LOAD_BUDGET = 40 * 1024
BROWSER = "gzip, deflate, br, zstd"


def _get(client, url, **headers):
    """A response read whole and closed (WhiteNoise answers with an open file)."""
    response = client.get(url, headers=headers)
    response.get_data()
    response.close()
    return response


def test_static_files_are_precompressed_and_cached_for_a_year(client):
    url = render.asset("vendor/htmx-2.0.11.min.js")
    with open(f"{render.STATIC}/vendor/htmx-2.0.11.min.js", "rb") as f:
        original = f.read()
    br = _get(client, url, **{"Accept-Encoding": "br"})
    assert br.status_code == 200 and br.headers["Content-Encoding"] == "br"
    assert brotli.decompress(br.data) == original
    assert len(br.data) < len(original) / 2
    assert "max-age=31536000" in br.headers["Cache-Control"]
    assert br.headers["X-Content-Type-Options"] == "nosniff"
    gz = _get(client, url, **{"Accept-Encoding": "gzip"})
    assert gz.headers["Content-Encoding"] == "gzip" and gzip.decompress(gz.data) == original
    plain = _get(client, url)
    assert "Content-Encoding" not in plain.headers and plain.data == original


def test_pages_and_json_are_compressed(client):
    home = client.get("/", headers={"Accept-Encoding": "gzip"})
    assert home.headers["Content-Encoding"] == "gzip"
    assert b"Time Auction" in gzip.decompress(home.data)
    code = client.post("/rooms", json={"name": "Ann", "preset": "stake"},
                       headers={"Accept": "application/json"}).json["code"]
    state = client.get(f"/r/{code}/state", headers={"Accept-Encoding": "br"})
    assert state.headers["Content-Encoding"] == "br"
    assert b'"code"' in brotli.decompress(state.data)


def test_event_stream_is_neither_compressed_nor_held_back(server):
    host = Player(server.url)
    code = host.create("Ann", "stake")
    started = time.monotonic()
    stream = host.http.get(f"{server.url}/r/{code}/events", stream=True, timeout=10,
                           headers={"Accept-Encoding": BROWSER})
    try:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        assert "Content-Encoding" not in stream.headers
        first = b""
        for chunk in stream.raw.stream(1024, decode_content=False):
            first += chunk
            if b"event: status" in first:
                break
        # The stream stays open (keep-alives every 15 s), so a compressor that
        # buffered it would have sent nothing yet.
        assert time.monotonic() - started < 5
        assert first.startswith(b"retry: 1000")
    finally:
        stream.close()


@pytest.mark.parametrize("language", ["en", "ko-KR"])
def test_room_page_first_load_fits_its_budget(server, language):
    """The invite link's page and every static file it names, as a browser gets them, in
    each language (a phone set to Korean gets the page in Korean: longer in UTF-8)."""
    guest = requests.Session()
    guest.headers["Accept-Language"] = language
    code = Player(server.url).create("Ann", "stake")
    html = guest.get(f"{server.url}/r/{code}", timeout=10).text
    assert f'<html lang="{language[:2]}"' in html
    # What a browser fetches to show the page: its scripts, stylesheets and favicon
    # (not the home-screen icon, which a phone fetches only when the game is installed).
    scripts = re.findall(r'<script[^>]*\bsrc="(/static/[^"]+)"', html)
    links = re.findall(r'<link rel="(?:stylesheet|icon)"[^>]*\bhref="(/static/[^"]+)"', html)
    assets = sorted(set(scripts + links))
    assert len([a for a in assets if ".js?" in a]) >= 3
    total = 0
    for url in [f"/r/{code}", *assets]:
        response = guest.get(server.url + url, headers={"Accept-Encoding": BROWSER},
                             stream=True, timeout=10)
        assert response.status_code == 200, url
        total += len(response.raw.read(decode_content=False))   # as it crossed the wire
        response.close()
    assert total <= FIRST_LOAD_BUDGET, (language, total)
