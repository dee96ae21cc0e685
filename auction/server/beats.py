"""One worker's holders' heartbeats and round trips, written to the store together.

Every holder answers a ping every 500 ms (three in its first 300 ms). Writing
its heartbeat and its round trip as each answer came would cost a few Redis
round trips per holder per answer -- once the largest cost of a busy worker.
Instead each hold notes them here, in memory, and one loop writes them all
every 200 ms: one script call per shard of rooms (``Store.beat_many``),
whatever the number of holders, and only the holds with news.
Each flush first reads every socket's latest answer itself (``read``): noted only
at the socket's own pings, the heartbeat would lag a whole ping interval more.

The heartbeat is what another worker's watchdog reads when this worker died
with the socket (rooms.py), so it may lag one interval behind the hold's own
last sign of life: well inside the watchdog's one second.

A hold whose heartbeat cannot be written (its shard's store is away) must end
(``check``), and stays marked so until a write of its news succeeds: a flush
with nothing new to write proves nothing about the store, and what a failed
write carried is kept for the next one.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from .store import UNAVAILABLE, Store, shard

log = logging.getLogger(__name__)

INTERVAL_S = 0.2


@dataclass
class Beat:
    """What one hold socket has noted and not yet written."""

    code: str
    pid: str
    owner: str
    alive_ms: int
    samples: list[int] = field(default_factory=list)   # round trips, oldest first
    dirty: bool = True
    away: Exception | None = None       # why its last write failed, until one succeeds
    read: Callable[[], tuple[int, list[int]]] | None = None    # the socket's news, now


class Beats:
    """The worker's live holds, their last signs of life and fresh round trips."""

    def __init__(self, store: Store):
        self.store = store
        self._beats: dict[str, Beat] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, owner: str, code: str, pid: str, alive_ms: int,
            read: Callable[[], tuple[int, list[int]]] | None = None) -> None:
        with self._lock:
            self._beats[owner] = Beat(code, pid, owner, alive_ms, read=read)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="beats", daemon=True)
                self._thread.start()

    def note(self, owner: str, alive_ms: int, samples: list[int]) -> None:
        """A hold's latest sign of life and the round trips measured since the last note."""
        with self._lock:
            beat = self._beats.get(owner)
            if beat is not None and (samples or alive_ms != beat.alive_ms):  # else nothing new
                beat.alive_ms = alive_ms
                beat.samples.extend(samples)
                beat.dirty = True

    def pending(self, owner: str) -> list[int]:
        """Round trips noted but not yet written, newest first (as the store lists them)."""
        with self._lock:
            beat = self._beats.get(owner)
            return list(reversed(beat.samples)) if beat else []

    def remove(self, owner: str) -> None:
        """The hold ended: write what it still had, and mark its slot free."""
        with self._lock:
            beat = self._beats.pop(owner, None)
        if beat is not None:
            self.store.beat_many([(beat.code, beat.pid, beat.owner, beat.alive_ms,
                                   beat.samples, True)])

    def flush(self) -> None:
        """Write every hold's news: one call per shard. A shard whose write fails keeps
        its holds' news for the next flush and marks them away; then the first failure
        is raised, once every shard has been tried."""
        for b in list(self._beats.values()):
            if b.read is not None:
                self.note(b.owner, *b.read())
        with self._lock:
            batch: dict[int, list[tuple[Beat, list[int]]]] = defaultdict(list)
            for b in self._beats.values():
                if b.dirty:
                    batch[shard(b.code)].append((b, b.samples))
                    b.samples, b.dirty = [], False
        failed: Exception | None = None
        for entries in batch.values():
            try:
                self.store.beat_many([(b.code, b.pid, b.owner, b.alive_ms, samples, False)
                                      for b, samples in entries])
            except UNAVAILABLE as exc:
                failed = failed or exc
                with self._lock:
                    for b, samples in entries:
                        b.samples[:0] = samples
                        b.dirty, b.away = True, exc
            else:
                for b, _ in entries:
                    b.away = None
        if failed is not None:
            raise failed

    def check(self, owner: str) -> None:
        """Raise what the last write of this hold's heartbeat raised, until one succeeds:
        a hold whose heartbeat cannot be kept ends, as its socket would if it wrote the
        heartbeat itself (web/hold.py says 'unavailable'); another worker releases it
        at its last written heartbeat."""
        beat = self._beats.get(owner)
        if beat is not None and beat.away is not None:
            raise beat.away

    def _run(self) -> None:
        stop = threading.Event()
        while not stop.wait(INTERVAL_S):
            try:
                self.flush()
            except UNAVAILABLE:
                log.warning("heartbeats not written: the store is away")
            except Exception:
                log.exception("heartbeats not written")
