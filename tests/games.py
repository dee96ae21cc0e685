"""A scripted three-player game played through the public protocol, and its checks.

Each player follows its JSON view stream, presses in the countdown, and lets
go a chosen time after *its own stream* showed spending start -- exactly
what a person does. The hold the client made is measured on the client.
"""

from __future__ import annotations

import threading
import time

from client import Player

QUICK_TEST_SETTINGS = {"rounds": 3, "ready_ms": 2000, "free_ms": 1000, "result_ms": 2000,
                       "tie": "margin", "tie_margin_ms": 100}

# round -> player index -> ("spend", ms after spending starts) or ("free", ms after go)
SCRIPT = {
    1: {0: ("spend", 1500), 1: ("spend", 800)},
    2: {0: ("spend", 1000), 1: ("spend", 1040)},     # within the 100 ms margin: a tie
    3: {0: ("free", 300), 2: ("spend", 600)},         # A sits out in the free window
}
BANK = 180_000
HOLDS: dict = {}
TOLERANCE_MS = 15


def set_up(urls: list[str]) -> list[Player]:
    """Three devices (one per url, cycling), seated in a quick room with test timings."""
    players = [Player(urls[i % len(urls)]) for i in range(3)]
    code = players[0].create("Ann", "quick")
    players[1].join(code, "Bob")
    players[2].join(code, "Cy")
    players[0].post(f"/r/{code}/settings", QUICK_TEST_SETTINGS)
    for p in players:
        p.follow()
    return players


def _play_turn(player: Player, rnd: int, plan, holds: dict, key) -> None:
    player.wait_view(lambda v: v["round"] == rnd and v["phase"] == "countdown")
    hold = player.press()
    assert hold.accepted, hold.first
    # A stream sends the newest view: on a starved machine it may skip straight
    # past a short phase, so wait for that phase *or later*.
    later = ("spending", "result") if plan[0] == "spend" else ("free", "spending", "result")
    player.wait_view(lambda v: v["round"] == rnd and v["phase"] in later)
    seen = player.view_arrival(lambda v: v["round"] == rnd and v["phase"] in later)
    time.sleep(max(0.0, seen + plan[1] / 1000 - time.monotonic()))
    let_go = time.monotonic()
    hold.release()
    holds[key] = (let_go - seen) * 1000
    HOLDS[key] = hold       # what the socket said, for a failure's message


def play(players: list[Player], on_round=None) -> dict:
    """Play SCRIPT; returns the client-measured holds {(round, index): ms}."""
    holds: dict = {}
    players[0].post(f"/r/{players[0].code}/start")
    for rnd, plans in SCRIPT.items():
        threads = [threading.Thread(target=_play_turn, args=(players[i], rnd, plan, holds, (rnd, i)))
                   for i, plan in plans.items()]
        for t in threads:
            t.start()
        if on_round:
            on_round(rnd)
        for t in threads:
            t.join(60)
        for p in players:
            p.wait_view(lambda v: v["round"] == rnd and v["phase"] in ("result", "ended"))
    return holds


def check(players: list[Player], holds: dict) -> None:
    """Every charged bid within tolerance of the hold made; winners, ties, banks, table."""
    end = [p.wait_view(lambda v: v["phase"] == "ended", timeout=30) for p in players]
    ids = [v["me"]["id"] for v in end]
    final = end[0]["final"]
    table = {row["round"]: row["bids"] for row in final["bids"]}
    for (rnd, i), held in holds.items():
        bid = table[rnd][ids[i]]
        if SCRIPT[rnd][i][0] == "free":
            assert bid is None, "a release in the free window costs nothing"
        else:
            assert bid is not None and abs(bid - held) <= TOLERANCE_MS, \
                (rnd, i, bid, held, HOLDS[rnd, i].messages)
    assert table[1][ids[2]] is None and table[2][ids[2]] is None
    history = end[0]["history"]
    assert history[0]["winner"] == ids[0]
    assert history[1]["winner"] is None and history[1]["tie"] is True
    assert history[2]["winner"] == ids[2]
    spent = {ids[i]: sum(b for b in (table[r][ids[i]] for r in table) if b) for i in range(3)}
    standings = {row["id"]: row for row in final["standings"]}
    for pid, row in standings.items():
        assert row["bank_ms"] == BANK - spent[pid]
    assert [standings[ids[i]]["place"] for i in range(3)] == [2, 3, 1]
    assert final["winners"] == [ids[2]] and final["last"] == [ids[1]]
    for view in end:   # the end shows everyone the same table
        assert view["final"] == final
