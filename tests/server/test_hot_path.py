"""What a hold costs the store while nothing happens: no saves, no publishes, and
its heartbeat and round trips written by the worker's batch, not by the socket."""

from __future__ import annotations

import threading
import time

import redis

from auction.game import rules
from auction.server import store
from client import Player


def test_a_hold_costs_no_save_and_no_publish_while_nothing_changes(server, redis_url):
    ann, bob = Player(server.url), Player(server.url)
    code = ann.create("Ann", "stake")
    bob.join(code, "Bob")
    ann.post(f"/r/{code}/settings", {"ready_ms": 10_000})
    ann.post(f"/r/{code}/start")
    ann.follow()
    ann.wait_view(lambda v: v["phase"] == "countdown")
    client = redis.Redis.from_url(redis_url)
    sub = client.pubsub(ignore_subscribe_messages=True)
    sub.subscribe(store.channel(code))
    try:
        hold = ann.press()
        assert hold.accepted
        drained = time.monotonic() + 0.5          # the press itself is news
        while time.monotonic() < drained:
            sub.get_message(timeout=0.1)
        version = int(client.hget(store.room_key(code), "v"))
        beat = client.get(store.hold_key(code, "p1")).split()
        # Two seconds of holding: pings answered, the watchdog looking five times.
        published = []
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            message = sub.get_message(timeout=0.1)
            if message:
                published.append(message)
        assert published == []
        assert int(client.hget(store.room_key(code), "v")) == version
        later = client.get(store.hold_key(code, "p1")).split()
        assert later[0] == beat[0] and int(later[1]) > int(beat[1])    # alive, batched
        assert client.llen(store.rtt_key(code, "p1")) >= 5              # round trips kept
        hold.release()
        ann.wait_view(lambda v: not v["me"]["holding"])
    finally:
        sub.close()
        client.close()
        ann.stop()
        bob.stop()




def _hold_after_press(latest):
    """A hold as it stands after its press was saved at version 7: seat p2, in round 1,
    its bank running dry at 6 s; the clock at 5.5 s."""
    from types import SimpleNamespace

    from auction.server.holds import Hold
    from auction.server.hub import Listener
    from auction.server.record import Room
    clock = SimpleNamespace(now_ms=lambda: 5_500)
    hold = Hold(None, None, clock, None, None, 0, "ABCD", "token",
                Room(rules.new_game("ABCD")), arrived_ms=5_000, opened_ms=5_000)
    hold.seat, hold.round, hold.version, hold.runs_out = "p2", 1, 7, 6_000
    hold._listener = Listener(hub=None, code="ABCD")
    hold._listener.latest = latest
    return hold


def _published(version, holds, number=1):
    """The room as published at ``version``: round ``number`` with these [press, release]."""
    from auction.server.hub import Published
    from auction.server.record import Room
    game = rules.new_game("ABCD")
    if holds is not None:
        game.current = rules.Round(number, 0, 3_000, 4_000,
                                   {pid: rules.Hold(*hold) for pid, hold in holds.items()})
    return Published(version, Room(game).to_record())


def test_a_change_published_before_the_press_does_not_end_the_hold():
    """Two players press a moment apart: the other's press is saved (version 6),
    then this one's (7); the worker may hear of 6 after this socket said "in".
    That older change does not know this hold yet and must not end it (it did:
    the socket said round_over and the watchdog then released the seat at its
    last heartbeat, before spending -- charged nothing, for nothing; seen about
    once in twenty rounds of two players pressing together)."""
    hold = _hold_after_press(None)
    assert hold.ended() is None                             # no news: still held
    hold._listener.put(_published(6, {"p1": [4_990, None]}))
    assert hold.ended() is None
    hold._listener.put(_published(7, {"p1": [4_990, None], "p2": [5_000, None]}))
    assert hold.ended() is None
    hold._listener.put(_published(8, {"p1": [4_990, None], "p2": [5_000, 6_000]}))
    assert hold.ended() == "bank_empty"                     # newer news does end it
    hold = _hold_after_press(_published(9, None))
    assert hold.ended() == "round_over"                     # the round is gone
    hold = _hold_after_press(_published(9, {"p2": [5_000, None]}, number=2))
    assert hold.ended() == "round_over"                     # another round: this one is over
