"""One press of the hold socket, as the server decides it; the socket itself is web/live/hold.py.

The server's own timestamps decide: the press is the moment the upgrade
request arrived, the release the moment the client's ``release`` message,
close frame or end of stream arrived, or its last sign of life. The socket
hears the client (``Line``); everything it hears is judged here: the seat and
its hold slot (one live socket a seat), the player's round trip (the pings'
answers, kept per seat in the store), the press dated with an entry grace and
the release dated back by the latency, by the formulas of
``auction.game.fairness`` (the model: docs/fairness.md), and whether the
server ended the hold meanwhile -- the bank ran dry, the round went away --
read from the room as the hub hands it on.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Protocol

from ..game import fairness, rules
from . import lateness
from .beats import Beats
from .hold_messages import Ending, Refusal
from .hub import Hub, Listener
from .record import Room
from .rooms import Outcome, Rooms
from .store import NoSuchRoom, hold_key

DEAD_MS = 1_000          # silence after which a holder is taken for gone (two beats)
# ... if it was asked: a ping this old is still unanswered. Silence counts only while
# the server asks; a worker that stalled (a burst of work, a long collection) sent no
# ping meanwhile, and its holders' silence then says nothing about them. For a worker
# that keeps time this changes nothing: the ping after a holder's last answer went out
# a beat (500 ms) after the one answered, so it is this old when DEAD_MS have passed.
UNANSWERED_MS = 500


class Line(Protocol):
    """What the hold asks of its socket, which alone hears the client."""

    @property
    def alive_ms(self) -> int:
        """The client's last sign of life: an answer to a ping, or the opening."""

    @property
    def asked_ms(self) -> int | None:
        """When the oldest ping the client has not answered was sent (None: none)."""

    @property
    def kernel_rtt_ms(self) -> int | None:
        """The kernel's round trip of the connection (behind a proxy: to the proxy)."""

    def round_trips(self) -> list[int]:
        """The round trips the pings' answers measured since last asked."""

    def probe(self, wait_s: float) -> None:
        """Ping once, and wait at most ``wait_s`` for the answer."""


@dataclass(frozen=True)
class ReleaseDating:
    """When a release counts: the moment it arrived, dated back by the player's latency
    from when the room showed everyone this round's spending -- as the room is saved,
    not as this hold last saw it, so no client's stream can move it."""

    arrived_ms: int
    rtt_ms: int | None
    cap_ms: int
    round: int
    spend_ms: int
    late_ms: int = 0    # how late the seat's own stream showed it, the server's doing

    def moment(self, room: Room) -> int:
        shown = room.spending_shown(self.round)
        if shown is not None:
            shown += self.late_ms
        return fairness.release_moment(self.arrived_ms, self.rtt_ms, self.cap_ms,
                                       self.spend_ms, shown)


class Hold:
    """One press of one seat, from its socket's open to its close.

    In order: ``seat`` (None: not seated), ``claim``, ``press``; then, while it
    lasts, ``check`` and ``ended`` at each ping, ``due`` when ``next_due``
    comes, ``release`` when the client lets go; ``close`` at the end."""

    def __init__(self, rooms: Rooms, hub: Hub, beats: Beats, cap_ms: int, code: str,
                 token: str, room: Room, pressed_ms: int, tls: bool, line: Line) -> None:
        self.rooms, self.hub, self.beats = rooms, hub, beats
        self.cap_ms = cap_ms        # the latency compensation cap; 0: none
        self.dated_back_ms: int | None = None   # how far the release was dated back
        self.code = code
        self.token = token
        self.room = room            # as loaded before the press
        self.pressed_ms = pressed_ms
        self.tls = tls              # a socket over TLS took a round trip more
        self.line = line
        self.seat = room.seat_of(token)
        self.sid = secrets.token_hex(8)
        self.round: int | None = None       # the round and spending start this hold is in
        self.spend_ms = 0
        self.runs_out = 0                   # when the seat's bank runs dry
        self.version = 0                    # the room's version that holds this press
        self._listener: Listener | None = None

    @property
    def pressed(self) -> bool:
        """Whether the press counted (the socket said ``in``)."""
        return self.round is not None

    def claim(self) -> bool:
        """Take the seat's hold slot, unless another live socket has it; then keep its
        heartbeat and listen to the room -- before the press, so no change slips between."""
        assert self.seat is not None
        if not self.rooms.store.take_slot(hold_key(self.code, self.seat), self.sid,
                                          self.rooms.clock.now_ms(), DEAD_MS):
            return False
        self.beats.add(self.sid, self.code, self.seat, self.line.alive_ms,
                       lambda: (self.line.alive_ms, self.line.round_trips()))
        self._listener = self.hub.listen(self.code)
        return True

    def press(self) -> Refusal | None:
        """Press, dated by the rules' grace for a late entry; why not, if it does not count."""
        try:
            outcome = self._press()
        except rules.PressRefused as refused:
            return refused.reason
        except (rules.NotAllowed, NoSuchRoom):
            return "not_seated"
        game = outcome.room.game
        rnd, player = game.current, game.player(self.seat or "")
        assert rnd is not None and player is not None      # it has just pressed in it
        self.round, self.spend_ms = rnd.number, rnd.spend_ms
        self.version = outcome.version
        self.runs_out = rnd.spend_ms + player.bank_ms
        return None

    def _press(self) -> Outcome:
        rnd = self.room.game.current
        at = self.pressed_ms
        if rnd is not None and at >= rnd.go_ms and self.cap_ms > 0:
            at = fairness.press_moment(at, rnd.go_ms, self._entry_rtt(), self.cap_ms, self.tls)
        return self.rooms.as_player(self.code, self.token, lambda pid: rules.Press(pid, at))

    def _entry_rtt(self) -> int | None:
        """The round trip for a press that came after go: the seat's estimate, or,
        for a seat never measured, one ping on this socket, waiting at most two
        caps. No answer in time: None, which earns no grace (fairness.entry_grace)."""
        rtt = self._measured_rtt()
        if rtt is None:
            self.line.probe(fairness.entry_ping_wait(self.cap_ms) / 1000)
            rtt = self._measured_rtt()
        return rtt

    def note(self) -> None:
        """Hand the worker's heartbeat batch the line's last sign of life and new round trips."""
        self.beats.note(self.sid, self.line.alive_ms, self.line.round_trips())

    def _measured_rtt(self) -> int | None:
        """The seat's round-trip estimate from ping answers, this socket's included
        (those the worker has not written yet first: they are the newest)."""
        self.note()
        assert self.seat is not None
        samples = self.beats.pending(self.sid) + self.rooms.store.rtt_samples(self.code,
                                                                              self.seat)
        return fairness.estimate_rtt(samples)

    def _late(self) -> int:
        assert self.seat is not None and self.round is not None
        return lateness.of(self.rooms.store, self.code, self.seat, self.round)

    def _rtt(self) -> int | None:
        rtt = self._measured_rtt()
        return self.line.kernel_rtt_ms if rtt is None else rtt

    def check(self) -> None:
        """Raise what this hold's last heartbeat write raised: a hold whose heartbeat
        cannot be kept ends (``unavailable``); another worker releases it at its last
        written heartbeat."""
        self.beats.check(self.sid)

    def ended(self) -> Ending | None:
        """None while the hold stands; else why the server ended it: the bank ran out
        (whoever fired it -- this hold's ``due`` or another worker's tick), or the
        round went away."""
        room = self._news()
        return None if room is None else self._ending(room)

    def _ending(self, room: Room, store_away: bool = False) -> Ending | None:
        """None if ``room`` still has this hold; else why it ended there. ``store_away``:
        this hold's heartbeat once went unwritten, so a release by another worker's
        watchdog was the store's absence."""
        rnd = room.game.current
        hold = rnd.holds.get(self.seat or "") if rnd and rnd.number == self.round else None
        if hold is not None and hold.release_ms is None:
            return None
        if hold is not None and hold.release_ms is not None:
            ran_out = hold.release_ms >= self.runs_out
        else:
            ran_out = self.rooms.clock.now_ms() >= self.runs_out
        return "bank_empty" if ran_out else "unavailable" if store_away else "round_over"

    def _news(self) -> Room | None:
        """The room as last published, if that knows this press; None: no news since.

        A change published before the press was saved (another player's press, a
        moment earlier) may arrive after it: it does not know this hold yet, so it
        says nothing. Reloaded only if news may be lost (the reload's version is the
        new floor: a store restarted from its file counts versions from lower down)."""
        listener = self._listener
        assert listener is not None
        news = listener.latest
        if listener.missed:
            listener.missed = False
            room, self.version = self.rooms.load(self.code)
            return room
        if news is not None and news.version >= self.version:
            return news.room
        return None

    def _dead_line(self) -> int | None:
        """From when the line counts as dead if nothing more is heard: DEAD_MS after its
        last sign of life and UNANSWERED_MS after the oldest ping it has not answered;
        None while no ping is unanswered (nothing was asked)."""
        asked = self.line.asked_ms
        if asked is None:
            return None
        return max(self.line.alive_ms + DEAD_MS, asked + UNANSWERED_MS)

    def next_due(self) -> int:
        """When ``due`` may next find something: the bank's end, or just past the line's
        dead line -- so a lost link is noticed DEAD_MS after its last frame."""
        dead = self._dead_line()
        return self.runs_out if dead is None else min(self.runs_out, dead + 1)

    def due(self, now_ms: int) -> Ending | None:
        """End the hold if its bank ran dry (fired now rather than at the next tick) or
        its line fell silent (released at its last sign of life); None: neither."""
        if now_ms >= self.runs_out:
            self.rooms.act(self.code, lambda room: None)
            return "bank_empty"
        dead = self._dead_line()
        if dead is not None and now_ms > dead:
            self.release(self.line.alive_ms)
            return "connection_lost"
        return None

    def release(self, arrived_ms: int) -> Ending | None:
        """Let go at a moment the client's frames arrived (its release, its close, or
        its last sign of life), dated back by the player's latency. None: this let go;
        else why the hold had already ended (another worker released it, say, while
        the store was away): never dropped without a word to the player."""
        assert self.round is not None
        rtt = self._rtt() if self.cap_ms > 0 else None
        late = min(self._late(), self.cap_ms) if self.cap_ms > 0 else 0
        dating = ReleaseDating(arrived_ms, rtt, self.cap_ms, self.round, self.spend_ms, late)
        moments: list[int] = []
        held: list[bool] = []       # whether the room, as loaded, still had this hold

        def moment(room: Room) -> int:
            held.append(self._ending(room) is None)
            moments.append(dating.moment(room))
            return moments[-1]

        try:
            outcome = self.rooms.release(self.code, self.token, moment)
        except (rules.NotAllowed, NoSuchRoom):
            return "round_over"         # the seat or the room is gone
        if held and not held[-1]:
            return self._ending(outcome.room, self.beats.lost(self.sid)) or "round_over"
        if moments:     # the compensation applied, for the worker's metrics
            self.dated_back_ms = arrived_ms - moments[-1]
        return None

    def close(self) -> None:
        """The socket ends: stop listening, write the heartbeat's last news, free the slot."""
        if self._listener is not None:
            self._listener.close()
        self.note()
        self.beats.remove(self.sid)
