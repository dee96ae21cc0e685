"""One table, one Wi-Fi, one carrier NAT: the abuse limits against a player at the same address.

At a party everyone shares one Wi-Fi, and on mobile data a carrier's NAT puts
thousands of phones behind one address, so a limit kept per address treats
many people as one. Each test plays what a player at the same table (or a web
page on another site they opened) could do against a real server at the real
limits, and asserts that the others lose nothing: no refusal of a seated
player's own game traffic, and no answer that depends on whether someone else
holds. docs/security.md has the limits these tests run against.
"""

from __future__ import annotations

import json
import socket
import re

import pytest
import requests
import websocket

from client import Player
from harness import AppServer
from harness import forget_counts, status_of, stream_socket

JSON = {"Accept": "application/json"}
ONE_ROUND = {"rounds": 2, "ready_ms": 2000, "result_ms": 2000}
EVIL = "http://evil.example"


@pytest.fixture(scope="module")
def real(redis_url):
    """The game at its real limits (RATE_LIMIT_SCALE 1)."""
    srv = AppServer(redis_url, env={"TA_RATE_LIMIT_SCALE": "1", "TA_EXPOSE_WORKER": "1"})
    yield srv
    srv.stop()


def table(srv: AppServer, n: int = 3, settings: dict | None = None) -> list[Player]:
    """``n`` devices seated in a Time Stake lobby, each following its stream."""
    players = [Player(srv.url) for _ in range(n)]
    code = players[0].create("Host", "stake")
    for i, player in enumerate(players[1:], 1):
        player.join(code, f"Friend {i}")
    players[0].post(f"/r/{code}/settings", settings or ONE_ROUND)
    for player in players:
        player.follow()
    for player in players:
        player.wait_view(lambda v: v["phase"] == "lobby")
    return players


def miss(srv: AppServer, times: int, **headers) -> list[int]:
    """Cookie-less lookups of a code nobody has (what a guesser, or a prankster, sends)."""
    return [requests.get(f"{srv.url}/r/ZZZZ/state", headers={**JSON, **headers},
                         timeout=10).status_code for _ in range(times)]


def play_a_round(srv: AppServer, players: list[Player]) -> None:
    """Everyone's own game traffic works: page, state, stream, hold, release, a host post."""
    code = players[0].code
    for player in players:
        assert player.http.get(f"{srv.url}/r/{code}", headers={"Accept": "text/html"},
                               timeout=10).status_code == 200
        player.state()
    players[0].post(f"/r/{code}/settings", {"rounds": 1})
    players[0].post(f"/r/{code}/start")
    for player in players:
        player.wait_view(lambda v: v["phase"] == "countdown")
    holds = [player.press() for player in players]
    assert all(hold.accepted for hold in holds), [hold.first for hold in holds]
    players[0].wait_view(lambda v: v["phase"] == "spending")
    for hold in holds:
        hold.release()
    players[0].wait_view(lambda v: v["phase"] == "result")
    own = socket_stream(srv, code, players[1])
    assert status_of(own) == 200                     # a stream of one's own, opened again
    own.close()


def socket_stream(srv: AppServer, code: str, player: Player) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
    sock.sendall(f"GET /r/{code}/events?format=json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 f"Cookie: {player.cookie}\r\n\r\n".encode())
    return sock


def test_a_guesser_at_the_table_locks_no_seated_player_out(real, redis_url):
    """Attack 1: trip the address's miss limit, then hope the others' holds are refused."""
    forget_counts(redis_url)
    players = table(real)
    statuses = miss(real, 100)
    assert 429 in statuses                           # the guesser itself is stopped
    play_a_round(real, players)


def test_a_newcomer_with_the_invite_link_joins_while_the_address_is_guessing(real, redis_url):
    """Attack 1, for someone not seated yet: a guesser at the table has spent the address's
    misses. A typed code is refused like any stranger's (the limit cannot tell a friend from
    a guesser), but the invite link's invitation lets the newcomer in -- page, stream, join,
    and a round -- and a made-up invitation does not."""
    forget_counts(redis_url)
    players = table(real, 2)
    code = players[0].code
    page = players[0].http.get(f"{real.url}/r/{code}", headers={"Accept": "text/html"},
                               timeout=10).text
    link = page.split('id="invite-url" class="invite-url" value="', 1)[1].split('"', 1)[0]
    assert link.startswith(f"{real.url}/r/{code}?i=")
    assert 429 in miss(real, 100)
    newcomer = Player(real.url)
    typed = newcomer.http.get(f"{real.url}/r/{code}", timeout=10)
    forged = newcomer.http.get(f"{real.url}/r/{code}?i=0123456789abcdef", timeout=10)
    assert (typed.status_code, forged.status_code) == (429, 429)
    followed = newcomer.http.get(link, headers={"Accept": "text/html"}, timeout=10)
    assert followed.status_code == 200
    own = socket_stream(real, code, newcomer)       # the room's invitation, in a cookie
    assert status_of(own) == 200
    own.close()
    newcomer.join(code, "Newcomer")
    newcomer.follow()
    play_a_round(real, [*players, newcomer])


def test_a_foreign_page_is_refused_before_it_counts(real, redis_url):
    """Attack 1, from a web page on another site: 25 <img> tags (as Chromium sends them)
    and 30 fetches with an Origin are refused, and count against nothing."""
    forget_counts(redis_url)
    images = miss(real, 25, **{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors",
                               "Sec-Fetch-Dest": "image"})
    fetches = miss(real, 30, Origin=EVIL)
    assert set(images) == {403} and set(fetches) == {403}
    assert miss(real, 1) == [404]                    # the address's count is untouched
    # A link followed from another site (the invite in a chat app) is welcome.
    followed = requests.get(f"{real.url}/r/ZZZZ", timeout=10, headers={
        "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"})
    assert followed.status_code == 404


def test_junk_posts_from_the_address_leave_the_host_in_charge(real, redis_url):
    """Attack 2: 301 cookie-less posts (cross-site, then same-site) before the host acts."""
    forget_counts(redis_url)
    players = table(real)
    code = players[0].code
    junk = [requests.post(f"{real.url}/r/{code}/start", json={}, timeout=10,
                          headers={**JSON, "Origin": EVIL}).status_code for _ in range(301)]
    assert set(junk) == {403}
    junk = [requests.post(f"{real.url}/r/{code}/start", json={}, timeout=10,
                          headers=JSON).status_code for _ in range(301)]
    assert 429 in junk and set(junk) <= {403, 429}    # unseated: refused, then limited
    play_a_round(real, players)


def probe(srv: AppServer, code: str, prober: Player) -> dict:
    """An unseated hold socket to another room: what does it answer?"""
    url = srv.url.replace("http", "ws", 1) + f"/r/{code}/hold"
    try:
        ws = websocket.create_connection(url, cookie=prober.cookie, timeout=5)
    except websocket.WebSocketBadStatusException as refused:
        return {"status": refused.status_code}
    try:
        return json.loads(ws.recv())
    finally:
        ws.close()


@pytest.fixture(scope="module")
def few_holds(redis_url):
    """The same, with room for three holds per address (the cap that was per address)."""
    srv = AppServer(redis_url, env={"TA_RATE_LIMIT_SCALE": "1", "MAX_HOLDS_PER_ADDRESS": "3"})
    yield srv
    srv.stop()


def own_game(srv: AppServer) -> Player:
    """A game of the attacker's own against an AI player, at its free window."""
    player = Player(srv.url)
    code = player.create("Eve", "stake")
    player.post(f"/r/{code}/bots", {"action": "add", "difficulty": "easy"})
    player.post(f"/r/{code}/settings", {"rounds": 1, "ready_ms": 10_000})
    player.post(f"/r/{code}/start")
    return player


def test_no_answer_tells_whether_a_player_at_the_address_holds(few_holds, redis_url):
    """Attack 3: fill the hold cap with holds in games of one's own, then probe a rival's
    room with an unseated socket while the rival holds and while nobody does."""
    srv = few_holds
    forget_counts(redis_url)
    victims = table(srv, 2, {"rounds": 1, "ready_ms": 10_000, "result_ms": 2000})
    code = victims[0].code
    games = [own_game(srv) for _ in range(2)]
    victims[0].post(f"/r/{code}/start")
    for player in (*games, victims[0]):
        player.follow()
        player.wait_view(lambda v: v["phase"] == "countdown")
    own = [player.press() for player in games]      # held through the countdown
    assert all(hold.accepted for hold in own), [hold.first for hold in own]
    answers = {}
    for case in ("nobody holds", "a rival holds", "nobody holds again"):
        rival = victims[1].press() if case == "a rival holds" else None
        answers[case] = probe(srv, code, games[0])
        if rival is not None:
            assert rival.accepted
            rival.release()
            assert rival.closed.wait(5)
    print(answers)
    assert len({json.dumps(a, sort_keys=True) for a in answers.values()}) == 1, answers
    assert answers["nobody holds"] == {"type": "refused", "reason": "not_seated"}


def test_streams_from_the_address_leave_a_seated_players_stream_alone(real, redis_url):
    """Attack 4: 40 raw streams without a device, then the victim opens their own."""
    forget_counts(redis_url)
    players = table(real, 2)
    code = players[0].code
    raw = [stream_socket(real, code) for _ in range(40)]
    try:
        assert {status_of(sock) for sock in raw} == {200}
        extra = stream_socket(real, code)
        raw.append(extra)
        assert status_of(extra) == 429                          # strangers are capped
        own = socket_stream(real, code, players[1])
        assert status_of(own) == 200
        own.close()
    finally:
        for sock in raw:
            sock.close()


def test_twenty_phones_behind_one_carrier_address_all_start_a_game(real, redis_url):
    """Attack 5: a carrier NAT, 20 devices, each starting a game against the computer."""
    forget_counts(redis_url)
    statuses = []
    for i in range(20):
        phone = Player(real.url)
        assert phone.http.get(f"{real.url}/", timeout=10).status_code == 200
        statuses.append(phone.post("/solo", {"name": f"P{i}", "players": 4}, None).status_code)
    assert statuses == [201] * 20, statuses


def test_a_flood_of_new_devices_is_stopped_by_its_address(real, redis_url):
    """Devices are what per-device budgets count, so minting them is not free: a device
    is minted only by a commit that worked, page loads mint none, and past the address's
    budget of new devices a visitor's commit is 429 (saying when to come back), while a
    device issued before the flood plays on."""
    forget_counts(redis_url)
    before = Player(real.url)
    before.code = before.post("/solo", {"name": "Early"}, 201).json()["code"]
    loads = [requests.get(f"{real.url}/", timeout=10) for _ in range(70)]
    assert not any("Set-Cookie" in r.headers for r in loads)        # page loads mint nothing
    minted = [requests.post(f"{real.url}/solo", json={"name": "F"}, headers=JSON, timeout=10)
              for _ in range(70)]
    cookies = ["ta_device=" in r.headers.get("Set-Cookie", "") for r in minted]
    assert cookies[:55] == [True] * 55 and not any(cookies[-5:]), cookies
    assert all(r.status_code == 429 and "Set-Cookie" not in r.headers for r in minted[-5:])
    late = Player(real.url)
    refused = late.post("/solo", {"name": "Late"}, 429)
    # The budget of new devices, or the one of new rooms (both 60 a minute): which of
    # the two sliding windows runs out first is the counters' rounding.
    assert refused.json()["error"] in ("too many requests; slow down", (
        f"too many new players from your network just now; try again in "
        f"{refused.headers['Retry-After']} s, or open the room's invite link"))
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert "Set-Cookie" not in refused.headers
    assert before.state()["phase"] == "lobby"           # the device from before plays on
    before.post(f"/r/{before.code}/start")


# -- who the client is --------------------------------------------------------


def client_address(srv_url: str, source: str = "127.0.0.1", **headers) -> requests.Response:
    """A request from ``source`` (any loopback address), as the server saw its client."""
    session = requests.Session()
    adapter = requests.adapters.HTTPAdapter()
    adapter.init_poolmanager(1, 1, source_address=(source, 0))
    session.mount("http://", adapter)
    with session:     # a commit, so that a device is minted (and its cookie seen)
        return session.post(f"{srv_url}/solo", json={"name": "Ann"}, headers={**JSON, **headers},
                            timeout=10)


@pytest.fixture(scope="module")
def proxied_elsewhere(redis_url):
    """One proxy hop is trusted, but only from 127.0.0.2: a client on 127.0.0.1 is direct."""
    srv = AppServer(redis_url, workers=1, env={
        "TA_RATE_LIMIT_SCALE": "1", "TA_EXPOSE_WORKER": "1", "PROXY_HOPS": "1",
        "FORWARDED_ALLOW_IPS": "127.0.0.2"})
    yield srv
    srv.stop()


def test_a_direct_client_cannot_forge_forwarded_headers(proxied_elsewhere, redis_url):
    """Attack 6: with PROXY_HOPS=1 and no proxy in front, a forged X-Forwarded-For escaped
    every limit and a forged X-Forwarded-Proto got a Secure cookie."""
    srv = proxied_elsewhere
    forget_counts(redis_url)
    forged = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example"}
    direct = client_address(srv.url, "127.0.0.1", **{"X-Forwarded-For": "198.51.100.7",
                                                      **forged})
    assert direct.headers["X-Client-Address"] == "127.0.0.1"
    assert "secure" not in direct.headers["Set-Cookie"].lower()
    statuses = [requests.get(f"{srv.url}/r/ZZZZ/state", timeout=10, headers={
        **JSON, "X-Forwarded-For": f"198.51.100.{i}"}).status_code for i in range(150)]
    assert statuses.count(429) >= 80, statuses
    # The trusted proxy's word is taken.
    proxied = client_address(srv.url, "127.0.0.2", **{"X-Forwarded-For": "198.51.100.7",
                                                       **forged})
    assert proxied.headers["X-Client-Address"] == "198.51.100.7"
    assert "secure" in proxied.headers["Set-Cookie"].lower()


def test_an_ipv4_client_seen_through_ipv6_is_its_ipv4_address(proxied_elsewhere):
    """Attack 6: served on [::], every IPv4 client arrives as ::ffff:a.b.c.d, and its /64
    was ::/64 -- one limit bucket for everyone. (Shown through the trusted proxy's header,
    so the test needs no socket bound beyond loopback.)"""
    for mapped, plain in (("::ffff:198.51.100.7", "198.51.100.7"),
                          ("::ffff:203.0.113.9", "203.0.113.9")):
        seen = client_address(proxied_elsewhere.url, "127.0.0.2", **{"X-Forwarded-For": mapped})
        assert seen.headers["X-Client-Address"] == plain
    seen = client_address(proxied_elsewhere.url, "127.0.0.2",
                          **{"X-Forwarded-For": "2001:db8:1:2:3:4:5:6"})
    assert seen.headers["X-Client-Address"] == "2001:db8:1:2::/64"


# -- the Host ---------------------------------------------------------------------


def qr_of(page: str) -> str:
    box = page.index('<div class="qr-box">')
    return page[box:page.index("</svg>", box)]


def test_a_long_ever_new_host_costs_nothing_and_a_bad_one_is_400(real, redis_url):
    """Attack 7: a long, ever-new Host drew a new invite QR per room page (~270 ms of CPU
    each); a 2,450-character one answered 500. The QR is drawn once per room."""
    forget_counts(redis_url)
    host = Player(real.url)
    code = host.create("Host", "stake")
    first = host.http.get(f"{real.url}/r/{code}", headers={"Accept": "text/html"}, timeout=10)
    svg = qr_of(first.text)
    link = re.search(r'id="invite-url" class="invite-url" value="([^"]+)"', first.text).group(1)
    for i in range(5):       # a newcomer with the link (the QR is shown to them too)
        odd = requests.get(link.replace("&amp;", "&"), timeout=10, headers={
            "Accept": "text/html", "Host": f"h{i}-" + "a" * 60 + ".example"})
        assert odd.status_code == 200
        assert qr_of(odd.text) == svg                # the room's QR, not a new one
    for length in (300, 2_300, 2_450):
        bad = host.http.get(f"{real.url}/r/{code}", timeout=10,
                            headers={"Accept": "text/html", "Host": "a" * length})
        assert bad.status_code == 400, (length, bad.status_code)
    assert "Traceback" not in real.output()


@pytest.fixture(scope="module")
def pinned(redis_url):
    """A site that names its public address and the hosts it answers to."""
    srv = AppServer(redis_url, env={"PUBLIC_URL": "https://play.example.com",
                                    "TRUSTED_HOSTS": "127.0.0.1,play.example.com"})
    yield srv
    srv.stop()


def test_the_invite_link_comes_from_the_configured_public_url(pinned):
    host = Player(pinned.url)
    code = host.create("Host", "stake")
    page = host.http.get(f"{pinned.url}/r/{code}", timeout=10, headers={"Accept": "text/html"})
    assert f'value="https://play.example.com/r/{code}?i=' in page.text
    assert f"{pinned.url}/r/{code}" not in page.text


def test_a_host_not_in_the_trusted_list_is_400(pinned):
    assert requests.get(f"{pinned.url}/", timeout=10).status_code == 200
    assert requests.get(f"{pinned.url}/", timeout=10,
                        headers={"Host": "evil.example"}).status_code == 400
