"""A worker busy when a press or a release arrives still dates it when it arrived.

A loaded worker reaches a socket's data late: tens of ms at a thousand players, and
whatever a garbage collection or a slow store adds. Dated when the worker read them,
a release would cost its player that lateness and a press made just before go would
be refused. The worker here is made busy the surest way: the test stops the server
process (SIGSTOP) while the client's frame or upgrade request is on its way, and lets
it go on 400 ms later. The kernel takes the data meanwhile and notes when
(web/wire.py); the charge and the entry must not move.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from client import Hold, Player
from test_fairness import bids, ids, let_go_after, press_soon, run_all, screen_go

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
