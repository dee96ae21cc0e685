"""What a hold costs the store while nothing happens: no saves, no publishes, and
its heartbeat and round trips written by the worker's batch, not by the socket."""

from __future__ import annotations

import threading
import time

import redis

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




def _session_after_press(latest):
    """A hold session as it stands after its press was saved at version 7."""
    from auction.server.hub import Listener, Published
    from auction.web.hold import HoldSession
    session = HoldSession.__new__(HoldSession)
    session.listener = Listener(hub=None, code="ABCD")
    session.listener.latest = latest
    session.pid, session.round, session.version, session.pressed_ms = "p2", 1, 7, 5_000
    return session, Published


def _record(holds):
    return {"game": {"current": {"number": 1, "holds": holds}}}


def test_a_change_published_before_the_press_does_not_end_the_hold():
    """Two players press a moment apart: the other's press is saved (version 6),
    then this one's (7); the worker may hear of 6 after this socket said "in".
    That older change does not know this hold yet and must not end it (it did:
    the socket said round_over and the watchdog then released the seat at its
    last heartbeat, before spending -- charged nothing, for nothing; seen about
    once in twenty rounds of two players pressing together)."""
    session, Published = _session_after_press(None)
    session.listener.put(Published(6, _record({"p1": [4_990, None]})))
    assert session._still_holding()
    session.listener.put(Published(7, _record({"p1": [4_990, None], "p2": [5_000, None]})))
    assert session._still_holding()
    session.listener.put(Published(8, _record({"p1": [4_990, None], "p2": [5_000, 6_000]})))
    assert not session._still_holding()                     # newer news does end it
    session, Published = _session_after_press(Published(9, {"game": {"current": None}}))
    assert not session._still_holding()                     # the round is gone
