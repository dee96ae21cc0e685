"""Each device reads its own language (docs/i18n.md), against a real server.

The phone's Accept-Language decides unless the device chose with the switch; two
players at one table, one in Korean and one in English, each see their own words in
the same room, live; the big screen follows its own browser; names are never
translated.
"""

from __future__ import annotations

import re

import requests

from client import Player

HANGUL = re.compile(r"[\uac00-\ud7a3]")
KO = {"Accept-Language": "ko-KR,ko;q=0.9,en;q=0.5"}
EN = {"Accept-Language": "en-GB,en;q=0.9"}
# The language switch names each other language in itself ("한국어" on an English page).
SWITCH = re.compile(r'<nav class="langs".*?</nav>', re.S)


def korean_words(html: str) -> bool:
    """Whether ``html`` says anything in Korean, the language switch aside."""
    return bool(HANGUL.search(SWITCH.sub("", html)))


def _first_burst(session: requests.Session, url: str, until: bytes) -> str:
    """The stream's first messages, up to and including the part named ``until``."""
    stream = session.get(url, stream=True, timeout=10, headers={"Accept": "text/event-stream"})
    try:
        assert stream.status_code == 200, stream.text
        seen = b""
        for chunk in stream.iter_content(1024):
            seen += chunk
            if until in seen and seen.endswith(b"\n\n"):
                break
        return seen.decode()
    finally:
        stream.close()


def test_the_phone_language_decides_and_the_switch_overrides(server):
    phone = requests.Session()
    korean = phone.get(server.url + "/", headers=KO, timeout=10)
    assert '<html lang="ko">' in korean.text and HANGUL.search(korean.text)
    assert "Accept-Language" in korean.headers["Vary"]
    english = requests.get(server.url + "/", headers=EN, timeout=10)
    assert '<html lang="en">' in english.text and not korean_words(english.text)
    assert "한국어" in english.text           # ...and the switch is there to choose it
    # Nothing the browser prefers that the game speaks: English.
    other = requests.get(server.url + "/rules", headers={"Accept-Language": "fr"}, timeout=10)
    assert '<html lang="en">' in other.text

    # The switch remembers the choice for this device and comes back to the page.
    back = phone.get(server.url + "/lang/en?next=/rules", headers=KO, timeout=10,
                     allow_redirects=False)
    assert back.status_code == 303 and back.headers["Location"] == "/rules"
    assert '<html lang="en">' in phone.get(server.url + "/rules", headers=KO, timeout=10).text
    # Only a page of this site to come back to (anything else is refused, the language
    # kept: test_door_small.py tries more); an unknown language changes nothing.
    for target in ("//example.com/", "https://example.com/", "/\\example.com"):
        away = phone.get(server.url + "/lang/ko", params={"next": target}, timeout=10,
                         allow_redirects=False)
        assert (away.status_code, away.headers.get("Location")) == (400, None), target
    assert phone.cookies.get("ta_lang") == "en"
    phone.get(server.url + "/lang/ko?next=/", timeout=10, allow_redirects=False)
    missing = phone.get(server.url + "/lang/xx?next=/", timeout=10, allow_redirects=False)
    assert missing.status_code == 404
    assert phone.cookies.get("ta_lang") == "ko"


def test_two_players_at_one_table_each_read_their_own_language(server):
    host, guest = Player(server.url), Player(server.url)
    host.http.get(server.url + "/lang/ko", timeout=10)          # the host's phone: Korean
    guest.http.headers.update(EN)
    code = host.create("민수", "stake")
    guest.join(code, "Ann")

    ko = _first_burst(host.http, f"{server.url}/r/{code}/events", b"event: players")
    en = _first_burst(guest.http, f"{server.url}/r/{code}/events", b"event: players")
    assert HANGUL.search(ko.replace("민수", ""))
    assert not korean_words(en.replace("민수", ""))
    # Names are data, never words: both read them as typed.
    for burst in (ko, en):
        assert "민수" in burst and "Ann" in burst

    # The big screen follows its own browser, whoever opened the room.
    screen = requests.Session()
    shown = screen.get(f"{server.url}/r/{code}/screen", headers=KO, timeout=10)
    assert '<html lang="ko">' in shown.text
    screen.headers.update(KO)
    live = _first_burst(screen, f"{server.url}/r/{code}/screen/events", b"event: ")
    assert HANGUL.search(live.replace("민수", ""))


def test_a_refusal_comes_in_the_players_language(server):
    host = Player(server.url)
    code = host.create("Ann", "stake")
    ko = requests.post(f"{server.url}/r/{code}/join", json={"name": ""}, timeout=10,
                       headers={**KO, "Accept": "application/json"})
    en = requests.post(f"{server.url}/r/{code}/join", json={"name": ""}, timeout=10,
                       headers={**EN, "Accept": "application/json"})
    assert ko.status_code == en.status_code == 400
    assert HANGUL.search(ko.json()["error"])
    assert en.json()["error"] == "a name is needed"


def test_the_servers_own_refusals_come_in_the_clients_language(server):
    """An unknown address, a method it does not take and a body too large: the client's
    language and form (a page or JSON), never Werkzeug's English page."""
    page = {**KO, "Accept": "text/html"}
    missing = requests.get(server.url + "/no/such/page", headers=page, timeout=10)
    assert missing.status_code == 404 and '<html lang="ko">' in missing.text
    assert "이 주소에는 아무것도 없어요" in missing.text and "Not Found" not in missing.text
    english = requests.get(server.url + "/no/such/page", headers={**EN, "Accept": "text/html"},
                           timeout=10)
    assert english.status_code == 404 and "There is nothing at this address." in english.text

    wrong = requests.delete(server.url + "/rules", headers={**KO, "Accept": "application/json"},
                            timeout=10)
    assert wrong.status_code == 405 and "GET" in wrong.headers["Allow"]
    assert wrong.json()["error"] == "이 주소는 그런 요청을 받지 않아요"

    code = Player(server.url).create("Ann", "stake")
    big = requests.post(f"{server.url}/r/{code}/join", data=b"x" * 2_000_000, timeout=10,
                        headers={**EN, "Accept": "application/json",
                                 "Content-Type": "application/octet-stream"})
    assert big.status_code == 413, big.text
    assert big.json()["error"] == "that is more than the server takes"
