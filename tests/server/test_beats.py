"""The worker's heartbeat batch while the store is away: its holds learn it, and
nothing they noted is lost; a cluster's master that answers nothing holds up no other
shard; a single store takes every shard's heartbeats in one write."""

from __future__ import annotations

import threading
import time

import pytest
import redis

from auction.server import store
from auction.server import beats as beats_module
from auction.server.beats import Beats
from auction.server.store import UNAVAILABLE, Store
from harness import RedisServer


def test_a_hold_whose_heartbeat_cannot_be_written_learns_it_until_one_is():
    """The hold must go on hearing that its heartbeat's write failed until one succeeds
    (it once stopped after the next flush, which then had nothing new to write: holds
    whose answers come every 500 ms never heard of an outage and were later released at
    a stale heartbeat without being told). What the failed write carried is written once
    the store is back."""
    server = RedisServer()
    client = redis.Redis.from_url(server.url, socket_connect_timeout=1, socket_timeout=1)
    beats = Beats(Store(client))
    try:
        client.set(store.hold_key("ABCD", "p1"), "s1 1000")
        beats._thread = object()       # type: ignore[assignment]   # no loop: flushed by hand
        beats.add("s1", "ABCD", "p1", 1_000)
        beats.flush(wait=True)
        beats.check("s1")
        server.crash()
        beats.note("s1", 1_500, [42])
        with pytest.raises(UNAVAILABLE):
            beats.flush(wait=True)
        with pytest.raises(UNAVAILABLE):
            beats.check("s1")
        with pytest.raises(UNAVAILABLE):
            beats.flush(wait=True)              # nothing new since: the failed news is tried again
        with pytest.raises(UNAVAILABLE):
            beats.check("s1")
        server.start()
        client.set(store.hold_key("ABCD", "p1"), "s1 1000")
        beats.flush(wait=True)                  # the news the failed write carried
        beats.check("s1")
        assert client.get(store.hold_key("ABCD", "p1")) == b"s1 1500"
        assert client.lrange(store.rtt_key("ABCD", "p1"), 0, -1) == [b"42"]
    finally:
        client.close()
        server.stop()


class _Frozen:
    """A cluster whose shard ``frozen`` answers nothing (a master that vanished: the
    write waits until ``thaw``) while the others answer at once."""

    cluster = True

    def __init__(self, frozen: int):
        self.frozen = frozen
        self.thaw = threading.Event()
        self.written: list[tuple[str, int, bool]] = []     # (code, alive ms, ended)

    def beat_many(self, entries: list[tuple]) -> None:
        if store.shard(entries[0][0]) == self.frozen:
            self.thaw.wait(10)
            raise redis.TimeoutError("Timeout reading from socket")
        self.written += [(code, alive, ended) for code, _, _, alive, _, ended in entries]


def _code_in_shard(k: int) -> str:
    return next(c for c in (f"R{i:03d}" for i in range(1000)) if store.shard(c) == k)


def test_a_store_that_answers_nothing_holds_up_no_other_shard_and_its_holds_learn_it():
    """A vanished master refuses nothing: its heartbeat write just waits. The holds on
    it must learn within LATE_S that their heartbeats are not kept (else another
    worker releases them at a stale heartbeat without their players hearing of it),
    and the heartbeats of the other shards go on being written meanwhile. The hold
    that ends there writes nothing more (its socket's end must not wait either)."""
    stuck, fine = _code_in_shard(0), _code_in_shard(1)
    frozen = _Frozen(store.shard(stuck))
    beats = Beats(frozen)         # type: ignore[arg-type]
    beats._thread = object()      # type: ignore[assignment]   # no loop: flushed by hand
    try:
        beats.add("s1", stuck, "p1", 1_000)
        beats.add("s2", fine, "p1", 1_000)
        beats.flush()             # the frozen shard's write goes out and waits
        started = time.monotonic()
        alive = 1_000
        while time.monotonic() - started < beats_module.LATE_S * 0.8:
            beats.check("s1")     # not late yet: a slow write is no outage
            beats.check("s2")
            alive += 100
            beats.note("s1", alive, [])
            beats.note("s2", alive, [])
            beats.flush()
            time.sleep(0.1)
        while time.monotonic() - started < beats_module.LATE_S * 1.5:
            alive += 100
            beats.note("s2", alive, [])
            beats.flush()
            time.sleep(0.1)
        with pytest.raises(UNAVAILABLE):
            beats.check("s1")
        beats.check("s2")
        assert beats.lost("s1") and not beats.lost("s2")
        # The other shard's news was written flush after flush, none waiting for the stuck one.
        assert [a for code, a, _ in frozen.written if code == fine][-1] == alive
        beats.remove("s1")        # at once: no write to the store that answers nothing
        assert time.monotonic() - started < beats_module.LATE_S * 1.5 + 1
        beats.remove("s2")
        assert frozen.written[-1] == (fine, alive, True)
        assert all(code == fine for code, _, _ in frozen.written)
    finally:
        frozen.thaw.set()


def test_a_write_out_across_the_workers_own_stall_is_not_the_store_away():
    """A worker that stalls (a burst of work, a long collection) reads its write's
    answer only after the stall. By the wall clock that write was out for the whole
    stall, and every hold of its shard would end 'unavailable' for the worker's own
    slowness (watched failing: raised at once after a 1.3 s stall). Its lateness counts
    on the worker's own pace, each gap between two flushes up to STALL_CAP_S; a store
    that still answers nothing once the worker is awake again is away LATE_S of awake
    time after the write went out."""
    stuck = _code_in_shard(0)
    frozen = _Frozen(store.shard(stuck))
    beats = Beats(frozen)         # type: ignore[arg-type]
    beats._thread = object()      # type: ignore[assignment]   # no loop: flushed by hand
    try:
        beats.add("s1", stuck, "p1", 1_000)
        beats.flush()             # the write goes out and waits
        time.sleep(1.3)           # the worker stalls: no flush, no look
        beats.check("s1")         # awake for 0.4 s of it at most: not late
        assert not beats.lost("s1")
        awake = time.monotonic()
        while True:               # awake again, flushing every 100 ms as the loop does
            beats.flush()
            try:
                beats.check("s1")
            except UNAVAILABLE:
                break
            assert time.monotonic() - awake < beats_module.LATE_S, "never taken for away"
            time.sleep(0.1)
        # Away once the write had been out LATE_S of awake time: the stall's 0.4 s
        # counted, so about 0.6 s after the worker went on.
        assert 0.4 <= time.monotonic() - awake <= beats_module.LATE_S
        assert beats.lost("s1")
    finally:
        frozen.thaw.set()


class _Counting:
    """A single store (no cluster) that notes each write it is given."""

    cluster = False

    def __init__(self):
        self.writes: list[list[tuple]] = []

    def beat_many(self, entries: list[tuple]) -> None:
        self.writes.append(entries)


def test_a_single_store_takes_every_shards_heartbeats_in_one_write():
    """One machine answers for all its shards at once, so a flush makes one write (one
    thread, one round trip) for the holds of every shard, not one per shard; a cluster
    still writes each shard on its own (the test above)."""
    codes = [_code_in_shard(k) for k in range(4)]
    counting = _Counting()
    beats = Beats(counting)       # type: ignore[arg-type]
    beats._thread = object()      # type: ignore[assignment]   # no loop: flushed by hand
    for i, code in enumerate(codes):
        beats.add(f"s{i}", code, "p1", 1_000)
    beats.flush(wait=True)
    [write] = counting.writes
    assert sorted(code for code, *_ in write) == sorted(codes)


def test_one_write_across_shards_keeps_every_heartbeat_on_a_real_store():
    """The one write of a single store spans the slots of several shards in one script
    call: each hold's slot and round trips are written, and its age read back."""
    server = RedisServer()
    client = redis.Redis.from_url(server.url)
    st = Store(client)
    beats = Beats(st)
    beats._thread = object()      # type: ignore[assignment]   # no loop: flushed by hand
    try:
        codes = [_code_in_shard(k) for k in range(3)]
        for i, code in enumerate(codes):
            client.set(store.hold_key(code, "p1"), f"s{i} 1000")    # as the hold's claim left it
            beats.add(f"s{i}", code, "p1", 1_000 + i)
            beats.note(f"s{i}", 2_000 + i, [40 + i])
        beats.flush(wait=True)
        for i, code in enumerate(codes):
            assert client.get(store.hold_key(code, "p1")) == f"s{i} {2_000 + i}".encode()
            assert client.lrange(store.rtt_key(code, "p1"), 0, -1) == [str(40 + i).encode()]
            [(owner, alive, age)] = st.heartbeats([store.hold_key(code, "p1")])
            assert (owner, alive) == (f"s{i}", 2_000 + i) and age is not None and age < 1_000
    finally:
        client.close()
        server.stop()
