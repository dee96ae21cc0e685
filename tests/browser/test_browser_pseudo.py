"""Nothing left behind (issue 30): on every page and screen, every word a person reads or
hears came from the catalog.

The app runs with the pseudo-English catalog (tests/pseudo.py: every msgstr is its msgid
in ⟦…⟧), and a phone host, a phone guest and a big screen go through the pages around a
game and one whole game with AI seats (tour_helpers.py). On each screen the visible text,
the title, and the labels, titles, alternative text, placeholders and chart descriptions
of visible elements are read; once the ⟦…⟧ segments are gone, only the allow-list may be
left (tests/pseudo.py: names, codes, the server's address, digits and punctuation).
What was left is listed in test-artifacts/pseudo/leftovers.txt.
"""

from __future__ import annotations

import pytest
import requests

import phone
import pseudo
from harness import AppServer
from tour_helpers import data, tour

REPORT = phone.ARTIFACTS / "pseudo" / "leftovers.txt"


@pytest.fixture(scope="module")
def pseudo_server(redis_url, tmp_path_factory):
    catalogs = pseudo.write_catalog(tmp_path_factory.mktemp("pseudo"))
    srv = AppServer(redis_url, env={"TA_TRANSLATIONS": str(catalogs)})
    yield srv
    srv.stop()


def test_every_word_on_every_screen_comes_from_the_catalog(pseudo_server, browser):
    base = pseudo_server.url
    seen: list[tuple[str, list[tuple[str, str]]]] = []

    def look(name, page):
        seen.append((name, pseudo.texts(page)))

    done = None
    try:
        done = tour(browser, base, "en-US", look, bots=2)
    finally:
        allowed = data(done, base)
        problems = [f"{name}: {problem}" for name, texts in seen
                    for problem in pseudo.leftovers(texts, allowed)]
        REPORT.parent.mkdir(parents=True, exist_ok=True)
        REPORT.write_text("".join(p + "\n" for p in problems))
    # The catalog was in use: the home page's words came wrapped.
    assert pseudo.OPEN in dict(seen[0][1])["text"], "the pseudo catalog was not loaded"
    assert not problems, f"{len(problems)} texts outside the catalog (also in {REPORT}):\n" + \
        "\n".join(problems)


def test_the_installed_apps_name_comes_from_the_catalog(pseudo_server):
    manifest = requests.get(pseudo_server.url + "/manifest.webmanifest", timeout=10,
                            headers={"Accept-Language": "en"}).json()
    for field in ("name", "short_name", "description"):
        assert manifest[field].startswith(pseudo.OPEN), (field, manifest[field])

