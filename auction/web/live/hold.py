"""The hold socket: opening it presses the button, closing it lets go.

This module is the socket alone: it moves frames. It timestamps every frame the
client sends (wire.py, tap.py), pings (protocol pings, answered by the browser
itself) and sends the hold's messages; and it hands the server's ``Hold``
(server/holds.py) what it measured, as plain values, as it happens: when the
upgrade request arrived and the socket opened, the kernel's round trip, each
ping sent and each answer read, the arrival of the client's release, close or
end of stream. What those mean -- the seat, the slot, the dating of the press
and the release, whether the server ended the hold -- the ``Hold`` decides; it
never calls back. The per-device limit on holds and the worker's count of them
are taken here, around the hold.

A client that vanishes without closing is released at the last moment it was
known alive, within a second; a holder's bank runs out at a moment known in
advance, so the socket wakes for it itself and ends the hold on time.
"""

from __future__ import annotations

import os
import secrets

from flask import Flask, current_app, g, request
from simple_websocket import ConnectionClosed
from wsproto.events import Ping, TextMessage
from wsproto.utilities import LocalProtocolError

from ...server import (BEAT_MESSAGE, UNAVAILABLE, Ending, Hold, NoSuchRoom, Refusal, in_message,
                       is_release_message, refused_message, released_message)
from ..door import identity, limits
from ..operations import health, metrics
from ..door.capacity import capacity
from ..common import HOLD_ENDPOINT, load_room, room_code, services
from .tap import Tap, kernel_rtt_ms
from .wire import Wire, keep_stamps_on

# The pings measure the round trip and are the holder's signs of life. A few soon after
# the press (a short hold has its samples too), then one every BEAT_MS, written together
# with the beat the page listens for: one write a beat. Each write and each answer costs
# the worker a wake-up, so a holder costs two a second, not ten.
EARLY_PINGS_MS = (0, 150, 300)
BEAT_MS = 500
DRAIN_MS = 1_000         # how long to wait for the client's close after the hold


def init(app: Flask) -> None:
    keep_stamps_on()
    app.add_url_rule("/r/<code>/hold", HOLD_ENDPOINT, _route, websocket=True)


class HoldSocket:
    """One hold socket, from its open to its close."""

    def __init__(self, ws: Wire, code: str, token: str, arrived_ms: int,
                 kernel_arrived_ms: int) -> None:
        self.svc = services()
        self.ws = ws
        self.code = code
        self.token = token
        self.arrived_ms = arrived_ms                # the upgrade request, as the app saw it
        self.kernel_arrived_ms = kernel_arrived_ms  # ...and as the kernel noted its data
        self.opened_ms = ws.read()          # no frame read yet: the socket's opening
        self.tap = Tap(ws.ws, ws.read)      # each frame dated by its read's arrival
        ws.ws = self.tap
        self.tls = request.is_secure
        self.drain = health.drain()
        self.hold: Hold | None = None
        self.ended: Ending | None = None    # what the server said ended the hold
        # Only a floor for holds too short for any ping answer: behind a proxy
        # the kernel sees the proxy, not the phone.
        self.kernel_rtt_ms = kernel_rtt_ms(ws.sock)

    @property
    def pressed(self) -> bool:
        return self.hold is not None and self.hold.pressed

    def send(self, text: str) -> None:
        """Send ``text``; a socket already closed gets nothing (its close may not have
        been read yet: then the write fails with a broken pipe)."""
        try:
            self.ws.send(text)
        except (ConnectionClosed, OSError):
            pass

    def refuse(self, reason: Refusal) -> None:
        metrics.REFUSED.labels(reason).inc()
        self.send(refused_message(reason))

    def end(self, reason: Ending) -> None:
        if self.ended is not None:      # said once: the first reason is the true one
            return
        self.ended = reason
        metrics.ENDED.labels(reason).inc()
        self.send(released_message(reason))

    def run(self) -> None:
        try:
            hold = self.hold = self.svc.hold(
                self.code, self.token, load_room(self.code), arrived_ms=self.arrived_ms,
                kernel_arrived_ms=self.kernel_arrived_ms, opened_ms=self.opened_ms,
                tls=self.tls, kernel_rtt_ms=self.kernel_rtt_ms)
        except NoSuchRoom:
            limits.missed_room()
            return self.refuse("no_room")
        if hold.seat is None:
            return self.refuse("not_seated")
        self.tap.answered = hold.answered   # each answer to a ping, as it is read
        # Counted only now, per device: a cap taken before the seat check would
        # answer strangers differently while someone at their address holds.
        with limits.hold_lease() as lease:
            if not lease.taken:
                return self.refuse("too_many_holds")
            give_back = capacity().take("holds", identity.address())
            if give_back is None:         # the address has its share of this worker's
                return self.refuse("too_many_holds")
            try:
                if not hold.claim():
                    return self.refuse("second_socket")
                try:
                    self._hold(hold)
                finally:
                    hold.close()
                    self._drain()
            finally:
                give_back()

    def _drain(self) -> None:
        """Read until the client's close frame, so the server does not take it
        for the start of a new HTTP request on the same connection."""
        now_ms = self.svc.now_ms
        until = now_ms() + DRAIN_MS
        while self.ws.connected and now_ms() < until:
            try:
                self.ws.receive(timeout=(until - now_ms()) / 1000)
            except ConnectionClosed:
                return

    def _hold(self, hold: Hold) -> None:
        wait_ms = hold.entry_ping()     # a late press on a seat never measured: one ping first
        if wait_ms is not None:
            self._await_answer(hold, wait_ms)
        refusal = hold.press()
        if refusal is not None:
            return self.refuse(refusal)
        metrics.HOLDS.inc()
        self.send(in_message(os.getpid() if current_app.config["EXPOSE_WORKER"] else None))
        try:
            self._watch(hold)
        except UNAVAILABLE:     # said now, not after the socket's close and drain
            self.end("unavailable")
            raise
        if hold.dated_back_ms is not None:
            metrics.COMPENSATION.observe(hold.dated_back_ms)

    def _watch(self, hold: Hold) -> None:
        now_ms = self.svc.now_ms
        start = now_ms()
        early = [start + ms for ms in EARLY_PINGS_MS]
        next_beat = start + BEAT_MS
        next_ping = early.pop(0)
        while True:
            now = now_ms()
            if self.drain.overdue():    # the worker exits: let go as if the line dropped
                hold.release(now)
                return self.end("connection_lost")
            if now >= next_ping:
                # First read what has come: the answer to this ping could arrive before
                # that read, and the kernel joins data queued together under the stamp
                # of the newest -- a release waiting in a busy worker would be dated at
                # the pong (wire.py).
                self.ws.pump(0)
                hold.check()
                beat = now >= next_beat
                self._ping(hold, now, beat)
                if beat:
                    next_beat = now + BEAT_MS
                next_ping = early.pop(0) if early else next_beat
                ended = hold.ended()
                if ended is not None:
                    return self.end(ended)
            ended = hold.due(now)
            if ended is not None:
                return self.end(ended)
            # Wake for the hold's own moments too (the bank's end, the dead line),
            # not just the next ping.
            wait = max(0, min(next_ping, hold.next_due()) - now) / 1000
            try:
                message = self.ws.receive(timeout=wait)
            except ConnectionClosed:
                message = None
            if is_release_message(message):
                return self._said(hold.let_go(
                    message_ms=self.tap.text_ms[-1] if self.tap.text_ms else None,
                    now_ms=now_ms()))
            if self.ws.lost:    # it reads nothing of ours: gone, as a silent line is
                return self.end(hold.lost())
            if not self.ws.connected:
                return self._said(hold.let_go(closed_ms=self.tap.closed_ms,
                                              eof_ms=self.ws.ended_ms, now_ms=now_ms()))

    def _said(self, ended: Ending | None) -> None:
        if ended is not None:   # the hold had ended before (say, the store was away): say why
            self.end(ended)

    def _await_answer(self, hold: Hold, wait_ms: int) -> None:
        """Ping once, and read until its answer comes, at most ``wait_ms``."""
        self.tap.ponged = False
        self._ping(hold, self.svc.now_ms())
        until = self.svc.now_ms() + wait_ms
        while not self.tap.ponged and self.ws.connected:
            left = until - self.svc.now_ms()
            if left <= 0 or not self.ws.pump(left / 1000):
                return

    def _ping(self, hold: Hold, now: int, beat: bool = False) -> None:
        """A ping, and with ``beat`` the beat message behind it in the same write."""
        # Unpredictable payloads: an answer cannot be sent before the ping arrives.
        payload = secrets.token_bytes(8)
        self.tap.pings[payload] = now
        hold.pinged(now)
        try:
            data = self.tap.send(Ping(payload))
            if beat:
                data += self.tap.send(TextMessage(BEAT_MESSAGE))
        except LocalProtocolError:
            return    # the connection is closing; the watch loop sees it and lets go
        self.ws.write(data)     # if it cannot go out, the watch loop sees the line lost


def _route(code: str):
    ws = Wire(request.environ, services().now_ms, **current_app.config["SOCK_SERVER_OPTIONS"])
    try:
        hold(ws, code, g.arrived_ms, ws.arrived_ms())
    except ConnectionClosed:
        pass
    except Exception:
        # After the 101 the connection speaks WebSocket: an error page written into it
        # would be read as frames. A fault of ours is logged and the socket closed.
        current_app.logger.exception("the hold socket of %s failed", code)
    return ws.finish()


def hold(ws: Wire, code: str, arrived_ms: int, kernel_arrived_ms: int) -> None:
    try:
        code = room_code(code)
    except NoSuchRoom:
        limits.missed_room()
        metrics.REFUSED.labels("no_room").inc()
        ws.send(refused_message("no_room"))
        return
    session = HoldSocket(ws, code, g.device_token, arrived_ms, kernel_arrived_ms)
    try:
        with capacity().serving("holds"):
            session.run()
    except UNAVAILABLE:   # the store is away (outage.py): say so rather than drop the socket
        if session.pressed:
            session.end("unavailable")
        else:
            session.refuse("unavailable")
