"""The per-worker timer loop: claim due deadlines from Redis, fire ticks.

Deadlines are data (a sorted set in the store), so any worker may fire any
room's tick and a dead worker's rooms carry on. A claim leases the deadline
atomically, so a tick is fired by one worker; if that worker dies before
saving, the lease runs out and another claims it. Precision does not depend
on this loop: the rules apply each transition at its own moment however late
the tick comes, so the loop only decides when players *see* it.
"""

from __future__ import annotations

import logging
import threading

from .rooms import LEASE_MS, Rooms

log = logging.getLogger(__name__)

# Longest sleep: bounds how late this worker notices a deadline another
# worker scheduled (its own ones wake it at once).
POLL_S = 0.05


class Scheduler:
    """Sleeps until the next deadline or a wake-up, then fires what is due."""

    def __init__(self, rooms: Rooms):
        self.rooms = rooms
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = None

    def wake(self) -> None:
        """A deadline was set by this worker: look again now."""
        self._wake.set()

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="scheduler", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.run_due()
                self._sleep()
            except Exception:
                log.exception("scheduler step failed")
                self._stop.wait(0.5)

    def run_due(self) -> int:
        """Fire every deadline due now; returns how many."""
        fired = 0
        store, clock = self.rooms.store, self.rooms.clock
        while (code := store.claim_due(clock.now_ms(), LEASE_MS)) is not None:
            try:
                self.rooms.tick(code)
            except Exception:
                log.exception("tick of %s failed; its lease will expire", code)
            fired += 1
        return fired

    def _sleep(self) -> None:
        due = self.rooms.store.next_due()
        wait = POLL_S
        if due is not None:
            wait = min(POLL_S, max(0.0, (due - self.rooms.clock.now_ms()) / 1000))
        self._wake.wait(wait)
        self._wake.clear()
