"""A worker that is behind turns new rooms and joins away (503), and keeps its games going."""

from __future__ import annotations

import time

import pytest
import requests

from auction.web.door.capacity import Capacity
from client import Player
from harness import AppServer

JSON = {"Accept": "application/json"}


def test_behind_by_its_event_loop_its_holds_or_its_streams():
    cap = Capacity(lag_ms=75, max_holds=2, max_streams=3)
    assert cap.behind() is None
    now = time.monotonic()
    cap._lags.extend([(now, 10.0)] * 7 + [(now, 80.0)] * 3)
    assert cap.behind() == "event loop 80 ms late"     # most of the last second
    cap._lags.clear()
    cap._lags.extend([(now, 10.0)] * 9 + [(now, 500.0)])
    assert cap.behind() is None                          # one spike alone is not behind
    cap._lags.clear()
    with cap.serving("holds"), cap.serving("holds"):
        assert cap.behind() == "2 holds"
    assert cap.holds == 0 and cap.behind() is None
    cap.streams = 3
    assert cap.behind() == "3 streams"
    assert Capacity(0, 0, 0).behind() is None         # every check off


def test_the_watch_measures_its_own_oversleep():
    cap = Capacity(lag_ms=1_000, max_holds=0, max_streams=0)
    cap.start()
    time.sleep(0.3)
    assert cap._lags and all(lag >= -1 for _, lag in cap._lags)
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


def turned_away(url: str, code: str) -> None:
    """A new room, a solo game and a join are each turned away, clearly."""
    for path, body in (("/rooms", {"name": "Cy"}), ("/solo", {"name": "Cy"}),
                       (f"/r/{code}/join", {"name": "Cy"})):
        response = requests.post(url + path, json=body, headers=JSON, timeout=5)
        assert response.status_code == 503, (path, response.text)
        assert "full" in response.json()["error"]
        assert int(response.headers["Retry-After"]) > 0


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
    for p in (ann, bob):
        p.stop()
