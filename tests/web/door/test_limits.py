"""Abuse limits at their real figures (RATE_LIMIT_SCALE 1): a guesser of codes and
a flood of rooms are stopped, a table of eight behind one router never notices,
invented device tokens are not devices, and no raw token is ever stored.
(What a player at the same address can do to the others: test_one_address.py.)"""

from __future__ import annotations

import random
import re
import socket
import threading
import time

import pytest
import redis
import websocket
from itsdangerous import URLSafeSerializer

from client import Player
from harness import AppServer, forget_counts, random_code, status_of, stream_socket

JSON = {"Accept": "application/json"}


@pytest.fixture(scope="module")
def real(redis_url):
    """The game on a real server at its real limits."""
    srv = AppServer(redis_url, env={"TA_RATE_LIMIT_SCALE": "1"})
    yield srv
    srv.stop()


@pytest.fixture
def one_hold(redis_url):
    """The same, but a device may hold only one hold socket at once."""
    srv = AppServer(redis_url, env={"TA_RATE_LIMIT_SCALE": "1", "MAX_HOLDS_PER_DEVICE": "1"})
    yield srv
    srv.stop()


def test_a_guesser_of_codes_is_stopped(strict, redis_url):
    """1,000 tries from one address, spread over every way to look a code up."""
    rng = random.Random(7)
    guesser = strict.test_client()
    statuses = []
    for i in range(1_000):
        code = random_code(rng, redis_url)
        kind = i % 5
        if kind == 0:
            response = guesser.get(f"/r/{code}/state", headers=JSON)
        elif kind == 1:
            response = guesser.get(f"/r/{code}")
        elif kind == 2:
            response = guesser.get(f"/r/{code}/events?format=json", headers=JSON)
        elif kind == 3:
            response = guesser.get(f"/r/{code}/results.json", headers=JSON)
        else:
            response = guesser.post(f"/r/{code}/join", json={"name": "G"}, headers=JSON)
        statuses.append(response.status_code)
        response.close()
    refused = statuses.count(429) / len(statuses)
    print(f"guesser: {statuses.count(429)} of {len(statuses)} refused with 429")
    assert refused >= 0.9
    assert set(statuses) <= {404, 429}


def test_a_guesser_with_a_new_device_every_time_is_stopped_by_its_address(strict, redis_url):
    """60 misses a minute per address (a carrier NAT's worth of typos), then 429."""
    rng = random.Random(8)
    statuses = [strict.test_client().get(f"/r/{random_code(rng, redis_url)}/state", headers=JSON).status_code
                for _ in range(200)]
    assert statuses[:60] == [404] * 60 and set(statuses[60:]) == {429}


def test_a_429_says_when_to_come_back(strict):
    guesser = strict.test_client()
    assert guesser.post("/solo", json={"name": "G"}, headers=JSON).status_code == 201  # a device
    for _ in range(21):
        response = guesser.get("/r/ZZZZ/state", headers=JSON)
    assert response.status_code == 429
    assert response.get_json() == {"error": "too many requests; slow down"}
    assert 1 <= int(response.headers["Retry-After"]) <= 61      # within the minute


def test_a_flood_of_new_rooms_without_cookies_is_stopped(strict):
    """An address may create 60 rooms a minute (20 phones behind a carrier NAT starting
    games at once are well inside it); a flood without cookies gets no more."""
    statuses = [strict.test_client().post("/rooms", json={"name": "F"}, headers=JSON).status_code
                for _ in range(150)]
    assert statuses.count(201) <= 60
    assert statuses.count(429) >= 90


def test_too_many_posts_from_one_device_are_429(strict):
    host = strict.test_client()
    code = host.post("/rooms", json={"name": "Ann"}, headers=JSON).get_json()["code"]
    statuses = [host.post(f"/r/{code}/settings", json={"rounds": 3 + i % 2},
                          headers=JSON).status_code for i in range(70)]
    assert statuses[:59] == [200] * 59       # the creation was post number 1
    assert set(statuses[59:]) == {429}


def test_an_invented_device_token_is_replaced(strict):
    client = strict.test_client()
    client.set_cookie("ta_device", "x" * 40)
    response = client.post("/solo", json={"name": "Ann"}, headers=JSON)
    issued = re.search(r"ta_device=([^;]+)", str(response.headers)).group(1)
    assert issued != "x" * 40
    forged = URLSafeSerializer("not-the-secret", salt="ta-device").dumps("y" * 32)
    client.set_cookie("ta_device", forged)
    assert "ta_device=" in str(client.post("/solo", json={"name": "Ann"}, headers=JSON).headers)
    client.set_cookie("ta_device", issued)    # a token the server signed is kept
    assert "ta_device=" not in str(client.post("/solo", json={"name": "Ann"},
                                               headers=JSON).headers)


def test_open_streams_are_capped_per_address(real, redis_url):
    forget_counts(redis_url)
    host = Player(real.url)
    code = host.create("Ann")
    socks = [stream_socket(real, code) for _ in range(40)]
    try:
        assert {status_of(s) for s in socks} == {200}
        extra = stream_socket(real, code)
        assert status_of(extra) == 429
        extra.close()
    finally:
        for s in socks:
            s.close()
        host.stop()


def test_open_holds_are_capped_per_device(one_hold, redis_url):
    """One device seated in two rooms (each of its seats may hold once) holds in one;
    its socket in the other is refused once seated, and let in when the first ends."""
    real = one_hold
    forget_counts(redis_url)
    me, other = Player(real.url), Player(real.url)
    codes = []
    for _ in range(2):
        code = other.create("Host", "stake")
        me.join(code, "Me")
        other.post(f"/r/{code}/settings", {"ready_ms": 10_000})
        other.post(f"/r/{code}/start")
        codes.append(code)
    me.code = codes[0]
    first = me.press()
    assert first.accepted
    me.code = codes[1]
    refused = me.press()
    assert refused.first == {"type": "refused", "reason": "too_many_holds"}
    first.release()                    # a hold that ends gives its place back
    assert first.closed.wait(5)
    deadline = time.monotonic() + 3
    while not (second := me.press()).accepted:
        assert time.monotonic() < deadline, ("the ended hold kept its place", second.first)
        time.sleep(0.1)
    for p in (me, other):
        p.stop()


def test_a_table_of_eight_behind_one_router_is_never_limited(real, redis_url):
    """Eight phones, one address: pages, streams, joins, a host fiddling with
    settings, two rounds of holds, reloads -- not one 429."""
    forget_counts(redis_url)
    seen: list[int] = []
    lock = threading.Lock()
    phones = [Player(real.url) for _ in range(8)]
    def note(response, *args, **kwargs):
        with lock:
            seen.append(response.status_code)
    for phone in phones:
        phone.http.hooks["response"].append(note)
    code = phones[0].create("Host", "stake")
    for i, phone in enumerate(phones[1:], 1):
        phone.http.get(f"{real.url}/r/{code}")            # the invite link
        phone.join(code, f"Friend {i}")
    for phone in phones:
        phone.follow()
    for rounds in (3, 4, 2):
        phones[0].post(f"/r/{code}/settings", {"rounds": rounds, "ready_ms": 2000,
                                               "result_ms": 2000})
    phones[0].post(f"/r/{code}/start")
    for rnd in (1, 2):
        for phone in phones:
            phone.wait_view(lambda v: v["round"] == rnd and v["phase"] == "countdown")
        holds = [phone.press() for phone in phones]
        assert all(h.accepted for h in holds), [h.first for h in holds]
        phones[0].wait_view(lambda v: v["phase"] == "spending")
        for i, hold in enumerate(holds):
            time.sleep(0.05 * i)
            hold.release()
        for phone in phones:
            phone.http.get(f"{real.url}/r/{code}")        # everyone reloads the page
            phone.state()
    phones[0].wait_view(lambda v: v["phase"] == "ended", timeout=30)
    assert 429 not in seen and len(seen) >= 50      # besides 16 holds and 8 streams

    # And nothing stored or logged names a device by its token.
    tokens = set()
    for phone in phones:
        cookie = phone.http.cookies["ta_device"]
        tokens |= {cookie, URLSafeSerializer("test-secret", salt="ta-device").loads(cookie)}
    keys = " ".join(k.decode() for k in redis.Redis.from_url(redis_url).scan_iter("*"))
    log = real.output()
    for token in tokens:
        assert token not in keys and token not in log
    for phone in phones:
        phone.stop()


def test_a_seated_device_holds_in_its_own_game_whatever_its_misses(real, redis_url):
    """A device that spent its own misses (20 a minute) on made-up codes is refused
    those lookups, but its hold socket in its own game meets no limit at all; a
    stranger's device with the same misses spent meets them at its socket too."""
    forget_counts(redis_url)
    rng = random.Random(9)
    host, me, stranger = Player(real.url), Player(real.url), Player(real.url)
    code = host.create("Host", "stake")
    me.join(code, "Me")
    host.post(f"/r/{code}/settings", {"ready_ms": 10_000})
    host.post(f"/r/{code}/start")
    stranger.post("/solo", {"name": "Stranger"}, 201)        # a device of its own
    stranger.code = code
    for device in (me, stranger):
        statuses = [device.http.get(f"{real.url}/r/{random_code(rng, redis_url)}/state",
                                    timeout=5).status_code for _ in range(25)]
        assert statuses[:20] == [404] * 20 and set(statuses[20:]) == {429}, statuses
    hold = me.press()
    assert hold.first == {"type": "in"}, hold.first
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        stranger.open_hold()
    assert refused.value.status_code == 429
    hold.release()
    for p in (host, me, stranger):
        p.stop()
