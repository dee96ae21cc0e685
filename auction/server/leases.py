"""Connection leases: how many streams or hold sockets one device or address has open.

A lease is one of at most ``cap`` members under a key (the web layer's limits
name the keys and the caps: web/door/limits.py). The members live in the store, so
every worker counts the same, and each runs out by itself: a lease a dead
worker left behind frees its place without anyone dropping it.

A live connection's lease is kept by its worker (``Keeper``), renewed a third of its
life before it would run out, until the connection drops it -- not by the
connection's own writes: a stream whose client stopped reading blocks in its write,
and a lease renewed only after each write ran out while the stream was still open,
so its address could open more than its cap.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time

from .clock import Clock
from .store import Store

log = logging.getLogger(__name__)


class Lease:
    """One open connection's place under ``key``; ``taken`` is False if all were taken."""

    def __init__(self, store: Store, clock: Clock, key: str, cap: int, ttl_ms: int,
                 keeper: Keeper | None = None) -> None:
        self._store = store
        self._clock = clock
        self.key = key
        self.member = secrets.token_hex(8)
        self.ttl_ms = ttl_ms
        self._keeper = keeper
        self.taken = store.take_lease(self.key, self.member, cap, clock.now_ms(), ttl_ms)
        if self.taken and keeper is not None:
            keeper.keep(self)

    def renew(self) -> None:
        """Still open: run out ``ttl_ms`` from now, not before."""
        self._store.renew_lease(self.key, self.member, self._clock.now_ms(), self.ttl_ms)

    def drop(self) -> None:
        if self.taken:
            self.taken = False
            if self._keeper is not None:
                self._keeper.forget(self)
            self._store.drop_lease(self.key, self.member)

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.drop()


class Keeper:
    """The worker's live leases, each renewed a third of its life before it runs out."""

    def __init__(self) -> None:
        self._kept: dict[Lease, float] = {}      # lease -> when to renew it (monotonic)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def keep(self, lease: Lease) -> None:
        with self._lock:
            self._kept[lease] = time.monotonic() + lease.ttl_ms / 3000
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="leases", daemon=True)
                self._thread.start()

    def forget(self, lease: Lease) -> None:
        with self._lock:
            self._kept.pop(lease, None)

    def _run(self) -> None:
        while True:
            time.sleep(0.5)
            now = time.monotonic()
            with self._lock:
                due = [lease for lease, at in self._kept.items() if at <= now]
            for lease in due:
                try:
                    lease.renew()
                except Exception as exc:     # the store away: its TTL holds a while yet
                    log.warning("could not renew a connection lease (%s)", exc)
                with self._lock:
                    if lease in self._kept:
                        self._kept[lease] = time.monotonic() + lease.ttl_ms / 3000
