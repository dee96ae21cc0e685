"""The one face of the server that the web layer calls (see auction.server).

Everything a request, a stream or a hold socket needs goes through ``Service``:
a device's view of a room, the writes (create, join, act, kick, leave,
rematch), a press of the hold socket (``hold``: holds.py), the finished games
of a device, a stream's room (``watch``), the connection leases the limits
count, and the game clock. The web layer holds no store, no room record and no
subscription of its own; and every view it sends is ``views.view_for``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from redis.cluster import RedisCluster

from ..game import rules
from ..game.views import View, view_for
from .beats import Beats
from .clock import Clock
from .config import ServerConfig
from .connection import cluster_options, connect
from .faces import LimiterStorage, Lookup
from .holds import Hold
from .hub import Hub
from .leases import Keeper, Lease
from .record import Room, digest
from .rooms import Make, Outcome, Rooms
from .scheduler import Scheduler
from .store import LIMITS_PREFIX, NoSuchRoom, Store
from .watch import Watch


@dataclass(frozen=True)
class Finished:
    """One of a device's finished games, as its "your games" list shows it."""

    code: str
    ago_ms: int             # how long ago it ended
    view: View              # the spectator's final view: what anyone may know of it
    seat: str | None        # the device's player id in it


class Service:
    """One worker's connections to the shared store, built once per app.

    Everything behind it (the store, rooms, hub, beats, timer loop and the Redis
    client) is private: the web layer gets views, the values of faces.py, and the
    handles below (Watch, Hold, Lease), never a server object of its own."""

    def __init__(self, config: ServerConfig, instance_path: str) -> None:
        """Connect to ``config.redis_url`` (unset: the embedded server, kept in
        ``instance_path``)."""
        client = connect(config.redis_url, instance_path)
        self._client = client
        self._url = config.redis_url
        self._cap_ms = config.hold_comp_cap_ms  # the latency compensation cap (fairness.py)
        self._store = Store(client)
        self._clock = Clock(self._store.time)
        self._hub = Hub(client)
        self._beats = Beats(self._store)
        self._rooms = Rooms(self._store, self._clock, self._cap_ms)
        self._scheduler = Scheduler(self._rooms, self._store, self._clock)
        self._leases = Keeper()
        # A deadline set here wakes this worker's timer loop at once.
        self._rooms.wake = self._scheduler.wake
        self._rooms.holding_here = self._beats.has

    def start(self) -> None:
        """Run this worker's timer loop (a serving worker; tests of requests need none)."""
        self._scheduler.start()

    def stop(self) -> None:
        """Stop this worker's timer loop (the process is about to exit)."""
        self._scheduler.stop()

    def now_ms(self) -> int:
        """The game clock: the store's time, the same for every worker."""
        return self._clock.now_ms()

    # -- operating -----------------------------------------------------------------

    def store_answers(self) -> bool:
        """Whether the store answers a PING now (readiness); any failure is False."""
        try:
            return bool(self._client.ping())
        except Exception:
            return False

    def limiter_storage(self) -> LimiterStorage:
        """Where the abuse limits count: the store's Redis under ``ta:limit`` (store.LIMITS_PREFIX). On one
        server, the store's own connection pool; on a cluster, the limits library's
        cluster client (it speaks the same redis+cluster:// URLs) with the store's
        timeouts -- redis-py's defaults wait forever on a vanished node, and every
        request counts against a limit in some node's slots."""
        if isinstance(self._client, RedisCluster):
            assert self._url, "a cluster client comes from a redis+cluster:// URL"
            return LimiterStorage(self._url, {"key_prefix": LIMITS_PREFIX, **cluster_options()})
        return LimiterStorage("redis://", {"connection_pool": self._client.connection_pool,
                                           "key_prefix": LIMITS_PREFIX})

    # -- reading ---------------------------------------------------------------

    def load(self, code: str) -> Lookup:
        """Room ``code`` as stored, as the web may read it; NoSuchRoom if there is none."""
        return Lookup(code, self._rooms.load(code)[0])

    def view(self, code: str, token: str | None,
             room: Lookup | None = None) -> tuple[View, Lookup]:
        """This device's view of room ``code`` now -- a spectator's without a seat or a
        token -- and the room it was drawn from. ``room``: the room as the caller already
        loaded it (one load a request)."""
        room = self.load(code) if room is None else room
        return self._view(room._record, token), room

    def final_view(self, code: str, token: str | None,
                   room: Lookup | None = None) -> tuple[View | None, Lookup]:
        """This device's view of a finished game; None while it is still running (its
        results would be its hidden facts)."""
        room = self.load(code) if room is None else room
        if room._record.game.phase is not rules.Phase.ENDED:
            return None, room
        return self._view(room._record, token), room

    def recent_games(self, token: str) -> list[Finished]:
        """This device's finished games (kept under its token's digest), newest first."""
        now = self.now_ms()
        seat = digest(token)
        games = []
        for code, ended_ms in self._store.recent_games(seat, now):
            try:
                room = self._rooms.load(code)[0]
            except NoSuchRoom:
                continue           # expired, or dropped
            if room.game.phase is not rules.Phase.ENDED:
                continue
            games.append(Finished(code, now - ended_ms, view_for(room.game, None, now),
                                  room.seats.get(seat)))
        return games

    def watch(self, code: str) -> Watch:
        """Room ``code`` for an event stream, kept at its newest change; NoSuchRoom if none."""
        return Watch(self._hub, self._rooms, self._store, self._clock, code)

    def _view(self, room: Room, token: str | None) -> View:
        return view_for(room.game, room.seat_of(token), self.now_ms())

    def _after(self, outcome: Outcome, token: str) -> View:
        return self._view(outcome.room, token)

    # -- writing: each returns the device's view of the room as saved -------------

    def create(self, token: str, name: str, preset: str, setup: Sequence[Make] = (),
               tls: bool = False, kind: str = "online", site: str = "") -> str:
        """A new room with this device as host, ``setup`` applied; returns its code.
        ``tls``: the site is served over TLS (a late press may come later, fairness.py);
        ``kind`` "solo": a game against the computer; ``site``: the site's address as
        the host reached it, the base of the room's invite link."""
        return self._rooms.create(token, name, preset, setup, tls=tls, kind=kind, site=site)

    def join(self, code: str, token: str, name: str) -> View:
        """Seat this device (again, if it has a seat: rejoining is free)."""
        return self._after(self._rooms.join(code, token, name), token)

    def act(self, code: str, token: str, make: Make) -> View:
        """Apply ``make(player_id)`` for this device's seat; NotAllowed if it has none."""
        return self._after(self._rooms.as_player(code, token, make), token)

    def kick(self, code: str, token: str, target: str) -> View:
        """The host removes ``target``: that device stays out."""
        return self._after(self._rooms.kick(code, token, target), token)

    def leave(self, code: str, token: str) -> None:
        self._rooms.leave(code, token)

    def rematch(self, code: str, token: str) -> str:
        """The host opens the next game for the same table; returns its code."""
        return self._rooms.rematch(code, token)

    # -- the hold socket and the limits ----------------------------------------------

    def hold(self, code: str, token: str, room: Lookup | None = None, *, arrived_ms: int,
             kernel_arrived_ms: int | None, opened_ms: int, tls: bool,
             kernel_rtt_ms: int | None) -> Hold:
        """A press of room ``code``'s hold socket whose upgrade request reached the app
        at ``arrived_ms`` (and its last data the machine at ``kernel_arrived_ms``, by the
        kernel's note, None where it cannot say) and which opened at ``opened_ms``
        (``tls``: over TLS; ``kernel_rtt_ms``: the kernel's round trip of its
        connection), all as the socket measured them; the hold dates the press from them; NoSuchRoom if there is no such room. Its ``seat`` is None if
        this device is not seated there. ``room``: the room as this request already
        loaded it (to find the seat for the limits), so the press loads it once less.
        The socket hands the hold each fact it measures after (holds.py)."""
        record = (self.load(code) if room is None else room)._record
        return Hold(self._rooms, self._store, self._clock, self._hub, self._beats, self._cap_ms,
                    code, token, record, arrived_ms=arrived_ms,
                    kernel_arrived_ms=kernel_arrived_ms, opened_ms=opened_ms, tls=tls,
                    kernel_rtt_ms=kernel_rtt_ms)

    def lease(self, key: str, cap: int, ttl_ms: int) -> Lease:
        """One of at most ``cap`` connections open at once under ``key`` (``taken``
        False: all were taken), kept by this worker until it is dropped (a worker that
        dies leaves it to run out ``ttl_ms`` after its last renewal)."""
        return Lease(self._store, self._clock, key, cap, ttl_ms, self._leases)
