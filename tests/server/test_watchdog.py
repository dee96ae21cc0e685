"""Another worker's watchdog, against a real store: it releases the holds of a worker
that stopped writing their heartbeats (died, or stalled past 1.5 s), at the last sign
of life written -- and leaves alone a hold whose worker still writes, however old
the player's last answer in it. Under load (bench/load.py, 1,000 players on two
workers) a worker behind by half a second sent its pings late and read their answers
late, and players holding on it were released by the other worker as if gone."""

from __future__ import annotations

import redis

from auction.game import rules
from auction.server.clock import Clock
from auction.server.holds import DEAD_MS
from auction.server.rooms import ORPHAN_MS, Rooms
from auction.server.store import SLOT_KEEP_MS, Store, hold_key


def _holding(redis_url: str):
    """A room of two whose host holds in round 1's spending, and the other player too
    (so the round goes on once the host is released): (client, rooms, code, the host's
    seat, spending start). Game time is passed to each act, so nothing here waits."""
    client = redis.Redis.from_url(redis_url)
    store = Store(client)
    rooms = Rooms(store, Clock(store.time))
    code = rooms.create("t1", "Ann", "stake")
    rooms.join(code, "t2", "Bob")
    rooms.as_player(code, "t1", lambda pid: rules.Start(pid))
    room, _ = rooms.load(code)
    seat, other, rnd = room.seat_of("t1"), room.seat_of("t2"), room.game.current
    assert seat is not None and other is not None and rnd is not None
    for pid in (seat, other):
        rooms.act(code, lambda room: rules.Press(pid, rnd.go_ms - 300), now_ms=rnd.go_ms - 300)
    # The other player's worker keeps writing a fresh heartbeat: never released here.
    assert store.take_slot(hold_key(code, other), "sid-b", rnd.spend_ms + 9_000, DEAD_MS)
    return client, rooms, code, seat, rnd.spend_ms


def _release_ms(rooms: Rooms, code: str, seat: str) -> int | None:
    room, _ = rooms.load(code)
    assert room.game.current is not None
    return room.game.current.holds[seat].release_ms


def test_a_hold_whose_worker_still_writes_is_not_taken_for_gone(redis_url):
    client, rooms, code, seat, spend = _holding(redis_url)
    store, key = rooms.store, hold_key(code, seat)
    now = spend + 4_000
    alive = spend + 1_000       # the player's last answer its worker read: 3 s ago
    assert store.take_slot(key, "sid-a", alive, DEAD_MS)
    store.beat_many([(code, seat, "sid-a", alive, [], False)])   # written just now
    rooms.act(code, lambda room: None, now_ms=now, watchdog=True)
    assert _release_ms(rooms, code, seat) is None, "released while its worker still writes"

    # The worker stops writing (it died): 1.6 s later the hold is released where the
    # heartbeat last said the player was alive -- charged to that moment, not to now.
    client.pexpire(key, SLOT_KEEP_MS - (ORPHAN_MS + 100))
    rooms.act(code, lambda room: None, now_ms=now + 100, watchdog=True)
    assert _release_ms(rooms, code, seat) == alive
    client.close()


def test_a_socket_that_ended_is_released_at_once_at_its_last_sign_of_life(redis_url):
    client, rooms, code, seat, spend = _holding(redis_url)
    store, key = rooms.store, hold_key(code, seat)
    assert store.take_slot(key, "sid-a", spend + 500, DEAD_MS)
    store.beat_many([(code, seat, "sid-a", spend + 700, [], True)])   # "-": the socket ended
    rooms.act(code, lambda room: None, now_ms=spend + 800, watchdog=True)
    assert _release_ms(rooms, code, seat) == spend + 700
    client.close()


def test_a_slot_written_without_an_age_counts_from_its_last_answer(redis_url):
    """A slot with no expiry to tell its write's age by (written by hand, or by a build
    that set none) is judged as before: by the player's last answer."""
    client, rooms, code, seat, spend = _holding(redis_url)
    key = hold_key(code, seat)
    client.set(key, f"sid-a {spend + 1_000}")
    rooms.act(code, lambda room: None, now_ms=spend + 1_000 + ORPHAN_MS, watchdog=True)
    assert _release_ms(rooms, code, seat) is None
    rooms.act(code, lambda room: None, now_ms=spend + 1_001 + ORPHAN_MS, watchdog=True)
    assert _release_ms(rooms, code, seat) == spend + 1_000
    client.close()
