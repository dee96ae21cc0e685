"""The one composer: load -> rules.apply -> save -> publish -> schedule.

Every writer -- web requests, hold sockets, the scheduler, AI seats -- goes
through ``Rooms.act``. It loads the room, first applies whatever is due
(timers and AI presses and releases, each at its own moment), then the
action, and saves with a version check; a save that lost a race is retried
from a fresh load, so no write is ever silently overwritten.

The room record itself (``Room``) lives in ``record.py``.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..game import fairness, rules
from ..game.rematch import table_again
from . import names
from .clock import Clock
from .codes import new_code
from .due import plan_bots, run_due
from .record import Room, digest
from .store import ENDED_TTL_S, LOBBY_TTL_S, PLAYING_TTL_S, NoSuchRoom, Store, hold_key

RETRIES = 20
LEASE_MS = 2_000
# A human holder whose worker has not written its heartbeat for this long is
# released at its last-alive moment by whichever worker looks: the socket's own
# worker may have died with it. A worker writes the heartbeat of each of its live
# holds every 200 ms (beats.py), news or not; the rest is room for a busy worker.
# The age is the write's, not the player's last answer: on a worker behind by half
# a second, a ping goes out late, its answer is read late and then written late, and
# the three delays added up to 1.5 s -- a player holding on a live worker was
# released by another (bench/load.py, 1,000 players on two workers). A player who
# fell silent on a live worker is that worker's to release (holds.py's dead line).
ORPHAN_MS = 1_500


class Conflict(RuntimeError):
    """Too many lost races in a row; the caller should answer 'try again'."""


# What a writer asks of the rules: an action for a seat, or for the room as loaded (None:
# only what is due).
Make = Callable[[str], rules.Action]
Build = Callable[[Room], rules.Action | None]


@dataclass
class Outcome:
    """What an action did: the saved room, its version, and the action applied to it
    (None: only what was due)."""

    room: Room
    version: int
    action: rules.Action | None = None


class Releasing(Protocol):
    """A release as data (holds.py's ``ReleaseDating``): the composer asks it, on each
    try, what to apply to the room as loaded."""

    def action(self, room: Room, pid: str) -> rules.Release | None:
        """Seat ``pid``'s release in ``room`` as loaded; None: nothing to let go there."""


def _ttl(game: rules.Game) -> int:
    if game.phase is rules.Phase.LOBBY:
        return LOBBY_TTL_S
    return ENDED_TTL_S if game.phase is rules.Phase.ENDED else PLAYING_TTL_S


class Rooms:
    """All writes to rooms, for any number of workers sharing one store."""

    def __init__(self, store: Store, clock: Clock, cap_ms: int = 0) -> None:
        self.store = store
        self.clock = clock
        self.cap_ms = cap_ms      # the latency compensation cap (fairness.py)
        self.wake: Callable[[int], None] = lambda at_ms: None  # set by the worker's scheduler
        # Whether a hold slot's owner is a live hold socket of this very worker (set to
        # its heartbeats' list): that hold's own loop hears its line, so the watchdog
        # leaves it alone -- after a stall of this worker its stored heartbeat is old
        # for the worker's own slowness, not the player's.
        self.holding_here: Callable[[str], bool] = lambda owner: False

    # -- reading ------------------------------------------------------------

    def load(self, code: str) -> tuple[Room, int]:
        record, version = self.store.load(code)
        return Room.from_record(record), version

    # -- creating ------------------------------------------------------------

    def create(self, token: str, name: str, preset: str, setup: Sequence[Make] = (),
               tls: bool = False, kind: str = "online", site: str = "") -> str:
        """A new room with this device as host; ``setup`` actions follow the join.

        The game keeps how long after go a late press may still arrive and
        count (longer when the site is served over TLS), so an empty go is
        called only then (rules.Game.grace_ms). ``kind`` "solo": a game
        against the computer (POST /solo). ``site``: the site as the host reached it
        (record.Room.site)."""
        def build(game):
            game, events = rules.apply(game, names.join(game, name), self.clock.now_ms())
            host = events[0].player
            for make in setup:
                game, _ = rules.apply(game, make(host), self.clock.now_ms())
            return game, {digest(token): host}
        grace = fairness.longest_entry_wait(self.cap_ms, tls)
        game = rules.new_game("----", preset, grace, secrets.token_hex(16))
        game.kind = kind
        return self._reserve(game, build, site)

    def _reserve(self, game: rules.Game, build, site: str) -> str:
        """Store ``build(game)`` -> (game, seats) under a fresh code; returns the code."""
        for _ in range(RETRIES):
            game.code = new_code()
            g, seats = build(game)
            room = Room(g, seats, secrets.token_hex(8), invite=secrets.token_urlsafe(12), site=site)
            if self.store.create(game.code, room.to_record()):
                return game.code
        raise Conflict("no free room code")

    def rematch(self, code: str, token: str) -> str:
        """The host (or, once the host is gone, any seated player: ``rules.host_gone``)
        opens the next game for the same table; returns its code.

        The new room has the same settings and AI seats, and every human who
        had not left sits in it at once, keyed by the same device digest, so
        their streams only need to follow; whoever opened it hosts it. Asking
        again returns the same room.
        """
        room, _ = self.load(code)
        pid = room.seat_of(token)
        if pid is None:
            raise rules.NotAllowed("you are not seated in this room")
        if room.game.rematch:
            return room.game.rematch
        # Refuse before creating, and at this moment: whether a seated player may stand in
        # for the host depends on the time since the end.
        rules.apply(room.game, rules.Rematch(pid, "----"), self.clock.now_ms())
        lobby = rules.new_game("----", "auction", room.game.grace_ms, secrets.token_hex(16))
        lobby.kind = room.game.kind
        new = self._reserve(lobby, lambda lobby: table_again(room.game, room.seats, lobby, pid),
                            room.site)

        def build(fresh):   # None if another tap won the race meanwhile: keep its room
            return None if fresh.game.rematch else rules.Rematch(pid, new)
        opened = self.act(code, build).room.game.rematch
        assert opened is not None                   # this one's, or the tap's that won
        if opened != new:
            self.store.drop(new)
        return opened

    # -- the composer --------------------------------------------------------

    def act(self, code: str, build: Build, now_ms: int | None = None,
            after: Callable[[Room, list[rules.Event]], None] | None = None,
            watchdog: bool = False) -> Outcome:
        """Apply ``build(room)`` -- an action, or None for just the due timers.

        ``build`` runs on every attempt against the freshly loaded room, so it
        can look up seats; rule errors propagate and nothing is saved. It runs,
        with ``rules.check``, before anything that reads holds, so a refusal
        takes the same work whoever holds (no timing tells).
        ``after(room, events)`` may record server-side facts in the same write.
        ``watchdog``: also release human holders whose socket fell silent.
        """
        for _ in range(RETRIES):
            record, version = self.store.load(code)
            room = Room.from_record(record)
            now = self.clock.now_ms() if now_ms is None else now_ms
            action = build(room)
            if action is not None:
                rules.check(room.game, action)
            events = run_due(room, now)
            if watchdog:
                events += self._release_orphans(code, room, now)
            if action is not None:
                room.game, more = rules.apply(room.game, action, now)
                events += more
                plan_bots(room, more)
                if after is not None:
                    after(room, more)
            self._stamp_spending(room)
            deadline = room.deadline(now)
            after_record = room.to_record()
            if after_record == record:
                # Nothing changed (a watchdog look, a timer fired early): no save and
                # no publish, so no stream wakes for nothing; only the next look is set.
                self.store.reschedule(code, version, deadline)
                if deadline is not None:
                    self.wake(deadline)
                return Outcome(room, version, action)
            new_version = self.store.save(code, version, after_record, deadline,
                                          _ttl(room.game))
            if new_version is not None:
                if deadline is not None:
                    self.wake(deadline)
                if any(isinstance(e, rules.PhaseChanged) and e.phase is rules.Phase.ENDED
                       for e in events):   # each seated device's "your games" list
                    self.store.remember_game(list(room.seats), code, now)
                return Outcome(room, new_version, action)
        raise Conflict("the room is busy; try again")

    def settle(self, code: str) -> Outcome:
        """Apply what is due in ``code`` now (a bank run dry, a timer), and no action."""
        return self.act(code, _nothing)

    def tick(self, code: str) -> Outcome | None:
        """Fire whatever is due in ``code`` (the scheduler's entry point)."""
        try:
            return self.act(code, _nothing, watchdog=True)
        except NoSuchRoom:
            self.store.forget_deadline(code)
            return None

    def _stamp_spending(self, room: Room) -> None:
        """Note when this save shows a round's spending to everyone: the one moment
        per room that releases are dated from, which no client's stream can move."""
        rnd = room.game.current
        if (rnd is not None and room.game.phase is rules.Phase.SPENDING
                and room.spending_shown(rnd.number) is None):
            room.shown = [rnd.number, self.clock.now_ms()]

    def _release_orphans(self, code: str, room: Room, now: int) -> list:
        """Release human holders whose socket ended or whose worker stopped writing their
        heartbeat, at their last-alive moment."""
        holders = room.human_holders()
        beats = self.store.heartbeats([hold_key(code, pid) for pid in holders])
        events: list = []
        for pid, beat in zip(holders, beats):
            owner, alive, written = beat if beat else ("-", now, None)
            if owner != "-" and self.holding_here(owner):
                continue
            # No age to tell by (a slot written without one): its last answer's.
            age = now - alive if written is None else written
            if owner == "-" or age > ORPHAN_MS:
                room.game, more = rules.apply(room.game, rules.Release(pid, alive), now)
                events += more
                plan_bots(room, more)
        return events

    # -- what the service asks for (service.py) --------------------------------

    def join(self, code: str, token: str, name: str) -> Outcome:
        """Seat this device (again, if it already has a seat: rejoining is free)."""
        def build(room):
            if room.seat_of(token):
                return None
            if digest(token) in room.kicked:
                raise rules.NotAllowed("the host removed you from this room")
            return names.join(room.game, name)      # a look-alike of a seated name is refused
        def bind(room, events):
            for event in events:
                if isinstance(event, rules.Joined):
                    room.seats[digest(token)] = event.player
        return self.act(code, build, after=bind)

    def as_player(self, code: str, token: str, make: Make,
                  after: Callable[[Room, list[rules.Event]], None] | None = None) -> Outcome:
        """Apply ``make(player_id)`` for this device's seat; NotAllowed if unseated."""
        return self.act(code, lambda room: make(_seated(room, token)), after=after)

    def kick(self, code: str, token: str, target: str) -> Outcome:
        """The host removes ``target``: that device stays out; the rules lock the room."""
        def bar(room, events):
            for seat, pid in list(room.seats.items()):
                if pid == target:
                    del room.seats[seat]
                    room.kicked.append(seat)
        return self.as_player(code, token, lambda pid: rules.Kick(pid, target), after=bar)

    def press(self, code: str, token: str, at_ms: int) -> Outcome:
        """This device's seat presses, dated ``at_ms`` (holds.py)."""
        return self.act(code, lambda room: rules.Press(_seated(room, token), at_ms))

    def release(self, code: str, token: str, releasing: Releasing) -> Outcome:
        """This device's seat lets go as ``releasing`` says of the room as each try loads
        it: a hold dates its release from the room as it is saved (when its spending was
        shown), not from a copy of its own (holds.py). The outcome's ``action`` is the
        release saved; None if the room no longer had it to let go."""
        return self.act(code, lambda room: releasing.action(room, _seated(room, token)))

    def leave(self, code: str, token: str) -> Outcome:
        def build(room):
            pid = _seated(room, token)
            room.seats.pop(digest(token), None)
            return rules.Leave(pid)
        return self.act(code, build)


def _seated(room: Room, token: str) -> str:
    """This device's player id in the room; NotAllowed if it has no seat."""
    pid = room.seat_of(token)
    if pid is None:
        raise rules.NotAllowed("you are not seated in this room")
    return pid


def _nothing(room: Room) -> None:
    """The build of a write that applies only what is due: no action."""
    return None
