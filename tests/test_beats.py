"""The worker's heartbeat batch while the store is away: its holds learn it, and
nothing they noted is lost."""

from __future__ import annotations

import pytest
import redis

from auction.server import store
from auction.server.beats import Beats
from auction.server.store import UNAVAILABLE, Store
from harness import RedisServer


def test_a_hold_whose_heartbeat_cannot_be_written_learns_it_until_one_is():
    """A flush with nothing new writes nothing, so it proves nothing about the store:
    the hold must go on hearing that its last write failed (it once stopped after the
    next, empty, flush: holds whose answers come every 500 ms never heard of an outage
    and were later released at a stale heartbeat without being told). What the failed
    write carried is written once the store is back."""
    server = RedisServer()
    client = redis.Redis.from_url(server.url, socket_connect_timeout=1, socket_timeout=1)
    beats = Beats(Store(client))
    try:
        client.set(store.hold_key("ABCD", "p1"), "s1 1000")
        beats._thread = object()       # type: ignore[assignment]   # no loop: flushed by hand
        beats.add("s1", "ABCD", "p1", 1_000)
        beats.flush()
        beats.check("s1")
        server.crash()
        beats.note("s1", 1_500, [42])
        with pytest.raises(UNAVAILABLE):
            beats.flush()
        with pytest.raises(UNAVAILABLE):
            beats.check("s1")
        with pytest.raises(UNAVAILABLE):
            beats.flush()              # nothing new since: the failed news is tried again
        with pytest.raises(UNAVAILABLE):
            beats.check("s1")
        server.start()
        client.set(store.hold_key("ABCD", "p1"), "s1 1000")
        beats.flush()                  # the news the failed write carried
        beats.check("s1")
        assert client.get(store.hold_key("ABCD", "p1")) == b"s1 1500"
        assert client.lrange(store.rtt_key("ABCD", "p1"), 0, -1) == [b"42"]
    finally:
        client.close()
        server.stop()
