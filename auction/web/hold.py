"""The hold socket: opening it presses the button, closing it lets go.

The server's own timestamps decide: the press is the moment the upgrade
request arrived, the release the moment the client's ``release`` message,
close frame or end of stream arrived. The client never reports a time.

The server pings often (protocol pings, answered by the browser itself) and
timestamps every frame the client sends, so a client that vanishes without
closing is released at the last moment it was known alive, within a second.
The pings also measure the player's round trip, kept per seat in the store;
releases are compensated by it and late presses given an entry grace, by the
formulas of ``auction.game.fairness`` (the model: docs/fairness.md).
A holder's bank runs out at a moment known in advance, so the socket wakes
for it itself and ends the hold on time.
"""

from __future__ import annotations

import json
import os
import secrets

from flask import current_app, g, request
from flask_sock import Sock
from simple_websocket import ConnectionClosed
from wsproto.events import Ping
from wsproto.utilities import LocalProtocolError

from ..game import fairness, rules
from ..server.rooms import hold_slot
from ..server.store import UNAVAILABLE, NoSuchRoom
from . import limits
from .capacity import capacity
from .common import room_code, services
from .tap import Tap, kernel_rtt_ms

sock = Sock()

PING_MS = 200            # how often the server pings a holder
# With each ping goes a tiny text message the page itself can see (a protocol
# ping is invisible to scripts): a page that hears nothing for about a second
# knows its link stalled, and shows that it let go (docs/protocol.md).
BEAT = json.dumps({"type": "beat"})
DEAD_MS = 800            # silence after which a holder is taken for gone
DRAIN_MS = 1_000         # how long to wait for the client's close after the hold


def init(app) -> None:
    sock.init_app(app)


class HoldSession:
    """One press, from the socket's open to its close."""

    def __init__(self, ws, code: str, token: str, pressed_ms: int):
        self.svc = services()
        self.ws = ws
        self.code = code
        self.token = token
        self.pressed_ms = pressed_ms
        self.tap = Tap(ws.ws, self.svc.clock)
        ws.ws = self.tap
        self.pid = None
        self.slot = None
        self.sid = secrets.token_hex(8)
        self.cap = current_app.config["HOLD_COMP_CAP_MS"]
        self.tls = request.is_secure        # a socket over TLS took a round trip more
        self.round = None           # the round and spending start this hold is in
        self.spend_ms = None
        self.listener = None
        self.version = None         # the room's version that holds this press
        # Only a floor for holds too short for any ping answer: behind a proxy
        # the kernel sees the proxy, not the phone.
        self.kernel_rtt = kernel_rtt_ms(ws.sock)

    def send(self, text: str | None = None, **message) -> None:
        """Send ``text``, or ``message`` as JSON; a socket already closed gets nothing (its
        close may not have been read yet: then the write fails with a broken pipe)."""
        try:
            self.ws.send(text or json.dumps(message))
        except (ConnectionClosed, OSError):
            pass

    def refuse(self, reason: str) -> None:
        self.send(type="refused", reason=reason)

    def run(self) -> None:
        try:
            room, _ = self.svc.rooms.load(self.code)
        except NoSuchRoom:
            limits.missed_room()
            return self.refuse("no_room")
        self.pid = room.seat_of(self.token)
        if self.pid is None:
            return self.refuse("not_seated")
        # Counted only now, per device: a cap taken before the seat check would
        # answer strangers differently while someone at their address holds.
        with limits.hold_lease() as lease:
            if not lease.taken:
                return self.refuse("too_many_holds")
            self.slot = hold_slot(self.code, self.pid)
            if not self.svc.store.take_slot(self.slot, self.sid, self.svc.clock.now_ms(),
                                            DEAD_MS):
                return self.refuse("second_socket")
            self.svc.beats.add(self.sid, self.code, self.pid, self.tap.last_ms)
            # The room's published changes tell this hold when the server ended it;
            # listening before the press, no change can slip between the two.
            self.listener = self.svc.hub.listen(self.code)
            try:
                self._hold(room)
            finally:
                self.listener.close()
                self.svc.beats.note(self.sid, self.tap.last_ms, self._fresh())
                self.svc.beats.remove(self.sid)
                self._drain()

    def _drain(self) -> None:
        """Read until the client's close frame, so the server does not take it
        for the start of a new HTTP request on the same connection."""
        clock = self.svc.clock
        until = clock.now_ms() + DRAIN_MS
        while self.ws.connected and clock.now_ms() < until:
            try:
                self.ws.receive(timeout=(until - clock.now_ms()) / 1000)
            except ConnectionClosed:
                return

    def _press(self, room):
        rnd = room.game.current
        at = self.pressed_ms
        if rnd is not None and at >= rnd.go_ms and self.cap > 0:
            at = fairness.press_moment(at, rnd.go_ms, self._entry_rtt(), self.cap, self.tls)
        return self.svc.rooms.as_player(self.code, self.token, lambda pid: rules.Press(pid, at))

    def _entry_rtt(self) -> int | None:
        """The round trip for a press that came after go: the seat's estimate, or,
        for a seat never measured, one ping on this socket, waiting at most two
        caps. No answer in time: None, which earns no grace (fairness.entry_grace)."""
        rtt = self._measured_rtt()
        if rtt is None:
            self.tap.ponged.clear()
            self._ping(self.svc.clock.now_ms())
            self.tap.ponged.wait(fairness.entry_ping_wait(self.cap) / 1000)
            rtt = self._measured_rtt()
        return rtt

    def _fresh(self) -> list[int]:
        """This socket's round trips measured since last asked."""
        fresh, self.tap.fresh = self.tap.fresh, []
        return fresh

    def _measured_rtt(self) -> int | None:
        """The seat's round-trip estimate from ping answers, this socket's included
        (those the worker has not written yet first: they are the newest)."""
        self.svc.beats.note(self.sid, self.tap.last_ms, self._fresh())
        samples = self.svc.beats.pending(self.sid) + self.svc.store.rtt_samples(self.code,
                                                                                 self.pid)
        return fairness.estimate_rtt(samples)

    def _rtt(self) -> int | None:
        rtt = self._measured_rtt()
        return self.kernel_rtt if rtt is None else rtt

    def _hold(self, room) -> None:
        try:
            outcome = self._press(room)
        except rules.PressRefused as refused:
            return self.refuse(refused.reason)
        except (rules.NotAllowed, NoSuchRoom):
            return self.refuse("not_seated")
        game = outcome.room.game
        self.round, self.spend_ms = game.current.number, game.current.spend_ms
        self.version = outcome.version
        runs_out = game.current.spend_ms + game.player(self.pid).bank_ms
        if current_app.config["EXPOSE_WORKER"]:
            self.send(type="in", worker=os.getpid())
        else:
            self.send(type="in")
        self._watch(runs_out)

    def _watch(self, runs_out: int) -> None:
        clock = self.svc.clock
        next_ping = clock.now_ms()
        while True:
            now = clock.now_ms()
            if now >= next_ping:
                self.svc.beats.check()
                self._ping(now)
                self.send(BEAT)
                next_ping = now + PING_MS
                if not self._still_holding():
                    return self._ended_by_server(runs_out)
            if now >= runs_out:
                return self._run_out()
            if now - self.tap.last_ms > DEAD_MS:
                self._release(self.tap.last_ms)
                return self._close("connection_lost")
            # Wake for the dead line itself too, not just the next ping, so a
            # lost link is noticed DEAD_MS after its last frame, not up to a ping later.
            dead_at = self.tap.last_ms + DEAD_MS + 1
            wait = max(0, min(next_ping, runs_out, dead_at) - now) / 1000
            try:
                message = self.ws.receive(timeout=wait)
            except ConnectionClosed:
                message = None
            if message is not None and _is_release(message):
                return self._release(self.tap.text_ms[-1] if self.tap.text_ms else clock.now_ms())
            if not self.ws.connected:
                return self._release(self.tap.closed_ms or clock.now_ms())

    def _ping(self, now: int) -> None:
        # Unpredictable payloads: an answer cannot be sent before the ping arrives.
        payload = secrets.token_bytes(8)
        self.tap.pings[payload] = now
        try:
            self.ws.sock.send(self.tap.send(Ping(payload)))
        except (OSError, LocalProtocolError):
            pass    # the connection is closing; the watch loop sees it and lets go
        self.svc.beats.note(self.sid, self.tap.last_ms, self._fresh())

    def _my_hold(self) -> list | None:
        """[press, release] of this seat in this hold's round, as the room was last
        published (release None while held); None once the round is gone. No
        news since the press: still held. A change published before the press
        was saved (another player's press, a moment earlier) may arrive after
        it: it does not know this hold yet, so it says nothing. Reloaded only
        if news may be lost (the reload's version is the new floor: a store
        restarted from its file counts versions from lower down)."""
        news = self.listener.latest
        if self.listener.missed:
            self.listener.missed = False
            record, self.version = self.svc.store.load(self.code)
        elif news is not None and news.version >= self.version:
            record = news.record
        else:
            return [self.pressed_ms, None]
        rnd = record["game"]["current"]
        if rnd is None or rnd["number"] != self.round:
            return None
        return rnd["holds"].get(self.pid)

    def _still_holding(self) -> bool:
        hold = self._my_hold()
        return hold is not None and hold[1] is None

    def _ended_by_server(self, runs_out: int) -> None:
        """Say why the server ended this hold: the bank ran out (whoever fired it --
        this socket's timer or another worker's tick), or the round went away."""
        hold = self._my_hold()
        if hold is not None and hold[1] is not None:
            ran_out = hold[1] >= runs_out
        else:
            ran_out = self.svc.clock.now_ms() >= runs_out
        self._close("bank_empty" if ran_out else "round_over")

    def _run_out(self) -> None:
        """The bank ran dry: fire the due release now rather than wait for a tick."""
        self.svc.rooms.act(self.code, lambda room: None)
        self._close("bank_empty")

    def _close(self, reason: str) -> None:
        self.send(type="released", reason=reason)

    def _release(self, arrived_ms: int) -> None:
        """Let go at a moment the client's frames arrived (its release, its close, or
        its last sign of life), dated back by the player's latency."""
        rtt = self._rtt() if self.cap > 0 else None

        def moment(room) -> int:
            # Dated from when the room showed everyone this round's spending.
            shown = room.spending_shown(self.round)
            return fairness.release_moment(arrived_ms, rtt, self.cap, self.spend_ms, shown)
        try:
            self.svc.rooms.release(self.code, self.token, moment)
        except (rules.NotAllowed, NoSuchRoom):
            pass


def _is_release(message) -> bool:
    try:
        return json.loads(message).get("type") == "release"
    except (ValueError, AttributeError):
        return False


@sock.route("/r/<code>/hold")
def hold(ws, code):
    try:
        code = room_code(code)
    except NoSuchRoom:
        limits.missed_room()
        ws.send(json.dumps({"type": "refused", "reason": "no_room"}))
        return
    session = HoldSession(ws, code, g.device_token, g.arrived_ms)
    try:
        with capacity().serving("holds"):
            session.run()
    except UNAVAILABLE:   # the store is away (outage.py): say so rather than drop the socket
        session.send(type="refused" if session.round is None else "released",
                     reason="unavailable")
