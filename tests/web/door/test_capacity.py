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


def test_a_full_worker_turns_new_games_away_and_keeps_running_ones(full):
    ann, bob = Player(full.url), Player(full.url)
    code = ann.create("Ann", "stake")
    bob.join(code, "Bob")
    ann.post(f"/r/{code}/settings", {"ready_ms": 3000, "rounds": 1})
    for p in (ann, bob):
        p.follow()
        p.wait_view(lambda v: v["phase"] == "lobby")
    # Two streams open: full. A new room, a solo game, a join are turned away, clearly.
    for path, body in (("/rooms", {"name": "Cy"}), ("/solo", {"name": "Cy"}),
                       (f"/r/{code}/join", {"name": "Cy"})):
        response = requests.post(full.url + path, json=body, headers=JSON, timeout=5)
        assert response.status_code == 503, (path, response.text)
        assert "full" in response.json()["error"]
        assert int(response.headers["Retry-After"]) > 0
    # The game under way goes on: start, hold, result.
    ann.post(f"/r/{code}/start")
    ann.wait_view(lambda v: v["phase"] == "countdown")
    hold = ann.press()
    assert hold.accepted, hold.first
    ann.wait_view(lambda v: v["phase"] == "spending")
    time.sleep(0.3)
    hold.release()
    view = bob.wait_view(lambda v: v["phase"] in ("result", "ended"), timeout=10)
    assert view["history"][0]["winner"] == ann.state()["me"]["id"]
    for p in (ann, bob):
        p.stop()
