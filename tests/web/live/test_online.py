"""Whole games through the public protocol, on one process and on several workers."""

from __future__ import annotations

import os
import signal
import time

import pytest

import games
from client import Player
from harness import AppServer


def test_whole_quick_game_on_one_process(server):
    players = games.set_up([server.url])
    holds = games.play(players)
    games.check(players, holds)


def each_workers_answers(http, url: str, workers: int = 2, timeout_s: float = 30) -> dict:
    """``url`` asked on fresh connections until each of ``workers`` gunicorn workers has
    answered (X-Worker) or ``timeout_s`` passed, and at least 40 times; every answer, by
    worker. The harness's server is up once one worker answers, and the other may still
    be starting then; and the kernel hands connections to the workers waiting in accept
    unevenly (35 to 5 of 40 is common)."""
    answers: dict[str, list] = {}
    deadline = time.monotonic() + timeout_s
    asked = 0
    while asked < 40 or (len(answers) < workers and time.monotonic() < deadline):
        r = http.get(url, headers={"Connection": "close"}, timeout=5)
        answers.setdefault(r.headers["X-Worker"], []).append(r)
        asked += 1
        if asked >= 40:
            time.sleep(0.05)
    return answers


def test_whole_quick_game_on_two_gunicorn_workers(redis_url):
    srv = AppServer(redis_url, workers=2, env={"TA_EXPOSE_WORKER": "1"})
    try:
        players = games.set_up([srv.url])
        holds = games.play(players)
        games.check(players, holds)
        # Fresh connections land on both workers: the room is served by either.
        answers = each_workers_answers(players[0].http, f"{srv.url}/r/{players[0].code}/state")
        assert len(answers) == 2, answers.keys()
        assert all(r.status_code == 200 for got in answers.values() for r in got)
    finally:
        srv.stop()


def test_one_room_across_two_servers(redis_url):
    """Players of one room on two separate server processes sharing one Redis:
    each process's timer loop may fire the room's deadlines."""
    a, b = AppServer(redis_url), AppServer(redis_url)
    try:
        players = games.set_up([a.url, b.url])
        assert {p.base for p in players} == {a.url, b.url}
        holds = games.play(players)
        games.check(players, holds)
    finally:
        a.stop()
        b.stop()


def test_worker_killed_mid_round_game_finishes(redis_url):
    srv = AppServer(redis_url, workers=2, env={"TA_EXPOSE_WORKER": "1"})
    try:
        ann, bob = Player(srv.url), Player(srv.url)
        code = ann.create("Ann", "stake")
        bob.join(code, "Bob")
        ann.post(f"/r/{code}/settings", {"rounds": 3, "ready_ms": 2000, "result_ms": 2000})
        for p in (ann, bob):
            p.follow()
        ann.post(f"/r/{code}/start")
        ann.wait_view(lambda v: v["phase"] == "countdown")
        held_a, held_b = ann.press(), bob.press()
        assert held_a.accepted and held_b.accepted
        ann.wait_view(lambda v: v["phase"] == "spending")
        seen = ann.view_arrival(lambda v: v["phase"] == "spending")
        time.sleep(max(0.0, seen + 0.5 - time.monotonic()))
        killed_at = (time.monotonic() - seen) * 1000
        os.kill(held_a.first["worker"], signal.SIGKILL)
        time.sleep(max(0.0, seen + 0.8 - time.monotonic()))
        if not held_b.closed.is_set():
            held_b.release()
        end = bob.wait_view(lambda v: v["phase"] == "ended", timeout=60)
        bids = {row["round"]: row["bids"] for row in end["final"]["bids"]}
        assert sorted(bids) == [1, 2, 3]
        a_id = ann.state()["me"]["id"]
        b_id = end["me"]["id"]
        # Ann's socket died with its worker: released at its last-alive moment.
        assert 0 < bids[1][a_id] <= killed_at + 30
        if held_b.first["worker"] != held_a.first["worker"]:
            assert abs(bids[1][b_id] - 800) <= 30
        banks = {row["id"]: row["bank_ms"] for row in end["final"]["standings"]}
        assert banks[a_id] == 600_000 - bids[1][a_id]
        assert banks[b_id] == 600_000 - (bids[1][b_id] or 0)
    finally:
        srv.stop()


@pytest.mark.parametrize("preset", ["auction", "quick", "stake"])
def test_create_and_read_state_for_each_preset(server, preset):
    p = Player(server.url)
    code = p.create("Ann", preset)
    view = p.state()
    assert view["code"] == code and view["phase"] == "lobby"
    assert view["me"]["host"] is True


def test_workers_without_redis_url_share_one_embedded_redis():
    """No REDIS_URL and two workers: both use the one embedded server, never one each."""
    srv = AppServer(None, workers=2, env={"TA_EXPOSE_WORKER": "1"})
    try:
        host = Player(srv.url)
        code = host.create("Ann", "stake")
        host.post(f"/r/{code}/settings", {"rounds": 7})
        answers = each_workers_answers(host.http, f"{srv.url}/r/{code}/state")
        assert len(answers) == 2, answers.keys()
        for got in answers.values():
            assert all(r.status_code == 200 and r.json()["settings"]["rounds"] == 7
                       for r in got), [(r.status_code, r.text[:200]) for r in got]
    finally:
        srv.stop()


def test_streams_survive_redis_dropping_the_subscription(server, redis_url):
    """Redis drops every pub/sub connection: the worker resubscribes (with backoff) and
    its streams carry on, reloading whatever they missed."""
    import redis

    host, guest = Player(server.url), Player(server.url)
    code = host.create("Ann", "stake")
    guest.join(code, "Bob")
    guest.follow()
    guest.wait_view(lambda v: len(v["players"]) == 2)
    killed = redis.Redis.from_url(redis_url).client_kill_filter(_type="pubsub")
    assert killed >= 1
    host.post(f"/r/{code}/settings", {"rounds": 4})
    assert guest.wait_view(lambda v: v["settings"]["rounds"] == 4, timeout=10)
