"""Small doors an attacker found, each tried again against a real server.

1. The language switch's ``next`` sent a browser to another site: "/\\t/evil.example"
   came back as ``Location: //evil.example`` (browsers drop the tab), and a line break
   was a 500. Now only a page of this site is a place to come back to; anything else
   is a 400 in the client's language, and no language is remembered.
2. A lone surrogate ("\\ud800", valid JSON) in a seated player's name raised in the
   name cookie (a 500). Now a field that is not Unicode text is a 400.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time

import pytest
import requests

from client import Player
from harness import AppServer
from test_bounds import assert_no_traceback

JSON = {"Accept": "application/json"}
EN = {"Accept-Language": "en-GB,en;q=0.9"}
KO = {"Accept-Language": "ko-KR,ko;q=0.9"}


@pytest.fixture(scope="module")
def gunicorn(redis_url):
    """One gevent worker under gunicorn, started from the checkout (gunicorn.conf.py)."""
    srv = AppServer(redis_url, workers=1)
    yield srv
    srv.stop()


def seated(host: Player) -> list[str]:
    return [p["name"] for p in host.state()["players"]]


# -- 1. the language switch comes back only to a page of this site ----------------------

NOT_A_PAGE_HERE = [
    "/\t/evil.example/phish",            # the report's: browsers make it //evil.example/phish
    "/\r\nSet-Cookie: ta_lang=xx",       # a header split (was a 500)
    "/\n/evil.example", "/\r/evil.example",
    "//evil.example/", "/\\evil.example", "/\\/evil.example",
    "https://evil.example/", "javascript:alert(1)", "evil.example", "",
    "/ rules", "/caf\u00e9", "/\x7f", "/\x00",
]
THE_WORDS = "the page to come back to is not a page of this site"


def test_the_language_switch_comes_back_only_to_a_page_of_this_site(server):
    mark = len(server.output())
    # The report's two requests, as written.
    for raw in ("/lang/en?next=/%09/evil.example/phish",
                "/lang/en?next=/%0d%0aSet-Cookie:%20ta_name=x"):
        answer = requests.get(server.url + raw, headers={**EN, **JSON}, timeout=10,
                              allow_redirects=False)
        assert (answer.status_code, answer.headers.get("Location")) == (400, None), raw
        assert answer.json() == {"error": THE_WORDS}
    for target in NOT_A_PAGE_HERE:
        phone = requests.Session()
        answer = phone.get(server.url + "/lang/ko", params={"next": target}, timeout=10,
                           headers={**EN, **JSON}, allow_redirects=False)
        assert (answer.status_code, answer.headers.get("Location")) == (400, None), target
        assert answer.json() == {"error": THE_WORDS}
        assert "ta_lang" not in phone.cookies and "Set-Cookie" not in answer.headers, target
    # Like every refusal, in the client's language and form.
    page = requests.get(server.url + "/lang/en", params={"next": "//evil.example"},
                        headers={**KO, "Accept": "text/html"}, timeout=10,
                        allow_redirects=False)
    assert page.status_code == 400 and '<html lang="ko">' in page.text

    # A page of this site, with its query, still works; no next is the home page.
    phone = requests.Session()
    for target, location in (("/rules", "/rules"), ("/r/ABCD/screen", "/r/ABCD/screen"),
                             ("/join?code=ab%20cd&x=1", "/join?code=ab%20cd&x=1"),
                             (None, "/")):
        params = {} if target is None else {"next": target}
        back = phone.get(server.url + "/lang/ko", params=params, timeout=10,
                         allow_redirects=False)
        assert (back.status_code, back.headers["Location"]) == (303, location), target
        assert phone.cookies.get("ta_lang") == "ko"
    # The switch drawn on a page whose address is not plain ASCII (a "no such page" at
    # /café) still comes back to it.
    lost = requests.get(server.url + "/caf%C3%A9 x", headers=EN, timeout=10)
    assert lost.status_code == 404
    link = re.search(r'href="(/lang/ko\?next=[^"]*)"', lost.text)[1].replace("&amp;", "&")
    back = requests.get(server.url + link, timeout=10, allow_redirects=False)
    assert (back.status_code, back.headers["Location"]) == (303, "/caf%C3%A9%20x")
    assert_no_traceback(server, mark)


# -- 2. text that is not Unicode -------------------------------------------------------


def _post_raw(player: Player, path: str, body: str) -> requests.Response:
    return player.http.post(player.base + path, data=body.encode(), timeout=10,
                            headers={"Content-Type": "application/json", **JSON})


def test_a_lone_surrogate_in_a_field_is_a_clear_400_and_changes_nothing(server):
    mark = len(server.output())
    ann = Player(server.url)
    code = ann.create("Ann", "stake")
    Player(server.url).join(code, "Bob")
    before = ann.state()
    cookie = ann.http.cookies.get("ta_name")
    stranger = Player(server.url)
    # JSON spells them as escapes: json.dumps writes "\ud800" as such.
    name = "name is not valid Unicode text"
    for who, path, body, words in (
            (ann, f"/r/{code}/join", json.dumps({"name": "\ud800"}), name),      # was a 500
            (ann, f"/r/{code}/join", json.dumps({"name": "Ann\udfff"}), name),
            (stranger, f"/r/{code}/join", json.dumps({"name": "\ud800"}), name),
            (stranger, "/rooms", json.dumps({"name": "Cy\ud83d", "preset": "stake"}), name),
            (stranger, f"/r/{code}/join", json.dumps({"name": "Cy", "\ud800": 1}),
             "the body is not valid JSON"),
            (ann, f"/r/{code}/settings", json.dumps({"rounds": ["\udc00"]}),
             "rounds is not valid Unicode text")):
        answer = _post_raw(who, path, body)
        assert (answer.status_code, answer.json()) == (400, {"error": words}), body
    assert ann.state() == before
    assert ann.http.cookies.get("ta_name") == cookie
    assert_no_traceback(server, mark)
