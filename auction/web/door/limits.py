"""Abuse limits: request rates (flask-limiter on the app's Redis) and concurrent
connections -- per device, and per client address only for what strangers do.

An address is not a person: at a party everyone shares one Wi-Fi, and on
mobile data a carrier's NAT puts thousands of phones behind one address. So
the limits keyed on the address count only strangers to the room a request
names: misses, new rooms, joins, posts and streams of clients with neither a
seat there nor its invitation. A device seated in a room is no stranger there:
no limit of its address, nor its device's budget of misses, counts or refuses
its own game traffic (its page, state, stream, hold socket and posts in that
room). Whoever carries the room's invitation (its invite link, or the cookie the
link left) is no stranger either: they are counted by their address *and that
room*, so only others holding the same invitation at the same address share
their budget. Devices are minted only when a visitor commits (``mint``), so a
page load spends nothing. Cross-site requests are refused before any of this
(web/__init__.py), and misses a link from another site made a device send are
counted by its address, never against the device.

The figures stop a guesser of room codes after a few dozen tries per address
and let 20 phones behind one carrier address start games in one minute
(docs/security.md has the reasoning, the threat model and the tests that show
both). ``RATE_LIMIT_SCALE`` multiplies every figure; the test servers raise it,
since every test device shares one loopback address.
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

from ...server import Lease, LimiterStorage, NoSuchRoom
from . import identity
from ..common import HOLD_ENDPOINT, invitation, load_room, room_code, services
from .identity import address, device
from ..respond import error
from ..pages.words import N_

# Every endpoint that looks a room up by its code, and so could tell a guesser
# whether a code exists.
LOOKUPS = {"room.room_page", "api.state", "stream.events", "actions.join", HOLD_ENDPOINT,
           "results.page", "results.as_json", "results.as_csv", "screen.screen", "screen.screen_events", "screen.tv"}
CREATES = {"actions.create_room", "actions.create_solo"}
# What a visitor commits to, and so what mints its device (identity.commit).
COMMITS = CREATES | {"actions.join"}

# (limit, scope, which requests, what spends it). What spends a budget is what it
# bounds: MISSES, the lookups of a room that does not exist (what a guesser makes);
# EVERY request it applies to, where a flood of them is what it stops (lookups,
# posts); or only what WORKED, where the budget is an allowance of commits (new rooms,
# joins, new devices), so a refused attempt -- a name the room turned down, a bad
# setting -- costs nobody's budget (checked before, spent after, by the answer).
MISSES, EVERY, WORKED = "misses", "every", "worked"
# Per address, for strangers only: a device seated in the room is exempt.
BY_ADDRESS = [
    ("60/minute;300/hour", "miss", LOOKUPS, MISSES),
    ("1200/minute", "lookup", LOOKUPS, EVERY),
    ("60/minute;600/hour", "create", CREATES, WORKED),
    ("60/minute", "join", {"actions.join"}, WORKED),
    ("300/minute", "post", None, EVERY),
]
# Per address and room, for those who carry the room's invitation and have no seat
# there: a table of eight newcomers behind one Wi-Fi, reloading.
BY_INVITATION = [
    ("600/minute", "invited-lookup", LOOKUPS, EVERY),
    ("30/minute", "invited-join", {"actions.join"}, WORKED),
]
# Per device (a device seated in the room a lookup names never misses there, and a
# miss another site's link made the device send is its address's, not its own).
BY_DEVICE = [
    ("20/minute;100/hour", "miss-device", LOOKUPS, MISSES),
    ("5/minute", "create-device", CREATES, WORKED),
    ("60/10 seconds", "post-device", None, EVERY),
]
# Per device, of its own room (where no other limit counts it): its page, state,
# stream and big screen, two a second on average -- a phone that reloads ten times in
# ten seconds (a page and a stream each) is far under it; 1,500 pages in 15 s are not.
# Its hold socket is the game itself and counts against none (``_own_hold``).
OWN_ROOM = ("120/minute", "own-lookup", LOOKUPS - {HOLD_ENDPOINT}, EVERY)
# The invitation a room page remembers from its invite link (web/pages/room.py).
INVITE_COOKIE = "ta_invite"
# New devices (visitors' commits that mint one): per address for strangers; per
# address and room for the room's invitation, so one invitation mints at most this
# many an hour from one address, and only its holders there can spend them.
MINT = "60/minute;600/hour"
MINT_INVITED = "20/hour"

# Open at once (config MAX_STREAMS_PER_DEVICE, MAX_STREAMS_PER_INVITATION,
# MAX_STREAMS_PER_ADDRESS, MAX_HOLDS_PER_DEVICE): a seated (or invited) device's
# event streams per device and room, an invited visitor's per address and room,
# a stranger's per address; hold sockets per device, taken once the socket found its
# seat, so that no refusal depends on whether anyone else holds. Held as
# leases in Redis, so every worker counts the same; a lease a dead worker left
# behind runs out by itself.
# How long a lease outlives its worker's last renewal (the worker renews those of its
# open connections: server/leases.py); a stream's is STREAM_LEASE_S.
HOLD_LEASE_MS = 60_000
CAPS = ("MAX_STREAMS_PER_DEVICE", "MAX_STREAMS_PER_INVITATION", "MAX_STREAMS_PER_ADDRESS",
        "MAX_HOLDS_PER_DEVICE")


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
    ``?i=``, or the cookie the room page set from it (INVITE_COOKIE, scoped to the room);
    a room's invitation is gone with its game (common.invitation)."""
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
    invite = invitation(code)
    return bool(invite) and hmac.compare_digest(sent.encode(), invite.encode())


def _room_of_invitation() -> str:
    """The key of an invitation's own budgets: the address and the room it names."""
    return f"{address()}:{(request.view_args or {}).get('code', '').upper()}"


def _seated() -> bool:
    code = (request.view_args or {}).get("code")
    if not code or g.get("new_device", True) or g.get("deviceless", True):
        return False
    try:
        room = load_room(room_code(code))
    except NoSuchRoom:
        return False
    return room.seat_of(g.device_token) is not None


SPENT_WHEN = {MISSES: lambda response: g.get("missed_room", False), EVERY: None,
              WORKED: lambda response: response.status_code < 400}


def _limit(rate: str, scope: str, key, exempt, spent: str) -> ApplicationLimit:
    return ApplicationLimit(rate, scope=scope, key_function=key, exempt_when=exempt,
                            deduct_when=SPENT_WHEN[spent])


def init(app: Flask, storage: LimiterStorage) -> Limiter:
    """The app's limiter, storing its counters where the server says (``storage``: the
    store's own Redis, Service.limiter_storage)."""
    scale = app.config["RATE_LIMIT_SCALE"]
    limits: list[str | Callable[[], str] | ApplicationLimit] = [
        _limit(_scaled(rate, scale), scope, address, _for_strangers(endpoints), spent)
        for rate, scope, endpoints, spent in BY_ADDRESS]
    limits += [_limit(_scaled(rate, scale), scope, _room_of_invitation,
                      _for_invited(endpoints), spent)
               for rate, scope, endpoints, spent in BY_INVITATION]
    limits += [_limit(_scaled(rate, scale), scope, device, _for_device(endpoints, spent),
                      spent)
               for rate, scope, endpoints, spent in BY_DEVICE]
    rate, scope, endpoints, spent = OWN_ROOM
    limits.append(_limit(_scaled(rate, scale), scope, device, _for_own_room(endpoints),
                         spent))
    limiter = Limiter(key_func=address, application_limits=limits,
                      strategy="sliding-window-counter", storage_uri=storage.uri,
                      storage_options=dict(storage.options))
    limiter.request_filter(_own_hold)
    limiter.init_app(app)
    app.extensions["auction_limiter"] = limiter
    app.extensions["auction_mint"] = (parse_many(_scaled(MINT, scale)),
                                      parse_many(_scaled(MINT_INVITED, scale)))
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


def _for_strangers(endpoints: set[str] | None):
    """Exempt unless the request is of these and comes from a stranger to the room it
    names: a client without a seat there and without its invitation (the seat is looked
    up only for requests the limit is about)."""
    applies = _applies(endpoints)
    return lambda: not applies() or invited() or seated()


def _for_invited(endpoints: set[str] | None):
    """Exempt unless the request is of these and carries the invitation of the room it
    names without a seat there."""
    applies = _applies(endpoints)
    return lambda: not applies() or seated() or not invited()


def _for_device(endpoints: set[str] | None, spent: str):
    """Exempt unless the request is of these and comes from a device; its misses count
    neither in a room it is seated in (it cannot miss there, and a budget spent
    elsewhere must not shut it out of its own game) nor when another site's link
    sent it (its address counts those)."""
    applies = _applies(endpoints)
    if spent != MISSES:
        return lambda: not applies() or not _a_device()
    return lambda: not applies() or not _a_device() or identity.from_elsewhere() or seated()


def _for_own_room(endpoints: set[str]):
    """Exempt unless the request is one of these in a room the device is seated in."""
    applies = _applies(endpoints)
    return lambda: not applies() or not seated()


def _a_device() -> bool:
    """The request comes from a device: one it had, or one its commit mints."""
    return not g.deviceless or g.new_device


NO_DEVICE = N_("too many new players from your network just now; try again in "
               "%(seconds)s s, or open the room's invite link")
# ...said to a newcomer who came with the invite link: the one thing they already did.
NO_DEVICE_INVITED = N_("too many new players from your network just now; try again in "
                       "%(seconds)s s")


def mint():
    """A before-request hook: a visitor's commit (create, solo, join) mints its device if
    its budget allows one more -- its address's, or, when it carries the room's
    invitation, its address's for that room alone: a flood from the address never
    shuts out a newcomer with the link. Otherwise 429, saying when to come back. The
    budget is spent only when the commit worked (``spend_mint``, after the answer): a
    join the room refused mints nothing and costs nothing."""
    if not g.deviceless or request.endpoint not in COMMITS or request.method != "POST":
        return None
    strategy = current_app.extensions["auction_limiter"].limiter
    strangers, with_invitation = current_app.extensions["auction_mint"]
    items, key = ((with_invitation, _room_of_invitation()) if invited()
                  else (strangers, address()))
    for item in items:
        if not strategy.test(item, "mint", key):
            reset, _ = strategy.get_window_stats(item, "mint", key)
            seconds = max(1, math.ceil(reset - time.time()))
            words = NO_DEVICE_INVITED if invited() else NO_DEVICE
            response = current_app.make_response(error(429, words, seconds=seconds))
            response.headers["Retry-After"] = str(seconds)
            return response
    g.mint = (items, key)
    identity.commit()
    return None


def spend_mint(response):
    """An after-request hook: a device minted by a commit that worked spends its budget."""
    minted = g.pop("mint", None)
    if minted is not None and response.status_code < 400:
        strategy = current_app.extensions["auction_limiter"].limiter
        items, key = minted
        for item in items:
            strategy.hit(item, "mint", key)
    return response


def retry_after(exc: RateLimitExceeded) -> int:
    """Seconds until every limit this request hit lets this client in again: a
    breached hourly limit says its own, longer wait, not the first one's minute."""
    limiter = current_app.extensions["auction_limiter"]
    waits = [hit.reset_at - time.time() for hit in limiter.current_limits if hit.breached]
    return max(1, math.ceil(max(waits, default=exc.limit.limit.get_expiry())))


def _lease(key: str, cap: str, ttl_ms: int) -> Lease:
    """One of the connections a device or an address may have open at once (the
    server keeps it: a stream renews and drops it outside any request)."""
    return services().lease(key, current_app.extensions["auction_caps"][cap], ttl_ms)


def stream_lease() -> Lease:
    """A stream of a room: a device seated there, or carrying its invitation, counts it on
    the device and that room (a phone and a big screen, a reload each); a visitor with the
    invitation on its address and that room (a table of newcomers behind one Wi-Fi); a
    stranger on its address. Every address's share of the worker is capacity.take's."""
    code = (request.view_args or {}).get("code", "").upper()
    ttl_ms = round(current_app.config["STREAM_LEASE_S"] * 1000)
    if seated() or (invited() and _a_device()):
        return _lease(f"stream-device:{device()}:{code}", "MAX_STREAMS_PER_DEVICE", ttl_ms)
    if invited():
        return _lease(f"stream-invited:{_room_of_invitation()}", "MAX_STREAMS_PER_INVITATION",
                      ttl_ms)
    return _lease(f"stream:{address()}", "MAX_STREAMS_PER_ADDRESS", ttl_ms)


def hold_lease() -> Lease:
    """For a socket that found its seat: the device's, whoever else holds."""
    return _lease(f"hold:{device()}", "MAX_HOLDS_PER_DEVICE", HOLD_LEASE_MS)
