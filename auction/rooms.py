"""The one composer: load -> rules.apply -> save -> publish -> schedule.

Every writer -- web requests, hold sockets, the scheduler, AI seats -- goes
through ``Rooms.act``. It loads the room, first applies whatever is due
(timers and AI presses and releases, each at its own moment), then the
action, and saves with a version check; a save that lost a race is retried
from a fresh load, so no write is ever silently overwritten.

A room record is plain JSON: the game, the seats (device-token digests ->
player ids; the tokens themselves are never stored), the AI seed and the
queue of AI presses and releases planned for the current round.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field

from . import bots, rules
from .store import ENDED_TTL_S, LOBBY_TTL_S, PLAYING_TTL_S, NoSuchRoom, Store, hold_key

# Unambiguous letters: no I/O (like 1/0), no L, no U/V pairs to misread.
ALPHABET = "ABCDEFGHJKMNPQRSTWXYZ"
CODE_LENGTH = 4
RETRIES = 20
LEASE_MS = 2_000
# A human holder whose socket has not been heard for this long is released
# at its last-alive moment by whichever worker looks -- the socket's own
# worker may have died with it. Checked this often while humans hold.
ORPHAN_MS = 1_000
WATCH_MS = 400


class Conflict(RuntimeError):
    """Too many lost races in a row; the caller should answer 'try again'."""


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()[:32]


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def valid_code(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(c in ALPHABET for c in code)


def hold_slot(code: str, pid: str) -> str:
    """The store key of a seat's hold socket claim and heartbeat."""
    return hold_key(code, pid)


@dataclass
class Room:
    """A room as stored: the game plus what only the server needs."""

    game: rules.Game
    seats: dict[str, str] = field(default_factory=dict)
    bot_seed: str = ""
    bot_queue: list[list] = field(default_factory=list)

    def seat_of(self, token: str | None) -> str | None:
        """The player id of this device, if it is seated and has not left."""
        pid = self.seats.get(digest(token)) if token else None
        player = self.game.player(pid) if pid else None
        return pid if player and not player.left else None

    def human_holders(self) -> list[str]:
        rnd = self.game.current
        return [pid for pid in rnd.holders() if not self.game.player(pid).bot] if rnd else []

    def timer(self, grace_ms: int) -> int | None:
        """The rules' next deadline -- except that a go nobody holds for waits out
        the entry grace, so a press still on its way over a slow link can count."""
        due = rules.next_deadline(self.game)
        if due is not None and self.game.phase is rules.Phase.COUNTDOWN \
                and not self.game.current.holders():
            due += grace_ms
        return due

    def deadline(self, now_ms: int, grace_ms: int = 0) -> int | None:
        """The next moment this room needs a look: a timer, an AI action, a watch."""
        times = [t for t in (self.timer(grace_ms),) if t is not None]
        times += [item[0] for item in self.bot_queue[:1]]
        if self.human_holders():
            times.append(now_ms + WATCH_MS)
        return min(times, default=None)

    def to_record(self) -> dict:
        return {"game": rules.to_dict(self.game), "seats": self.seats,
                "bot_seed": self.bot_seed, "bot_queue": self.bot_queue}

    @classmethod
    def from_record(cls, record: dict) -> Room:
        return cls(rules.from_dict(record["game"]), record["seats"], record["bot_seed"],
                   record["bot_queue"])


@dataclass
class Outcome:
    """What an action did: the saved room, its version and the events."""

    room: Room
    version: int
    events: list
    result: object = None


def _ttl(game: rules.Game) -> int:
    if game.phase is rules.Phase.LOBBY:
        return LOBBY_TTL_S
    return ENDED_TTL_S if game.phase is rules.Phase.ENDED else PLAYING_TTL_S


class Rooms:
    """All writes to rooms, for any number of workers sharing one store."""

    def __init__(self, store: Store, clock, entry_grace_ms: int = 0):
        self.store = store
        self.clock = clock
        self.entry_grace_ms = entry_grace_ms   # the longest a late press may be back-dated
        self.wake = lambda at_ms: None  # set by the worker's scheduler

    # -- reading ------------------------------------------------------------

    def load(self, code: str) -> tuple[Room, int]:
        record, version = self.store.load(code)
        return Room.from_record(record), version

    # -- creating ------------------------------------------------------------

    def create(self, token: str, name: str, preset: str, setup=()) -> str:
        """A new room with this device as host; ``setup`` actions follow the join."""
        game = rules.new_game("----", preset)
        for _ in range(RETRIES):
            code = new_code()
            game.code = code
            g, events = rules.apply(game, rules.Join(name), self.clock.now_ms())
            host = events[0].player
            for make in setup:
                g, _ = rules.apply(g, make(host), self.clock.now_ms())
            room = Room(g, {digest(token): host}, secrets.token_hex(8))
            if self.store.create(code, room.to_record()):
                return code
        raise Conflict("no free room code")

    # -- the composer --------------------------------------------------------

    def act(self, code: str, build, now_ms: int | None = None, after=None) -> Outcome:
        """Apply ``build(room)`` -- an action, or None for just the due timers.

        ``build`` runs on every attempt against the freshly loaded room, so it
        can look up seats; rule errors propagate and nothing is saved.
        ``after(room, events)`` may record server-side facts in the same write.
        """
        for _ in range(RETRIES):
            room, version = self.load(code)
            now = self.clock.now_ms() if now_ms is None else now_ms
            events = self._run_due(room, now)
            events += self._release_orphans(code, room, now)
            action = build(room)
            result = None
            if action is not None:
                room.game, more = rules.apply(room.game, action, now)
                events += more
                result = more
                self._plan_bots(room, more)
                if after is not None:
                    after(room, more)
            deadline = room.deadline(now, self.entry_grace_ms)
            new_version = self.store.save(code, version, room.to_record(), deadline,
                                          _ttl(room.game))
            if new_version is not None:
                if deadline is not None:
                    self.wake(deadline)
                return Outcome(room, new_version, events, result)
        raise Conflict("the room is busy; try again")

    def tick(self, code: str) -> Outcome | None:
        """Fire whatever is due in ``code`` (the scheduler's entry point)."""
        try:
            return self.act(code, lambda room: None)
        except NoSuchRoom:
            self.store.forget_deadline(code)
            return None

    def _run_due(self, room: Room, now: int) -> list:
        """Apply due timers and AI actions in time order, each at its own moment."""
        events: list = []
        while True:
            timer = room.timer(self.entry_grace_ms)
            bot = room.bot_queue[0] if room.bot_queue else None
            if bot and bot[0] <= now and (timer is None or bot[0] <= timer):
                room.bot_queue.pop(0)
                at, kind, pid = bot
                action = rules.Press(pid, at) if kind == "press" else rules.Release(pid, at)
                try:
                    room.game, more = rules.apply(room.game, action, at)
                except rules.PressRefused:
                    continue  # e.g. its bank ran dry; an AI never insists
            elif timer is not None and timer <= now:
                room.game, more = rules.apply(room.game, rules.Tick(), timer)
            else:
                return events
            events += more
            self._plan_bots(room, more)

    def _release_orphans(self, code: str, room: Room, now: int) -> list:
        """Release human holders whose socket fell silent, at their last-alive moment."""
        holders = room.human_holders()
        beats = self.store.heartbeats([hold_slot(code, pid) for pid in holders])
        events: list = []
        for pid, beat in zip(holders, beats):
            owner, alive = beat if beat else ("-", now)
            if owner == "-" or now - alive > ORPHAN_MS:
                room.game, more = rules.apply(room.game, rules.Release(pid, alive), now)
                events += more
                self._plan_bots(room, more)
        return events

    def _plan_bots(self, room: Room, events: list) -> None:
        """At each countdown's start, queue the AI seats' presses and releases."""
        started = any(isinstance(e, rules.PhaseChanged) and e.phase is rules.Phase.COUNTDOWN
                      for e in events)
        if not started or room.game.phase is not rules.Phase.COUNTDOWN:
            if room.game.phase in (rules.Phase.RESULT, rules.Phase.ENDED):
                room.bot_queue = []
            return
        game = room.game
        plans = bots.round_plans(game, game.current.start_ms, room.bot_seed)
        actions = bots.bot_actions(game, plans)
        room.bot_queue = sorted(
            [at, "press" if isinstance(a, rules.Press) else "release", a.player]
            for at, a in actions)

    # -- what the web layer asks for ------------------------------------------

    def join(self, code: str, token: str, name: str) -> Outcome:
        """Seat this device (again, if it already has a seat: rejoining is free)."""
        def build(room):
            if room.seat_of(token):
                return None
            return rules.Join(name)
        def bind(room, events):
            for event in events:
                if isinstance(event, rules.Joined):
                    room.seats[digest(token)] = event.player
        return self.act(code, build, after=bind)

    def as_player(self, code: str, token: str, make) -> Outcome:
        """Apply ``make(player_id)`` for this device's seat; NotAllowed if unseated."""
        def build(room):
            pid = room.seat_of(token)
            if pid is None:
                raise rules.NotAllowed("you are not seated in this room")
            return make(pid)
        return self.act(code, build)

    def leave(self, code: str, token: str) -> Outcome:
        def build(room):
            pid = room.seat_of(token)
            if pid is None:
                raise rules.NotAllowed("you are not seated in this room")
            room.seats.pop(digest(token), None)
            return rules.Leave(pid)
        return self.act(code, build)
