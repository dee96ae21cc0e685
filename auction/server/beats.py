"""One worker's holders' heartbeats and round trips, written to the store together.

Every holder answers a ping every 500 ms (three in its first 300 ms). Writing
its heartbeat and its round trip as each answer came would cost a few Redis
round trips per holder per answer -- once the largest cost of a busy worker.
Instead each hold notes them here, in memory, and one loop writes them all
every 200 ms, whatever the number of holders: one script call (``Store.beat_many``)
for all of them on a single store, one per shard of rooms on a cluster (below) --
every live hold, news or not: each write's age tells other workers that this one
still keeps the hold.
Each hold notes every answer the moment its socket reads it (holds.py: ``answered``),
so a flush writes the socket's latest sign of life without asking the socket.

The heartbeat is what another worker's watchdog reads when this worker died
with the socket (rooms.py): it releases a hold whose heartbeat no worker has
written for 1.5 s, at the last sign of life written. A player who fell silent
while this worker lives is this worker's to release (holds.py): on a worker that
is behind, pings go out late and answers are read late, and a heartbeat dated by
the player's last answer would look dead while the player still holds.

A hold whose heartbeat cannot be written (its shard's store is away) must end
(``check``): another worker would take it for gone and release it at its last
written heartbeat, without its player hearing of it. A store that died refuses
the write at once; one that vanished (its machine gone, the network cut) answers
nothing, and the write waits out the client's timeout. So on a cluster each
shard's write goes in a thread of its own -- a master that does not answer holds
up no other shard's heartbeats -- and a shard whose write has been out for
``LATE_S`` counts as away as much as one whose write failed. A single store is one
machine: all its shards answer or none do, so they go in one write (a thread and a
round trip a flush, not sixteen). Either way its holds stay marked until a write of
theirs succeeds, and what a failed write carried is kept for the next one.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field

import redis

from .store import UNAVAILABLE, Store, shard

log = logging.getLogger(__name__)

INTERVAL_S = 0.2
# A shard whose heartbeat write has been out this long is taken for away. Far above
# a write's time on a busy worker (a few ms; the watchdog allows 800 ms for a busy
# worker, rooms.ORPHAN_MS), and below the store client's timeout (2 s on a cluster,
# connection.cluster_options): a hold learns it before a stuck write, tried again
# on a promoted replica, could make its heartbeat look fresh again.
LATE_S = 1.0
# ... counted on this worker's own pace: the time its beats loop was awake to see, each
# gap between two of its wakes counted up to STALL_CAP_S. A worker that stalls (a burst
# of work, a long collection) reads its write's answer late, after the stall; by the
# wall clock that write was out for the whole stall, and the worker would end every hold
# of the shard 'unavailable' for its own slowness. A store that does not answer leaves
# the loop awake, so its silence counts in full.
STALL_CAP_S = 2 * INTERVAL_S


@dataclass
class Beat:
    """What one hold socket has noted and not yet written."""

    code: str
    pid: str
    owner: str
    alive_ms: int
    samples: list[int] = field(default_factory=list)   # round trips, oldest first
    away: Exception | None = None       # why its last write failed, until one succeeds
    lost: bool = False                  # a write of its news ever failed or came late


class Beats:
    """The worker's live holds, their last signs of life and fresh round trips."""

    def __init__(self, store: Store):
        self.store = store
        self._beats: dict[str, Beat] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._writing: dict[int, float] = {}    # shard -> when (pace) its write began
        self._failed: dict[int, Exception] = {}     # shards whose last write failed
        self._paced = 0.0                       # the pace at the loop's last wake
        self._woke = time.monotonic()           # ... and that wake's wall time

    def pace(self) -> float:
        """Seconds this worker was awake to count (LATE_S): the wall clock, less whatever
        of each gap between two flushes (the beats loop's wakes) went past STALL_CAP_S."""
        return self._paced + min(time.monotonic() - self._woke, STALL_CAP_S)

    def _wake(self) -> None:
        self._paced, self._woke = self.pace(), time.monotonic()

    def add(self, owner: str, code: str, pid: str, alive_ms: int) -> None:
        with self._lock:
            self._beats[owner] = Beat(code, pid, owner, alive_ms)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="beats", daemon=True)
                self._thread.start()

    def has(self, owner: str) -> bool:
        """Whether ``owner`` is a live hold of this worker."""
        return owner in self._beats

    def note(self, owner: str, alive_ms: int, samples: list[int]) -> None:
        """A hold's latest sign of life and the round trips measured since the last note."""
        with self._lock:
            beat = self._beats.get(owner)
            if beat is not None:
                beat.alive_ms = alive_ms
                beat.samples.extend(samples)

    def pending(self, owner: str) -> list[int]:
        """Round trips noted but not yet written, newest first (as the store lists them)."""
        with self._lock:
            beat = self._beats.get(owner)
            return list(reversed(beat.samples)) if beat else []

    def remove(self, owner: str) -> None:
        """The hold ended: write what it still had, and mark its slot free -- unless its
        store is away: then the store keeps the last heartbeat it was given (another
        worker releases the hold there), and the socket's end waits for no write."""
        with self._lock:
            beat = self._beats.pop(owner, None)
        if beat is not None and not self._away(beat):
            self.store.beat_many([(beat.code, beat.pid, beat.owner, beat.alive_ms,
                                   beat.samples, True)])

    def flush(self, wait: bool = False) -> None:
        """Write every live hold's heartbeat and news: one call per write group (``_group``),
        each in its own thread. A group whose last write is still out is passed over (its
        news wait for the next flush). ``wait``: return once the writes are done, raising the
        first failure."""
        self._wake()
        with self._lock:
            batch: dict[int, list[tuple[Beat, list[int]]]] = defaultdict(list)
            for b in self._beats.values():
                k = self._group(b.code)
                if k not in self._writing:      # news or not: the write says we keep it
                    batch[k].append((b, b.samples))
                    b.samples = []
            now = self.pace()
            for k in batch:
                self._writing[k] = now
        writers = [threading.Thread(target=self._write, args=(k, entries), daemon=True,
                                    name=f"beats-{k}") for k, entries in batch.items()]
        for w in writers:
            w.start()
        if wait:
            for w in writers:
                w.join()
            failed = [self._failed[k] for k in batch if k in self._failed]
            if failed:
                raise failed[0]

    def _write(self, k: int, entries: list[tuple[Beat, list[int]]]) -> None:
        """One write (of a shard, on a cluster). A failure keeps its holds' news for the
        next flush and marks them away."""
        with self._lock:        # late counts from the write itself, not from its thread's start
            self._writing[k] = self.pace()
        failed: Exception | None = None
        try:
            self.store.beat_many([(b.code, b.pid, b.owner, b.alive_ms, samples, False)
                                  for b, samples in entries])
        except UNAVAILABLE as exc:
            failed = exc
        except Exception:       # not the store's absence: the news is dropped, not retried
            log.exception("heartbeats not written")
        with self._lock:
            del self._writing[k]
            for b, samples in entries:
                if failed is None:
                    b.away = None
                else:
                    b.samples[:0] = samples
                    b.away, b.lost = failed, True
            if failed is None and self._failed.pop(k, None) is not None:
                log.warning("heartbeats of write group %d written again", k)
            elif failed is not None and k not in self._failed:
                self._failed[k] = failed
                log.warning("heartbeats of write group %d not written: the store is away (%s)",
                            k, failed)
            elif failed is not None:
                self._failed[k] = failed

    def _group(self, code: str) -> int:
        """Which write a room's heartbeats go in: their shard's on a cluster, the one
        write of them all (0) on a single store."""
        return shard(code) if self.store.cluster else 0

    def _away(self, beat: Beat) -> Exception | None:
        """Why this hold's heartbeat is not being kept: its last write failed, or its
        shard's write has been out for longer than LATE_S; None: it is kept."""
        if beat.away is not None:
            return beat.away
        began = self._writing.get(self._group(beat.code))
        if began is not None and self.pace() - began > LATE_S:
            beat.lost = True
            return redis.TimeoutError(f"heartbeat not written for "
                                      f"{self.pace() - began:.1f} s")
        return None

    def check(self, owner: str) -> None:
        """Raise why this hold's heartbeat is not being kept (``_away``): a hold whose
        heartbeat cannot be kept ends, as its socket would if it wrote the heartbeat
        itself (web/live/hold.py says 'unavailable'); another worker releases it at its
        last written heartbeat."""
        beat = self._beats.get(owner)
        away = self._away(beat) if beat is not None else None
        if away is not None:
            raise away

    def lost(self, owner: str) -> bool:
        """Whether a write of this hold's heartbeat ever failed or came late: then a
        release by someone else was the store's absence (holds.py)."""
        beat = self._beats.get(owner)
        return beat is not None and beat.lost

    def _run(self) -> None:
        stop = threading.Event()
        while not stop.wait(INTERVAL_S):
            try:
                self.flush()
            except Exception:
                log.exception("heartbeats not written")
