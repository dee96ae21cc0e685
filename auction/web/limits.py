"""Abuse limits: request rates (flask-limiter on the app's Redis) and concurrent
connections -- per device, and per client address only for what strangers do.

An address is not a person: at a party everyone shares one Wi-Fi, and on
mobile data a carrier's NAT puts thousands of phones behind one address. So
the limits keyed on the address count only strangers -- misses, new rooms,
joins, posts and streams of devices without a seat in the room they name,
and new devices themselves. A device seated in a room is no stranger there:
none of them counts or refuses its own game traffic (its page, state, stream,
hold socket and posts in that room), whatever else its address does. Its own
floods meet the per-device limits, and devices cannot be made up at flood
rates: an address gets only so many new ones (``mint``). Cross-site requests
are refused before any of this (web/__init__.py), so they count for nothing.

The figures stop a guesser of room codes after a few dozen tries per address
and let 20 phones behind one carrier address start games in one minute
(docs/security.md has the reasoning and the tests that show both).
``RATE_LIMIT_SCALE`` multiplies every figure; the test servers raise it, since
every test device shares one loopback address.
"""

from __future__ import annotations

import hmac
import math
import time
from collections.abc import Callable

from flask import Flask, current_app, g, request
from flask_limiter import ApplicationLimit, Limiter
from flask_limiter.errors import RateLimitExceeded
from limits import parse_many
from redis.cluster import RedisCluster

from ..server import Lease, NoSuchRoom, cluster_options
from .common import HOLD_ENDPOINT, invite_token, load_room, room_code, services
from .identity import address, device

# Every endpoint that looks a room up by its code, and so could tell a guesser
# whether a code exists.
LOOKUPS = {"room.room_page", "api.state", "stream.events", "actions.join", HOLD_ENDPOINT,
           "results.page", "results.as_json", "results.as_csv", "screen.screen", "screen.screen_events"}
CREATES = {"actions.create_room", "actions.create_solo"}

# (limit, scope, which requests, counted only when the code was unknown).
# Per address, for strangers only: a device seated in the room is exempt.
BY_ADDRESS = [
    ("60/minute;300/hour", "miss", LOOKUPS, True),
    ("1200/minute", "lookup", LOOKUPS, False),
    ("60/minute;600/hour", "create", CREATES, False),
    ("60/minute", "join", {"actions.join"}, False),
    ("300/minute", "post", None, False),
]
BY_DEVICE = [
    ("20/minute;100/hour", "miss-device", LOOKUPS, True),
    ("5/minute", "create-device", CREATES, False),
    ("60/10 seconds", "post-device", None, False),
]
# The invitation a room page remembers from its invite link (web/room.py).
INVITE_COOKIE = "ta_invite"
# New devices an address may be given (a cookie-less request gets one).
MINT = "60/minute;600/hour"

# Open at once (config MAX_STREAMS_PER_DEVICE, MAX_STREAMS_PER_ADDRESS,
# MAX_HOLDS_PER_DEVICE): a seated player's event streams per device, everyone
# else's per address; hold sockets per device, taken once the socket found its
# seat, so that no refusal depends on whether anyone else holds. Held as
# leases in Redis, so every worker counts the same; a lease a dead worker left
# behind runs out by itself.
STREAM_LEASE_MS = 60_000      # a stream renews its lease at every keep-alive
HOLD_LEASE_MS = 600_000
CAPS = ("MAX_STREAMS_PER_DEVICE", "MAX_STREAMS_PER_ADDRESS", "MAX_HOLDS_PER_DEVICE")


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
        return lambda: request.method == "POST"
    return lambda: request.endpoint in endpoints


def seated() -> bool:
    """Whether this device has a seat in the room the request names (asked once a request)."""
    if "seated" not in g:
        g.seated = _seated()
    return g.seated


def invited() -> bool:
    """Whether the request carries the invitation of the room it names: the invite link's
    ``?i=``, or the cookie the room page set from it (INVITE_COOKIE, scoped to the room)."""
    if "invited" not in g:
        code = (request.view_args or {}).get("code", "")
        sent = request.args.get("i") or request.cookies.get(INVITE_COOKIE) or ""
        g.invited = bool(sent) and _is_invite(code, sent)
    return g.invited


def _is_invite(code: str, sent: str) -> bool:
    try:
        code = room_code(code)
    except NoSuchRoom:
        return False
    return hmac.compare_digest(sent.encode(), invite_token(code).encode())


def _seated() -> bool:
    code = (request.view_args or {}).get("code")
    if not code or g.get("new_device", True) or g.get("deviceless", True):
        return False
    try:
        room = load_room(room_code(code))
    except NoSuchRoom:
        return False
    return room.seat_of(g.device_token) is not None


def _limit(rate: str, scope: str, key, exempt, misses: bool) -> ApplicationLimit:
    return ApplicationLimit(rate, scope=scope, key_function=key, exempt_when=exempt,
                            deduct_when=(lambda r: g.get("missed_room", False)) if misses
                            else None)


def init(app: Flask, client) -> Limiter:
    """The app's limiter, storing its counters in the app's own Redis."""
    scale = app.config["RATE_LIMIT_SCALE"]
    limits: list[str | Callable[[], str] | ApplicationLimit] = [
        _limit(_scaled(rate, scale), scope, address, _for_strangers(endpoints), misses)
        for rate, scope, endpoints, misses in BY_ADDRESS]
    limits += [_limit(_scaled(rate, scale), scope, device, _not(_applies(endpoints)), misses)
               for rate, scope, endpoints, misses in BY_DEVICE]
    if isinstance(client, RedisCluster):   # limits speaks the same redis+cluster:// URLs
        # ...with the store's timeouts: redis-py's defaults wait forever on a vanished
        # node, and every request counts against a limit in some node's slots.
        storage = {"storage_uri": app.config["REDIS_URL"],
                   "storage_options": {"key_prefix": "ta:limit", **cluster_options()}}
    else:
        storage = {"storage_uri": "redis://",
                   "storage_options": {"connection_pool": client.connection_pool,
                                       "key_prefix": "ta:limit"}}
    limiter = Limiter(key_func=address, application_limits=limits,
                      strategy="sliding-window-counter", **storage)
    limiter.request_filter(_own_hold)
    limiter.init_app(app)
    app.extensions["auction_limiter"] = limiter
    app.extensions["auction_mint"] = parse_many(_scaled(MINT, scale))
    app.extensions["auction_caps"] = {name: max(1, round(app.config[name] * scale))
                                      for name in CAPS}
    return limiter


def _own_hold() -> bool:
    """A seated device's hold socket in its own room: that game's hot path (a press a
    round), which no limit of its address or its device counts or refuses -- it is
    exempt from every one, so the limiter does none of its per-request work; the
    device's cap on open holds (``hold_lease``) still applies. Everyone else's hold
    socket meets the limits like any lookup."""
    return request.endpoint == HOLD_ENDPOINT and seated()


def _not(test):
    return lambda: not test()


def _for_strangers(endpoints: set[str] | None):
    """Exempt unless the request is of these and comes from a stranger to the room it
    names: a device without a seat there and without its invitation (the seat is looked
    up only for requests the limit is about)."""
    applies = _applies(endpoints)
    return lambda: not applies() or invited() or seated()


def mint() -> bool:
    """Whether this address may be given one more new device now (counted if so). One
    who follows an invite link always gets one: a newcomer at the table is never shut out
    by a flood from their address, and no invitation opens anything but its room."""
    strategy = current_app.extensions["auction_limiter"].limiter
    key = address()
    fits = all(strategy.hit(item, "mint", key) for item in current_app.extensions["auction_mint"])
    return fits or invited()


def retry_after(exc: RateLimitExceeded) -> int:
    """Seconds until the limit that was hit lets this client in again."""
    current = current_app.extensions["auction_limiter"].current_limit
    if current is not None and current.breached:
        return max(1, math.ceil(current.reset_at - time.time()))
    return exc.limit.limit.get_expiry()


def _lease(key: str, cap: str, ttl_ms: int) -> Lease:
    """One of the connections a device or an address may have open at once (the
    server keeps it: a stream renews and drops it outside any request)."""
    return services().lease(key, current_app.extensions["auction_caps"][cap], ttl_ms)


def stream_lease() -> Lease:
    """A seated player's stream of their room is theirs; anyone else's is the address's."""
    if seated():
        return _lease(f"stream-device:{device()}", "MAX_STREAMS_PER_DEVICE", STREAM_LEASE_MS)
    return _lease(f"stream:{address()}", "MAX_STREAMS_PER_ADDRESS", STREAM_LEASE_MS)


def hold_lease() -> Lease:
    """For a socket that found its seat: the device's, whoever else holds."""
    return _lease(f"hold:{device()}", "MAX_HOLDS_PER_DEVICE", HOLD_LEASE_MS)
