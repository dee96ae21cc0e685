"""One press of the hold socket, from press to bid: all of its dating, in one place.

The hold socket (web/live/hold.py, with wire.py and tap.py) moves frames and
nothing more. It measures what only it can see, on the game's clock -- when the
upgrade request arrived, when the socket opened, the kernel's round trip, when
each of its pings went out and when the answer came, when the client's
``release``, close or end of stream arrived -- and hands each fact to this
``Hold`` as a plain value, as it happens. What the facts mean is decided here,
by the formulas of ``auction.game.fairness`` (the model: docs/fairness.md),
and written through ``Rooms``, the one writer. In the order a hold lives it:

1. **The seat and its slot** (``claim``): one live socket a seat. The slot is
   also the holder's heartbeat, which the worker's batch writes (beats.py).
2. **The press** (``entry_ping``, then ``press``): dated at its arrival (the
   earlier of the app's and the kernel's note of the upgrade request). One
   that arrived after go is dated back by the entry grace, two of the seat's
   round trips (three over TLS), within the cap; a seat never measured first
   asks its socket to wait for one ping's answer (``entry_ping`` says how
   long), and no answer in time earns no grace.
3. **While held**: each ping sent and each answer (``pinged``, ``answered``)
   are the round trips, kept per seat in the store, and the signs of life; the
   server's own endings -- the room as the hub hands it on (``ended``), the
   bank's end and a line fallen silent (``next_due``, ``due``), a heartbeat the
   store did not take (``check``).
4. **The release** (``let_go``, or ``release`` for the server's own endings): the
   moment the client's release message, close frame or end of data arrived,
   dated back by the seat's round trip, the room's lag in showing this round's
   spending and the seat's own stream's lateness (``ReleaseDating``, at the end).
5. **The end** (``close``).

Why it is built so:

- *The socket calls the hold, never the reverse.* The hold keeps the facts it
  was handed (the last sign of life, the pings not yet answered) and asks no
  one for them; the one thing it needs the socket to do -- wait for a ping's
  answer before a late press -- it asks by returning a value (``entry_ping``),
  and the socket does it before calling ``press``. Each answer is noted in the
  worker's heartbeat batch the moment the socket reads it, so the heartbeat is
  as fresh as the socket's last read, and the batch reads no socket. And since
  the hold holds nothing of its socket, the two leave no cycle for the
  collector's full pass when the socket ends (docs/scaling.md).
- *A release is data, not a closure.* ``Rooms.act`` retries a save that lost a
  race from a fresh load, and a release must be dated from the room as saved
  (its ``shown``: when the room published spending to every stream at once),
  not from a copy this hold last saw: no client's stream can move it. So the
  release goes to ``Rooms.release`` as a frozen ``ReleaseDating`` whose
  ``action`` is a pure function of the room as loaded, and the outcome carries
  the action saved: the moment charged comes back with it, and none means the
  room had no hold left to let go (it ended before: say why, never drop it).
- *The formulas stay in the pure game.* ``fairness`` says what to charge from
  numbers alone (tested without a server); this module only gathers the
  numbers. The store keeps them under its named keys (store.py): the seat's
  slot, its round trips, and how late its stream showed spending -- which the
  stream notes as it writes that view (watch.py; ``fairness.stream_lateness``):
  only the worker's own wait counts, from the publication or the stream's
  previous write, so a client that stops reading its stream earns nothing.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from ..game import fairness, rules
from .beats import Beats
from .clock import Clock
from .hold_messages import Ending, Refusal
from .hub import Hub, Listener
from .record import Room
from .rooms import Rooms
from .store import NoSuchRoom, Store, hold_key

DEAD_MS = 1_000          # silence after which a holder is taken for gone (two beats)
# ... if it was asked: a ping this old is still unanswered. Silence counts only while
# the server asks; a worker that stalled (a burst of work, a long collection) sent no
# ping meanwhile, and its holders' silence then says nothing about them. For a worker
# that keeps time this changes nothing: the ping after a holder's last answer went out
# a beat (500 ms) after the one answered, so it is this old when DEAD_MS have passed.
UNANSWERED_MS = 500


class Hold:
    """One press of one seat, from its socket's open to its close.

    In order: ``seat`` (None: not seated), ``claim``, ``entry_ping`` and ``press``;
    then, while it lasts, ``pinged`` and ``answered`` as the socket sends and reads,
    ``check`` and ``ended`` at each ping, ``due`` when ``next_due`` comes, ``let_go``
    when the client lets go; ``close`` at the end."""

    def __init__(self, rooms: Rooms, store: Store, clock: Clock, hub: Hub, beats: Beats,
                 cap_ms: int, code: str, token: str, room: Room, *, arrived_ms: int,
                 opened_ms: int, kernel_arrived_ms: int | None = None, tls: bool = False,
                 kernel_rtt_ms: int | None = None) -> None:
        # The worker's parts it works through: kept private, the web layer holds the hold.
        self._rooms, self._store, self._clock = rooms, store, clock
        self._hub, self._beats = hub, beats
        self.cap_ms = cap_ms        # the latency compensation cap; 0: none
        self.code = code
        self.token = token
        self._room = room           # as loaded before the press
        self.seat = room.seat_of(token)
        self.sid = secrets.token_hex(8)
        # What the socket measured as it opened.
        # The press: when the upgrade request arrived, not when a busy worker reached it
        # -- the kernel's note of its last data, or when the app first saw the request
        # if that is earlier (the kernel's note is at most a tick late).
        self.pressed_ms = arrived_ms if kernel_arrived_ms is None \
            else min(arrived_ms, kernel_arrived_ms)
        self.tls = tls                  # a socket over TLS took a round trip more
        # The kernel's round trip of the connection: behind a proxy, to the proxy; so only
        # a floor, for a hold too short for any ping's answer.
        self.kernel_rtt_ms = kernel_rtt_ms
        # What it has heard since: the last sign of life (an answer to one of its pings,
        # or the opening) and when each ping not yet answered went out.
        self.alive_ms = opened_ms
        self._asked: list[int] = []
        self._entry_rtt: int | None = None  # the round trip a late press is dated by
        # The press, once it counted.
        self.round: int | None = None       # the round and spending start this hold is in
        self.spend_ms = 0
        self.runs_out = 0                   # when the seat's bank runs dry
        self.version = 0                    # the room's version that holds this press
        self.dated_back_ms: int | None = None   # how far the release was dated back
        self._listener: Listener | None = None

    @property
    def pressed(self) -> bool:
        """Whether the press counted (the socket said ``in``)."""
        return self.round is not None

    # -- 1. the seat and its slot -------------------------------------------------

    def claim(self) -> bool:
        """Take the seat's hold slot, unless another live socket has it; then keep its
        heartbeat and listen to the room -- before the press, so no change slips between."""
        assert self.seat is not None
        if not self._store.take_slot(hold_key(self.code, self.seat), self.sid,
                                    self._clock.now_ms(), DEAD_MS):
            return False
        self._beats.add(self.sid, self.code, self.seat, self.alive_ms)
        self._listener = self._hub.listen(self.code)
        return True

    # -- 2. the press ---------------------------------------------------------------

    def _late_entry(self) -> bool:
        """Whether the press arrived at or after go, with compensation on: then it is
        dated back by the entry grace."""
        rnd = self._room.game.current
        return rnd is not None and self.pressed_ms >= rnd.go_ms and self.cap_ms > 0

    def entry_ping(self) -> int | None:
        """Before ``press``: how long (ms) the socket is to wait for the answer to one
        ping first -- a press that came after go on a seat never measured, waiting at
        most two caps -- or None: press at once."""
        if not self._late_entry():
            return None
        self._entry_rtt = self._measured_rtt()
        return fairness.entry_ping_wait(self.cap_ms) if self._entry_rtt is None else None

    def press(self) -> Refusal | None:
        """Press, dated by the rules' grace for a late entry; why not, if it does not count."""
        rnd = self._room.game.current
        at = self.pressed_ms
        try:
            if rnd is not None and self._late_entry():
                # The round trip ``entry_ping`` found, or -- after its ping -- the seat's
                # estimate now. None (no answer in time) earns no grace.
                rtt = self._entry_rtt if self._entry_rtt is not None else self._measured_rtt()
                at = fairness.press_moment(at, rnd.go_ms, rtt, self.cap_ms, self.tls)
            outcome = self._rooms.press(self.code, self.token, at)
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

    # -- 3. while held: round trips, signs of life, the server's own endings --------

    def pinged(self, sent_ms: int) -> None:
        """The socket sent a ping at ``sent_ms``."""
        self._asked.append(sent_ms)

    def answered(self, sent_ms: int, at_ms: int) -> None:
        """The socket read, at ``at_ms``, the answer to its ping of ``sent_ms`` (one of its
        own: random payloads, so never sent before the ping arrived): a sign of life and
        a round trip, noted at once for the worker's heartbeat batch. Answers come in
        order, and a client may answer only the latest of several pings (RFC 6455
        5.5.3): the earlier ones count as answered too."""
        self.alive_ms = at_ms
        self._asked = [t for t in self._asked if t > sent_ms]
        self._beats.note(self.sid, at_ms, [at_ms - sent_ms])

    def _measured_rtt(self) -> int | None:
        """The seat's round-trip estimate from ping answers, this socket's included
        (those the worker has not written yet first: they are the newest)."""
        assert self.seat is not None
        samples = self._beats.pending(self.sid) + self._store.rtt_samples(self.code, self.seat)
        return fairness.estimate_rtt(samples)

    def check(self) -> None:
        """Raise what this hold's last heartbeat write raised: a hold whose heartbeat
        cannot be kept ends (``unavailable``); another worker releases it at its last
        written heartbeat."""
        self._beats.check(self.sid)

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
            ran_out = self._clock.now_ms() >= self.runs_out
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
            room, self.version = self._rooms.load(self.code)
            return room
        if news is not None and news.version >= self.version:
            return news.room
        return None

    def _dead_line(self) -> int | None:
        """From when the line counts as dead if nothing more is heard: DEAD_MS after its
        last sign of life and UNANSWERED_MS after the oldest ping it has not answered;
        None while no ping is unanswered (nothing was asked)."""
        asked = min(self._asked, default=None)
        if asked is None:
            return None
        return max(self.alive_ms + DEAD_MS, asked + UNANSWERED_MS)

    def next_due(self) -> int:
        """When ``due`` may next find something: the bank's end, or just past the line's
        dead line -- so a lost link is noticed DEAD_MS after its last frame."""
        dead = self._dead_line()
        return self.runs_out if dead is None else min(self.runs_out, dead + 1)

    def due(self, now_ms: int) -> Ending | None:
        """End the hold if its bank ran dry (fired now rather than at the next tick) or
        its line fell silent (released at its last sign of life); None: neither."""
        if now_ms >= self.runs_out:
            self._rooms.settle(self.code)
            return "bank_empty"
        dead = self._dead_line()
        if dead is not None and now_ms > dead:
            self.release(self.alive_ms)
            return "connection_lost"
        return None

    def lost(self) -> Ending:
        """The socket can no longer reach its client (a write that would not go out):
        let go at the last sign of life, as a line fallen silent is."""
        return self.release(self.alive_ms) or "connection_lost"

    # -- 4. the release ------------------------------------------------------------

    def _rtt(self) -> int | None:
        """The round trip a release is dated back by: the seat's estimate, or the
        kernel's as a floor for a hold no ping was ever answered on."""
        rtt = self._measured_rtt()
        return self.kernel_rtt_ms if rtt is None else rtt

    def let_go(self, *, message_ms: int | None = None, closed_ms: int | None = None,
               eof_ms: int | None = None, now_ms: int) -> Ending | None:
        """The client let go: by its release message (``message_ms``: when that frame
        arrived), or by closing the socket (its close frame's arrival, else the end of
        its connection's data); the first the socket could date, else ``now_ms``."""
        return self.release(next((at for at in (message_ms, closed_ms, eof_ms)
                                  if at is not None), now_ms))

    def release(self, arrived_ms: int) -> Ending | None:
        """Let go at a moment the client's frames arrived (its release, its close, or
        its last sign of life), dated back by the player's latency. None: this let go;
        else why the hold had already ended (another worker released it, say, while
        the store was away): never dropped without a word to the player."""
        assert self.seat is not None and self.round is not None
        on = self.cap_ms > 0
        rtt = self._rtt() if on else None
        late = self._store.late_ms(self.code, self.seat, self.round) if on else 0
        dating = ReleaseDating(self.seat, self.round, arrived_ms, rtt, self.cap_ms,
                               self.spend_ms, late)
        try:
            outcome = self._rooms.release(self.code, self.token, dating)
        except (rules.NotAllowed, NoSuchRoom):
            return "round_over"         # the seat or the room is gone
        if outcome.action is None:      # the room no longer had this hold to let go
            return self._ending(outcome.room, self._beats.lost(self.sid)) or "round_over"
        assert isinstance(outcome.action, rules.Release) and outcome.action.at_ms is not None
        self.dated_back_ms = arrived_ms - outcome.action.at_ms  # for the worker's metrics
        return None

    # -- 5. the end ----------------------------------------------------------------

    def close(self) -> None:
        """The socket ends: stop listening, write the heartbeat's last news, free the slot."""
        if self._listener is not None:
            self._listener.close()
        self._beats.remove(self.sid)


def _open_hold(room: Room, seat: str, rnd: int) -> rules.Hold | None:
    """The seat's hold in round ``rnd`` of ``room``, if it is still held there."""
    current = room.game.current
    hold = current.holds.get(seat) if current and current.number == rnd else None
    return hold if hold is not None and hold.release_ms is None else None


@dataclass(frozen=True)
class ReleaseDating:
    """A release as data: when it counts is the moment it arrived, dated back by the
    player's latency from when the room showed everyone this round's spending -- as
    the room is loaded in the composer's try, not as this hold last saw it."""

    seat: str
    round: int
    arrived_ms: int
    rtt_ms: int | None
    cap_ms: int
    spend_ms: int
    late_ms: int = 0    # how late the seat's own stream showed it, the server's doing

    def moment(self, room: Room) -> int:
        return fairness.release_moment(self.arrived_ms, self.rtt_ms, self.cap_ms,
                                       self.spend_ms, room.spending_shown(self.round),
                                       self.late_ms)

    def action(self, room: Room, pid: str) -> rules.Release | None:
        """Seat ``pid``'s release in ``room`` as loaded; None if the room no longer has
        this hold (it ended before: there is nothing to let go)."""
        if _open_hold(room, self.seat, self.round) is None:
            return None
        return rules.Release(pid, self.moment(room))
