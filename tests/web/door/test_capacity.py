"""A worker that is behind turns new rooms and joins away (503), and keeps its games going."""

from __future__ import annotations

import re
import socket
import time

import pytest
import requests

from auction.web.door import capacity
from auction.web.door.capacity import Capacity
from auction.web.operations import metrics
from client import Player
from harness import AppServer

JSON = {"Accept": "application/json"}


def test_behind_by_its_event_loop_its_holds_or_its_streams():
    cap = Capacity(lag_ms=75, max_holds=2, max_streams=3)
    assert cap.behind() is None
    now = time.monotonic()
    cap._seen.extend([(now, 10.0, 0)] * 7 + [(now, 80.0, 0)] * 3)
    assert cap.behind() == ("lag", "event loop 80 ms late")     # most of the last second
    cap._seen.clear()
    cap._seen.extend([(now, 10.0, 0)] * 9 + [(now, 500.0, 0)])
    assert cap.behind() is None                          # one spike alone is not behind
    cap._seen.clear()
    with cap.serving("holds"), cap.serving("holds"):
        assert cap.behind() == ("holds", "2 holds")
    assert cap.holds == 0 and cap.behind() is None
    cap.streams = 3
    assert cap.behind() == ("streams", "3 streams")
    assert Capacity(0, 0, 0).behind() is None         # every check off


def test_the_first_second_after_warming_up_is_not_most_of_a_second():
    """A fresh worker's first samples alone are not "most of the last second": one slow
    first page was all of them, and the evening's first rooms were turned away."""
    cap = Capacity(lag_ms=75, max_holds=0, max_streams=0, max_waiting=32)
    now = time.monotonic()
    cap._counts_from = now - 0.4
    cap._seen.extend([(now - 0.3, 200.0, 40), (now, 10.0, 40)])
    assert cap.behind() is None and cap.lag_ms() == 0 and cap.waiting() == 0
    cap._counts_from = now - capacity.WINDOW_S
    assert cap.behind() == ("lag", "event loop 200 ms late")


def test_behind_by_the_connections_waiting_to_be_accepted():
    cap = Capacity(lag_ms=0, max_holds=0, max_streams=0, max_waiting=32)
    now = time.monotonic()
    cap._seen.extend([(now, 0.0, 40)] * 8 + [(now, 0.0, 0)] * 2)
    assert cap.behind() == ("queue", "40 connections waiting to be accepted")
    cap._seen.clear()
    # the burst of presses at a round's go, gone within the second: not behind
    cap._seen.extend([(now, 0.0, 0)] * 17 + [(now, 0.0, 170)] * 3)
    assert cap.behind() is None
    assert Capacity(0, 0, 0, max_waiting=0, waiting=lambda: 1_000).behind() is None


def until(test, timeout: float = 10.0):
    """Wait for ``test()`` to hold (the watch samples every 50 ms)."""
    deadline = time.monotonic() + timeout
    while not test() and time.monotonic() < deadline:
        time.sleep(capacity.TICK_S)
    assert test(), "not within the timeout"


def test_the_watch_reads_the_kernels_accept_queue(monkeypatch):
    """Connections the kernel took on the worker's listening socket and nobody accepted
    (a worker too slow to accept them) turn new games away; once they are taken, the
    door opens again within the second it looks back on."""
    monkeypatch.setattr(capacity, "WARMUP_S", 0.0)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    clients = [socket.create_connection(listener.getsockname(), timeout=5) for _ in range(5)]
    metrics.watch_listeners([listener])
    accepted: list[socket.socket] = []
    try:
        cap = Capacity(lag_ms=0, max_holds=0, max_streams=0, max_waiting=5,
                       waiting=metrics.waiting)
        cap.start()
        # A whole second must be seen first: polled, so a busy machine only makes it slower.
        until(lambda: cap.behind() is not None)
        assert cap.behind() == ("queue", "5 connections waiting to be accepted")
        accepted += [listener.accept()[0] for _ in range(5)]
        until(lambda: cap.behind() is None)
        assert cap.waiting() == 0
    finally:
        metrics.watch_listeners([])
        for sock in [*clients, *accepted, listener]:
            sock.close()


def test_the_watch_measures_its_own_oversleep():
    cap = Capacity(lag_ms=1_000, max_holds=0, max_streams=0)
    cap.start()
    time.sleep(0.3)
    assert cap._seen and all(lag >= -1 for _, lag, _ in cap._seen)
    assert cap.lag_ms() < 1_000


@pytest.fixture
def full(redis_url):
    """A worker that counts itself full at two streams."""
    srv = AppServer(redis_url, env={"MAX_STREAMS_PER_WORKER": "2"})
    yield srv
    srv.stop()


# A charged bid within this of the hold its player made, measured from when the
# player's own screen showed spending: the fairness tests' bound (web/live/test_fairness.py).
EXACT_MS = 80


def new_games(url: str) -> dict[str, float]:
    """What the door did with new games, as an operator's scrape of /metrics shows it."""
    text = requests.get(url + "/metrics", timeout=5).text
    return {outcome: float(count) for outcome, count in
            re.findall(r'^ta_new_games_total\{outcome="(\w+)"\} (\S+)$', text, re.MULTILINE)}


def turned_away(url: str, code: str) -> None:
    """A new room, a solo game and a join are each turned away, clearly."""
    for path, body in (("/rooms", {"name": "Cy"}), ("/solo", {"name": "Cy"}),
                       (f"/r/{code}/join", {"name": "Cy"})):
        response = requests.post(url + path, json=body, headers=JSON, timeout=5)
        assert response.status_code == 503, (path, response.text)
        assert "full" in response.json()["error"]
        assert int(response.headers["Retry-After"]) > 0


def test_a_browser_turned_away_keeps_what_it_typed(full):
    """A form post the full worker turns away comes back to the page it came from: the
    name and choices as typed, the reason beside the card pressed, when to try again."""
    ann, bob = Player(full.url), Player(full.url)
    code = ann.create("Ann", "stake")
    bob.join(code, "Bob")
    for p in (ann, bob):
        p.follow()
        p.wait_view(lambda v: v["phase"] == "lobby")     # two streams open: full
    try:
        for path, card, form in (
                ("/rooms", "create", {"name": "Dana Kim", "preset": "quick"}),
                ("/solo", "solo", {"name": "Dana Kim", "difficulty": "hard", "players": "4"}),
                ("/join", "code", {"name": "Dana Kim", "code": code.lower()})):
            page = requests.post(full.url + path, data=form, timeout=5, allow_redirects=False)
            assert page.status_code == 503 and page.headers["Retry-After"] == "15", path
            assert page.headers["Content-Type"].startswith("text/html")
            assert 'value="Dana Kim"' in page.text, path
            assert re.search(rf'id="{card}-error">[^<]*full[^<]*Try again in 15 seconds',
                             page.text), (path, page.text[:2000])
            chosen = {"preset": r'name="preset" value="quick" checked',
                      "difficulty": r'name="difficulty" value="hard" checked',
                      "players": r'value="4" selected', "code": rf'value="{code.lower()}"'}
            for field in form.keys() - {"name"}:
                assert re.search(chosen[field], page.text), (path, field)
        page = requests.post(f"{full.url}/r/{code}/join", data={"name": "Dana Kim"}, timeout=5)
        assert page.status_code == 503 and 'value="Dana Kim"' in page.text
        assert "Try again in 15 seconds" in page.text
        korean = requests.post(full.url + "/rooms", data={"name": "다나"}, timeout=5,
                               headers={"Accept-Language": "ko"})
        assert korean.status_code == 503 and "15초 뒤에 다시 해 보세요" in korean.text
    finally:
        for p in (ann, bob):
            p.stop()


def test_a_full_worker_turns_new_games_away_and_keeps_running_ones(full):
    ann, bob = Player(full.url), Player(full.url)
    code = ann.create("Ann", "stake")
    bob.join(code, "Bob")
    ann.post(f"/r/{code}/settings", {"ready_ms": 3000, "rounds": 1, "reveal": "all_bids",
                                     "own_bank": "shown"})
    for p in (ann, bob):
        p.follow()
        p.wait_view(lambda v: v["phase"] == "lobby")
    turned_away(full.url, code)          # two streams open: full
    seen = new_games(full.url)
    assert seen["let_in"] == 2 and seen["busy_streams"] == 3, seen     # Ann's room, Bob's join
    # The game under way goes on, its bids exact while newcomers knock mid-round.
    ann.post(f"/r/{code}/start")
    holds = {}
    for p in (ann, bob):
        p.wait_view(lambda v: v["phase"] == "countdown")
        holds[p] = p.press()
        assert holds[p].accepted, holds[p].first
    held = {}
    for p, ms in ((bob, 500), (ann, 1200)):      # in the order they let go
        p.wait_view(lambda v: v["phase"] in ("spending", "result", "ended"))
        seen = p.view_arrival(lambda v: v["phase"] == "spending")
        if p is ann:
            turned_away(full.url, code)
        time.sleep(max(0.0, seen + ms / 1000 - time.monotonic()))
        let_go = time.monotonic()
        holds[p].release()
        held[p] = (let_go - seen) * 1000
    view = bob.wait_view(lambda v: v["phase"] in ("result", "ended"), timeout=10)
    [result] = view["history"]
    assert result["winner"] == ann.state()["me"]["id"]
    for p in (ann, bob):
        charged = result["bids"][p.state()["me"]["id"]]
        assert abs(charged - held[p]) <= EXACT_MS, (charged, held[p])
    assert new_games(full.url)["busy_streams"] == 6
    for p in (ann, bob):
        p.stop()
