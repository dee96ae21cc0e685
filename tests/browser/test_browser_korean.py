"""Korean on a 390 px phone (issue 30): a room of eight (two people, six AI seats) through
the lobby, a round and the end, and the pages around it, all in Korean.

On every screen: the page does not scroll sideways, nothing reaches past the screen's
edge (tour_helpers.beyond), no text sticks out of its own box (tour_helpers.spills),
nothing is left in English but names, codes and what Korean writes in Latin letters
(docs/i18n.md), and ``<html lang="ko">``. Each screen is photographed to
test-artifacts/ko/<screen>.png (the big screen at 1280×720) to be looked at: a test
cannot see a clipped glyph or a missing font.
"""

from __future__ import annotations

import os
import subprocess

import pytest

import phone
import pseudo
from tour_helpers import beyond, data, english_left, spills, tour


def hangul_font() -> None:
    """Without a font for Hangul every Korean letter is a box (Debian: fonts-noto-cjk)."""
    found = subprocess.run(["fc-list", ":lang=ko", "family"], capture_output=True, text=True)
    if not found.stdout.strip():
        message = "no font with Hangul (apt-get install fonts-noto-cjk; see .ci/run)"
        pytest.fail(message) if os.environ.get("CI") else pytest.skip(message)


def test_every_screen_fits_a_phone_in_korean(server, browser):
    hangul_font()
    base = server.url
    problems: list[str] = []
    texts: list[tuple[str, list[tuple[str, str]]]] = []

    def look(name, page):
        problems.extend(f"{name}: {p}" for p in beyond(page))
        problems.extend(f"{name}: text wider than its box: {p}" for p in spills(page))
        lang = page.evaluate("document.documentElement.lang")
        if lang != "ko":
            problems.append(f"{name}: <html lang={lang!r}>")
        texts.append((name, pseudo.texts(page)))
        phone.shot(page, f"ko/{name}")

    done = tour(browser, base, "ko-KR", look, bots=6)
    assert done.seated == 8, done.names
    allowed = data(done, base)
    for name, seen in texts:
        problems.extend(f"{name}: English left: {p}" for p in english_left(seen, allowed))
    assert not problems, f"{len(problems)} problems in Korean:\n" + "\n".join(problems)
