"""The per-worker timer loop: claim due deadlines from Redis, fire ticks.

Deadlines are data (a sorted set in the store), so any worker may fire any
room's tick and a dead worker's rooms carry on. A claim leases the deadline
atomically, so a tick is fired by one worker; if that worker dies before
saving, the lease runs out and another claims it. Precision does not depend
on this loop: the rules apply each transition at its own moment however late
the tick comes, so the loop only decides when players *see* it.

Deadlines are kept in one sorted set per shard of rooms (see store.py); each
pass reads every shard's earliest deadline in one round trip (one per node on
a cluster), claims from the shards that have one due, and sleeps until the
next. The same loop keeps the worker's clock measured against the store's.
While the store is away the loop waits and tries again, saying so once.
"""

from __future__ import annotations

import logging
import threading

from .clock import Clock
from .rooms import LEASE_MS, Rooms
from .store import UNAVAILABLE, Store

log = logging.getLogger(__name__)

# Longest sleep: bounds how late this worker notices a deadline another
# worker scheduled (its own ones wake it at once).
POLL_S = 0.05
# Due rooms claimed per round trip; the last of a batch waits for the ticks before it.
CLAIM_BATCH = 8


class Scheduler:
    """Sleeps until the next deadline or a wake-up, then fires what is due."""

    def __init__(self, rooms: Rooms, store: Store, clock: Clock):
        self.rooms = rooms
        self.store = store
        self.clock = clock
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._next_ms = 0.0     # when this loop will look next, in store time

    def wake(self, at_ms: int | None = None) -> None:
        """A deadline (at ``at_ms``) was set by this worker: look again now, unless
        the loop already means to look before then -- under load, rooms save
        deadlines hundreds of times a second, mostly later than the next look."""
        if at_ms is None or at_ms < self._next_ms:
            self._wake.set()

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="scheduler", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    def _run(self) -> None:
        away = False
        while not self._stop.is_set():
            self._wake.clear()   # before looking: a wake-up during the look is kept
            try:
                self.clock.resync_if_due()
                wait = self.step()
                if away:
                    log.warning("the store is back; timers run again")
                away = False
            except UNAVAILABLE as exc:
                if not away:
                    log.warning("the store is away (%s); timers wait for it", exc)
                away, wait = True, 0.5
            except Exception:
                log.exception("scheduler step failed")
                wait = 0.5
            self._wake.wait(wait)

    def step(self) -> float:
        """Fire every deadline due now; returns how long to sleep before looking again."""
        store, clock = self.store, self.clock
        earliest = store.earliest()
        now = clock.now_ms()
        fired = sum(self._fire(shard) for shard, due in enumerate(earliest)
                    if due is not None and due <= now)
        if fired:
            self._next_ms = now
            return 0.0       # read the fired shards' new deadlines at once
        now = clock.now_ms()
        upcoming = [due for due in earliest if due is not None and due > now]
        wait = min([POLL_S * 1000] + [due - now for due in upcoming])
        self._next_ms = now + wait
        return wait / 1000

    def _fire(self, shard: int) -> int:
        """Claim and tick every due room of one shard, a batch at a time; returns how many."""
        fired = 0
        store, clock = self.store, self.clock
        while True:
            codes = store.claim_due(shard, clock.now_ms(), LEASE_MS, CLAIM_BATCH)
            for code in codes:
                try:
                    self.rooms.tick(code)
                except UNAVAILABLE:
                    raise
                except Exception:
                    log.exception("tick of %s failed; its lease will expire", code)
            fired += len(codes)
            if len(codes) < CLAIM_BATCH:
                return fired
