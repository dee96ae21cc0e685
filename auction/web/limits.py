"""Abuse limits: request rates (flask-limiter on the app's Redis) and concurrent
connections, per client address (as ProxyFix found it) and per device.

The figures are set so that a guesser of room codes is stopped after a few
dozen tries while a table of eight behind one home router never notices
(docs/security.md has the reasoning and the tests that show both).
``RATE_LIMIT_SCALE`` multiplies every figure; the test servers raise it, since
every test device shares one loopback address.
"""

from __future__ import annotations

import math
import secrets
import time

from flask import Flask, current_app, g, request
from flask_limiter import ApplicationLimit, Limiter
from flask_limiter.errors import RateLimitExceeded
from redis.cluster import RedisCluster

from .common import services
from .identity import address, device

# Every endpoint that looks a room up by its code, and so could tell a guesser
# whether a code exists.
LOOKUPS = {"room.room_page", "api.state", "stream.events", "actions.join", "__flask_sock.hold",
           "results.page", "results.as_json", "results.as_csv", "screen.screen", "screen.screen_events"}
CREATES = {"actions.create_room", "actions.create_solo"}

# (limit, scope, key, which requests, counted only when the code was unknown)
RATES = [
    ("20/minute;100/hour", "miss", address, LOOKUPS, True),
    ("20/minute;100/hour", "miss-device", device, LOOKUPS, True),
    ("600/minute", "lookup", address, LOOKUPS, False),
    ("10/minute;60/hour", "create", address, CREATES, False),
    ("5/minute", "create-device", device, CREATES, False),
    ("30/minute", "join", address, {"actions.join"}, False),
    ("300/minute", "post", address, None, False),
    ("60/10 seconds", "post-device", device, None, False),
]

# Open at once, per address (config MAX_STREAMS_PER_ADDRESS, MAX_HOLDS_PER_ADDRESS):
# event streams (a page each, and a big screen) and hold sockets (one per seat
# at most). Held as leases in Redis, so every worker counts the same; a lease
# a dead worker left behind runs out by itself.
STREAM_LEASE_MS = 60_000      # a stream renews its lease at every keep-alive
HOLD_LEASE_MS = 600_000


def missed_room() -> None:
    """Record that this request named a room that does not exist (or is locked)."""
    g.missed_room = True


def _scaled(limits: str, scale: float) -> str:
    parts = []
    for part in limits.split(";"):
        amount, _, per = part.partition("/")
        parts.append(f"{max(1, round(int(amount) * scale))}/{per}")
    return ";".join(parts)


def _applies(endpoints: set[str] | None):
    if endpoints is None:
        return lambda: request.method != "POST"
    return lambda: request.endpoint not in endpoints


def init(app: Flask, client) -> Limiter:
    """The app's limiter, storing its counters in the app's own Redis."""
    scale = app.config["RATE_LIMIT_SCALE"]
    limits = [ApplicationLimit(_scaled(rate, scale), scope=scope, key_function=key,
                               exempt_when=_applies(endpoints),
                               deduct_when=(lambda r: g.get("missed_room", False)) if misses
                               else None)
              for rate, scope, key, endpoints, misses in RATES]
    if isinstance(client, RedisCluster):   # limits speaks the same redis+cluster:// URLs
        storage = {"storage_uri": app.config["REDIS_URL"],
                   "storage_options": {"key_prefix": "ta:limit"}}
    else:
        storage = {"storage_uri": "redis://",
                   "storage_options": {"connection_pool": client.connection_pool,
                                       "key_prefix": "ta:limit"}}
    limiter = Limiter(key_func=address, application_limits=limits,
                      strategy="sliding-window-counter", **storage)
    limiter.init_app(app)
    app.extensions["auction_limiter"] = limiter
    app.extensions["auction_caps"] = tuple(
        max(1, round(app.config[name] * scale))
        for name in ("MAX_STREAMS_PER_ADDRESS", "MAX_HOLDS_PER_ADDRESS"))
    return limiter


def retry_after(exc: RateLimitExceeded) -> int:
    """Seconds until the limit that was hit lets this client in again."""
    current = current_app.extensions["auction_limiter"].current_limit
    if current is not None and current.breached:
        return max(1, math.ceil(current.reset_at - time.time()))
    return exc.limit.limit.get_expiry()


class Lease:
    """One of the connections an address may have open at once. It keeps the
    worker's services: a stream renews and drops it outside any request."""

    def __init__(self, kind: str, cap: int, ttl_ms: int):
        self.key = f"conc:{kind}:{address()}"
        self.member = secrets.token_hex(8)
        self.ttl_ms = ttl_ms
        self.svc = services()
        self.taken = self.svc.store.take_lease(self.key, self.member, cap,
                                               self.svc.clock.now_ms(), ttl_ms)

    def renew(self) -> None:
        self.svc.store.renew_lease(self.key, self.member, self.svc.clock.now_ms(), self.ttl_ms)

    def drop(self) -> None:
        if self.taken:
            self.taken = False
            self.svc.store.drop_lease(self.key, self.member)


def stream_lease() -> Lease:
    return Lease("stream", current_app.extensions["auction_caps"][0], STREAM_LEASE_MS)


def hold_lease() -> Lease:
    return Lease("hold", current_app.extensions["auction_caps"][1], HOLD_LEASE_MS)
