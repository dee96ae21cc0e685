"""Connection leases: how many streams or hold sockets one device or address has open.

A lease is one of at most ``cap`` members under a key (the web layer's limits
name the keys and the caps: web/door/limits.py). The members live in the store, so
every worker counts the same, and each runs out by itself: a lease a dead
worker left behind frees its place without anyone dropping it.
"""

from __future__ import annotations

import secrets

from .clock import Clock
from .store import Store


class Lease:
    """One open connection's place under ``key``; ``taken`` is False if all were taken."""

    def __init__(self, store: Store, clock: Clock, key: str, cap: int, ttl_ms: int) -> None:
        self._store = store
        self._clock = clock
        self.key = key
        self.member = secrets.token_hex(8)
        self.ttl_ms = ttl_ms
        self.taken = store.take_lease(self.key, self.member, cap, clock.now_ms(), ttl_ms)

    def renew(self) -> None:
        """Still open: run out ``ttl_ms`` from now, not before."""
        self._store.renew_lease(self.key, self.member, self._clock.now_ms(), self.ttl_ms)

    def drop(self) -> None:
        if self.taken:
            self.taken = False
            self._store.drop_lease(self.key, self.member)

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.drop()
