"""A worker busy when a press or a release arrives still dates it when it arrived.

A loaded worker reaches a socket's data late: tens of ms at a thousand players, and
whatever a garbage collection or a slow store adds. Dated when the worker read them,
a release would cost its player that lateness and a press made just before go would
be refused. The worker here is made busy the surest way: the test stops the server
process (SIGSTOP) while the client's frame or upgrade request is on its way, and lets
it go on 400 ms later. The kernel takes the data meanwhile and notes when
(web/live/wire.py); the charge and the entry must not move.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from client import Hold, Player
from harness import AppServer, RedisServer
from test_fairness import bids, ids, in_round, let_go_after, press_soon, run_all, screen_go

BUSY_S = 0.4
SETTINGS = {"ready_ms": 2000, "result_ms": 2000, "reveal": "all_bids", "own_bank": "shown"}


@pytest.fixture
def table(server):
    made: list[Player] = []

    def seat(rounds: int) -> list[Player]:
        players = [Player(server.url), Player(server.url)]
        made.extend(players)
        code = players[0].create("P0", "stake")
        players[1].join(code, "P1")
        players[0].post(f"/r/{code}/settings", {**SETTINGS, "rounds": rounds})
        for player in players:
            player.follow()
            player.wait_view(lambda v: v["phase"] == "lobby")
        players[0].post(f"/r/{code}/start")
        return players

    yield seat
    for player in made:
        player.stop()


def released_while_busy(server, hold: Hold) -> None:
    """Let go just as the worker stops for BUSY_S: it reads the release that late."""
    os.kill(server.proc.pid, signal.SIGSTOP)
    try:
        hold.release()
        time.sleep(BUSY_S)
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)


def test_a_release_reaching_a_busy_worker_costs_no_more(table, server):
    first, other = table(1)

    def play_first():
        hold = press_soon(first, 1)
        return let_go_after(first, hold, 1, 600, release=lambda: released_while_busy(server, hold))

    held = run_all(play_first, lambda: let_go_after(other, press_soon(other, 1), 1, 1800))
    charged = bids(first, 1)[ids([first])[0]]
    # Dated when the worker read it, the bid would be BUSY_S (400 ms) too high.
    assert abs(charged - held[0]) <= 80, (charged, held[0])


def test_a_press_reaching_a_busy_worker_before_go_is_in(table, server):
    first, other = table(1)

    def press_while_busy():
        time.sleep(max(0.0, screen_go(first, 1) - 0.15 - time.monotonic()))
        opened: list[Hold] = []
        os.kill(server.proc.pid, signal.SIGSTOP)    # the worker is busy from 150 ms before go
        try:
            opener = threading.Thread(target=lambda: opened.append(Hold(first.open_hold())))
            opener.start()
            time.sleep(BUSY_S)                      # ... until 250 ms after it
        finally:
            os.kill(server.proc.pid, signal.SIGCONT)
        opener.join(10)
        hold = opened[0]
        assert hold.accepted, hold.first            # read after go, but it came before
        return let_go_after(first, hold, 1, 600)

    held = run_all(press_while_busy,
                   lambda: let_go_after(other, press_soon(other, 1), 1, 1500))
    charged = bids(first, 1)[ids([first])[0]]
    assert abs(charged - held[0]) <= 80, (charged, held[0])


@pytest.fixture
def second(redis_url):
    """Another worker of the same game: one more `python app.py` on the same store."""
    srv = AppServer(redis_url)
    yield srv
    srv.stop()


def test_a_stream_whose_worker_is_busy_at_spending_costs_its_player_nothing(table, server,
                                                                            second):
    """One player's stream is served by a worker that is busy when spending starts:
    their screen shows it 300 ms after everyone else's, and they hold from then. That
    wait is the server's, not their network's: the release is dated from when their
    own stream was ready to show it, so the hold costs what it was."""
    first, other = table(1)
    first.stop()                    # its stream moves to the second worker
    watcher = Player(second.url)
    watcher.http.cookies.update(first.http.cookies)
    watcher.code = first.code
    watcher.follow()
    watcher.wait_view(lambda v: v["phase"] == "countdown")

    def play_first():
        hold = Hold(first.open_hold())   # its hold goes to the first worker, as before
        assert hold.accepted, hold.first
        go = screen_go(watcher, 1)
        time.sleep(max(0.0, go - 0.1 - time.monotonic()))
        busy_for(second, 0.4)       # from 100 ms before go to 300 ms after it
        return let_go_after(watcher, hold, 1, 600)

    held = run_all(play_first, lambda: let_go_after(other, press_soon(other, 1), 1, 1800))
    assert watcher.view_arrival(lambda v: v["phase"] == "spending") - other.view_arrival(
        lambda v: v["phase"] == "spending") >= 0.2      # the second worker was late indeed
    charged = bids(other, 1)[ids([first])[0]]
    # Dated from the room's publication alone, the bid would be about 300 ms too high.
    assert abs(charged - held[0]) <= 80, (charged, held[0])


def busy_for(server, seconds: float) -> None:
    os.kill(server.proc.pid, signal.SIGSTOP)
    try:
        time.sleep(seconds)
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)


@pytest.fixture
def own_store():
    """A store of this test's own, so it can stop it without touching anyone else's."""
    store = RedisServer()
    srv = AppServer(store.url)
    yield store, srv
    srv.stop()
    store.stop()


STALL_S = 1.3       # past beats.LATE_S (1 s) on any clock that counts the stall


def stalled_with_a_heartbeat_out(store, srv) -> None:
    """The worker stalls while one of its heartbeat writes is out: the store is stopped
    long enough for a flush (every 200 ms) to send one, then the worker stops for
    STALL_S, and the store answers 100 ms after the worker goes on -- as a busy worker's
    writer reaches its answer after the holds it serves have looked at the clock."""
    os.kill(store.proc.pid, signal.SIGSTOP)
    try:
        time.sleep(0.3)
        os.kill(srv.proc.pid, signal.SIGSTOP)
        try:
            time.sleep(STALL_S)
        finally:
            os.kill(srv.proc.pid, signal.SIGCONT)
        time.sleep(0.1)
    finally:
        os.kill(store.proc.pid, signal.SIGCONT)


def test_a_worker_that_stalls_keeps_its_holds(own_store):
    """A worker that is only behind (a burst of work, a long collection) has not lost its
    holders. It sent them no ping while it stalled, so their silence says nothing: it
    released the hold as 'connection_lost' at its last answer before the stall (charged
    about 300 ms of 2.6 s, watched failing), and with that fixed, its own timer loop's
    watchdog released it as 'round_over' at the heartbeat last written (the same charge).
    The hold goes on, and costs what it was held. (The third part, a heartbeat write out
    across the stall judged by the worker's own pace, test_beats.py shows by itself: here
    the writer may read its answer before the hold looks.)"""
    store, srv = own_store
    players = [Player(srv.url), Player(srv.url)]
    try:
        code = players[0].create("P0", "stake")
        players[1].join(code, "P1")
        players[0].post(f"/r/{code}/settings", {**SETTINGS, "rounds": 1})
        for player in players:
            player.follow()
            player.wait_view(lambda v: v["phase"] == "lobby")
        players[0].post(f"/r/{code}/start")
        first, other = players
        holds: list[Hold] = []

        def play_first():
            hold = press_soon(first, 1)
            holds.append(hold)
            first.wait_view(in_round(1, "spending"))
            time.sleep(0.5)
            stalled_with_a_heartbeat_out(store, srv)
            return let_go_after(first, hold, 1, 2600)

        held = run_all(play_first, lambda: let_go_after(other, press_soon(other, 1), 1, 3500))
        # The server said nothing: the hold was the player's to end.
        assert [m for m in holds[0].messages if m.get("type") == "released"] == []
        charged = bids(first, 1)[ids([first])[0]]
        assert abs(charged - held[0]) <= 80, (charged, held[0])
    finally:
        for player in players:
            player.stop()
