"""One worker's holders' heartbeats and round trips, written to the store together.

Every holder answers a ping every 200 ms. Writing its heartbeat and its round
trip as each answer came would cost a few Redis round trips per holder five
times a second -- the largest cost of a busy worker. Instead each hold notes
them here, in memory, and one loop writes them all every 200 ms: one script
call per shard of rooms (``Store.beat_many``), whatever the number of holders.

The heartbeat is what another worker's watchdog reads when this worker died
with the socket (rooms.py), so it may lag one interval behind the hold's own
last sign of life: well inside the watchdog's one second.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
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


class Beats:
    """The worker's live holds, their last signs of life and fresh round trips."""

    def __init__(self, store: Store):
        self.store = store
        self._beats: dict[str, Beat] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.away: Exception | None = None     # why the last write failed, if it did

    def add(self, owner: str, code: str, pid: str, alive_ms: int) -> None:
        with self._lock:
            self._beats[owner] = Beat(code, pid, owner, alive_ms)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="beats", daemon=True)
                self._thread.start()

    def note(self, owner: str, alive_ms: int, samples: list[int]) -> None:
        """A hold's latest sign of life and the round trips measured since the last note."""
        with self._lock:
            beat = self._beats.get(owner)
            if beat is not None:
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
        """Write every hold's news: one call per shard."""
        with self._lock:
            news = [b for b in self._beats.values() if b.dirty]
            batch = defaultdict(list)
            for b in news:
                batch[shard(b.code)].append((b.code, b.pid, b.owner, b.alive_ms, b.samples, False))
                b.samples, b.dirty = [], False
        for entries in batch.values():
            self.store.beat_many(entries)

    def check(self) -> None:
        """Raise what the last write raised: a hold whose heartbeat cannot be kept
        ends, as its socket would if it wrote the heartbeat itself (web/hold.py says
        'unavailable'); another worker releases it at its last written heartbeat."""
        if self.away is not None:
            raise self.away

    def _run(self) -> None:
        stop = threading.Event()
        while not stop.wait(INTERVAL_S):
            try:
                self.flush()
                self.away = None
            except UNAVAILABLE as exc:
                self.away = exc
                log.warning("heartbeats not written: the store is away")
            except Exception:
                log.exception("heartbeats not written")
