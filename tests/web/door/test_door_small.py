"""Small doors an attacker found, each tried again against a real server.

1. The language switch's ``next`` sent a browser to another site: "/\\t/evil.example"
   came back as ``Location: //evil.example`` (browsers drop the tab), and a line break
   was a 500. Now only a page of this site is a place to come back to; anything else
   is a 400 in the client's language, and no language is remembered.
2. A lone surrogate ("\\ud800", valid JSON) in a seated player's name raised in the
   name cookie (a 500). Now a field that is not Unicode text is a 400.
3. A post's body sent a byte a second was waited on for ever, under `python app.py`
   and gunicorn. Now a body not in within 10 s is answered 408 and its connection
   closed; a body nobody reads is not drained past that either.

Names that passed for a seated "Alice" ("Alice\\ufe0f", "Ali\\u0307ce") are tried with
the other names in test_host_control.py.
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


# -- 3. a body must arrive in time -----------------------------------------------------

BODY_S = 10         # auction/web/door/body_deadline.py
KEEPALIVE_S = 5     # gunicorn.conf.py: gunicorn drains a body nobody read within its keep-alive


class SlowPost:
    """A post that declares ``length`` bytes, sends its start, then a byte a second, and
    notes when the answer comes and when the server closes the connection."""

    def __init__(self, srv: AppServer, path: str, length: int = 16_000,
                 start: bytes = b'{"name": "Slow", "pad": "'):
        self.sock = socket.create_connection(("127.0.0.1", srv.port), timeout=1)
        self.sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n"
            f"Content-Type: application/json\r\nAccept: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n".encode() + start)
        self.began = time.monotonic()
        self.answer = b""
        self.answered = self.closed = None
        self.sent = len(start)
        threading.Thread(target=self._drip, args=(length,), daemon=True).start()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _drip(self, length: int) -> None:
        while self.closed is None and self.sent < length - 1:
            time.sleep(1)
            try:
                self.sock.sendall(b"x")
            except OSError:
                return
            self.sent += 1

    def _read(self) -> None:
        limit = self.began + BODY_S + KEEPALIVE_S + 10
        while time.monotonic() < limit:
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                data = b""
            if data and self.answered is None:
                self.answered = time.monotonic() - self.began
            self.answer += data
            if not data:
                self.closed = time.monotonic() - self.began
                return

    def result(self) -> tuple[int | None, float | None, float | None]:
        """(status, seconds to the answer, seconds to the close); None: never."""
        self.reader.join()
        self.sock.close()
        status = int(self.answer.split(b" ")[1]) if self.answer else None
        return status, self.answered, self.closed


def _attack(srv: AppServer, results: dict) -> None:
    """Three slow joins (the report sent twenty) and a slow post nobody reads, while a
    guest joins the same room normally and another's body comes in two halves."""
    mark = len(srv.output())
    host = Player(srv.url)
    code = host.create("Ann", "stake")
    slows = [SlowPost(srv, f"/r/{code}/join") for _ in range(3)]
    unread = SlowPost(srv, "/healthz")     # answered without reading (GET only)
    started = time.monotonic()
    Player(srv.url).join(code, "Bob")
    results["normal_s"] = time.monotonic() - started
    # A body slower than any phone's, but in within the deadline, is served.
    halves = socket.create_connection(("127.0.0.1", srv.port), timeout=BODY_S + 5)
    body = json.dumps({"name": "Cy"}).encode()
    halves.sendall(f"POST /r/{code}/join HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n"
                   f"Content-Type: application/json\r\nAccept: application/json\r\n"
                   f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                   + body[:6])
    time.sleep(2)
    halves.sendall(body[6:])
    results["halves"] = halves.recv(100).split(b" ")[1]
    halves.close()
    results["slow"] = [slow.result() for slow in slows]
    results["unread"] = unread.result()
    results["seated"] = seated(host)
    assert_no_traceback(srv, mark)


def test_a_body_sent_a_byte_a_second_is_cut_at_the_deadline_under_both_servers(
        server, gunicorn):
    """Both servers at once, to wait for the deadline once."""
    found: dict[str, dict] = {"app.py": {}, "gunicorn": {}}
    runs = [threading.Thread(target=_attack, args=(srv, found[name]))
            for name, srv in (("app.py", server), ("gunicorn", gunicorn))]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    print(found)        # the figures, for the record (pytest -s)
    for name, seen in found.items():
        assert seen["normal_s"] < 2 and seen["halves"] == b"200", (name, seen)
        # The slow joins: 408 at the deadline (not before), the connection closed with it,
        # and nobody seated by them.
        for status, answered, closed in seen["slow"]:
            assert status == 408, (name, seen)
            assert BODY_S - 0.5 < answered < BODY_S + 3, (name, seen)
            assert closed is not None and closed < BODY_S + 3, (name, seen)
        assert seen["seated"] == ["Ann", "Bob", "Cy"], (name, seen)
        # The post nobody reads: answered at once, and not kept open to drain it.
        status, answered, closed = seen["unread"]
        assert status == 405 and answered < 2, (name, seen)
        bound = BODY_S if name == "app.py" else KEEPALIVE_S
        assert closed is not None and closed < bound + 3, (name, seen)


@pytest.mark.parametrize("serving, bound", [("server", 0), ("gunicorn", KEEPALIVE_S)])
def test_a_body_longer_than_the_bound_is_413_and_not_drained(request, serving, bound):
    """Under python app.py a refused body was drained whole, however slowly it came;
    gunicorn drains it within its keep-alive."""
    slow = SlowPost(request.getfixturevalue(serving), "/rooms", length=20_000_000, start=b"{")
    status, answered, closed = slow.result()
    assert status == 413 and answered < 2, (status, answered, closed)
    assert closed is not None and closed < bound + 2, (status, answered, closed)
