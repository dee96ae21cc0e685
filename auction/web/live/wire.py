"""The hold socket's wire: a WebSocket that the hold's own greenlet reads, each read
dated by the kernel.

simple-websocket reads each socket in a thread of its own (a greenlet under gevent)
and hands every frame over through an event: a greenlet per hold and two wake-ups per
frame. A hold does nothing but wait for its client between its own moments, so here
its loop reads the socket itself (``Wire`` keeps simple-websocket's handshake and
frame handling, and starts no thread).

Every read is dated by when the kernel received its data (``SO_TIMESTAMPNS``), not by
when the worker got round to reading it: a release that waited 100 ms behind other
work in a busy worker is still charged at its arrival. The press is dated the same
way, by the kernel's time of the upgrade request's last data (``TCP_INFO``). Where the
kernel cannot say (not Linux, a TLS socket served directly), the worker's own clock
at the read dates it, as before.

One client's socket must never hold up the worker's other games, so the wire is
bounded both ways. What it reads is handled a read (4 KiB) at a time, and a client
that sends more frames than a phone ever does (FLOOD_FRAMES within FLOOD_MS: a
browser sends a pong or two a second, one release and one close) is closed with 1008
at once, as if it had closed itself then: 3 MB of tiny frames after ``in`` had kept a
worker's loop busy for a second. What it writes must go out within SEND_S, or the
client is taken for gone, as a silent line is (a client that asks for answers and
reads none had made the worker's write fail with BlockingIOError, and a 500 go into
the upgraded socket).
"""

from __future__ import annotations

import atexit
import base64
import hashlib
import socket
import struct
import sys
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from flask import Response
from simple_websocket import ConnectionClosed, Server
from werkzeug.exceptions import BadRequest
from wsproto import ConnectionType
from wsproto.connection import Connection
from wsproto.events import BytesMessage, CloseConnection, Ping, TextMessage
from wsproto.frame_protocol import CloseReason
from wsproto.utilities import LocalProtocolError

from .tap import TCPI_LAST_DATA_RECV, tcp_info

STAMPS = getattr(socket, "SO_TIMESTAMPNS", 35)     # Linux's value; Python does not name it
LINUX = sys.platform.startswith("linux")
ANCILLARY = socket.CMSG_SPACE(16) if LINUX else 0  # one struct timespec
# A kernel stamp older than this is taken for a wall clock stepped between the
# arrival and the read, and the read is dated when it was made: no worker that
# still serves holds is seconds behind.
MAX_AGE_MS = 2_000
GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"     # RFC 6455's, for Sec-WebSocket-Accept
# The kernel's tcpi_last_data_recv (tap.py) counts kernel ticks, 1 to 10 ms each by how
# the kernel was built: the arrival it gives is moved this much later, so a press is
# never dated before it came.
TICK_MS = 10
# More frames than this within FLOOD_MS is a flood, closed with 1008: a phone sends at
# most a few a second (an answer to each of the socket's pings, its release, its close).
FLOOD_FRAMES = 20
FLOOD_MS = 1_000
# A write to the client that has not gone out in this long ends the hold as a lost line
# does (holds.DEAD_MS: by then a client that reads nothing has answered no ping either).
SEND_S = 1.0

_keeper: socket.socket | None = None


def keep_stamps_on() -> None:
    """Linux stamps received packets only while some socket asks for it, and when the
    last one closes it stops, and starts again a moment after the next one asks: the
    first reads of a socket opened then would come undated. One socket per worker
    asks for as long as the worker lives."""
    global _keeper
    if LINUX and _keeper is None:
        keeper = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            keeper.setsockopt(socket.SOL_SOCKET, STAMPS, 1)
        except OSError:
            keeper.close()
            return
        _keeper = keeper
        atexit.register(keeper.close)


class _NoThread:
    """Where simple-websocket would start its reader thread: the hold reads for itself."""

    def __init__(self, target: Callable[[], None]) -> None:
        self.name = "wire"

    def start(self) -> None:
        pass


class ReadTime:
    """When the data of a wire's last read arrived, on the game's clock: kept apart from
    the wire, so what dates the frames (tap.py) needs no reference to the wire, which
    holds it -- a cycle only the collector's full pass would free."""

    __slots__ = ("ms",)

    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


class Wire(Server):
    """A server WebSocket read by its caller. ``read``: when the data of the last read
    arrived, on ``now_ms``'s clock; ``ended_ms``: when its end was read.

    The upgrade is answered here, from the request's headers as the WSGI server parsed
    them (simple-websocket rebuilds the request's text and parses it again with h11:
    a sixth of a hold's frame handling), with no extension and no subprotocol (the
    hold's messages are a few bytes; an offer of compression is declined). An upgrade
    it cannot take is a 400 before anything is sent (``BadRequest``)."""

    connected: bool
    ws: Any     # wsproto's frame Connection, or the hold's Tap around it (tap.py)

    def __init__(self, environ: dict, now_ms: Callable[[], int], **options: Any) -> None:
        self.key = _upgrade_key(environ)
        self.now_ms = now_ms
        self.read = ReadTime(now_ms())
        self.ended_ms: int | None = None
        # True once a write could not go out in time: the client is gone as a silent
        # line is, and its hold is let go at its last sign of life (live/hold.py).
        self.lost = False
        self._frames: deque[int] = deque(maxlen=FLOOD_FRAMES + 1)  # when the last ones came
        self._parts: list = []          # the message being gathered, and its length so far
        self._gathered = 0
        super().__init__(environ, thread_class=_NoThread, **options)
        self.stamped = LINUX and _stamp(self.sock)

    def handshake(self) -> None:
        """Answer the upgrade (RFC 6455, 4.2.2); from here on only frames."""
        accept = base64.b64encode(hashlib.sha1(self.key + GUID).digest())
        self.ws = Connection(ConnectionType.SERVER)
        self.sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                          b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n")
        self.connected = True

    def arrived_ms(self) -> int:
        """When the upgrade request's last data arrived, by the kernel's note of it
        (never earlier than it came, and at most TICK_MS later), or now if the kernel
        cannot say."""
        now = self.now_ms()
        ago = tcp_info(self.sock, TCPI_LAST_DATA_RECV) if LINUX else None
        return min(now, now - ago + TICK_MS) if ago is not None and ago <= MAX_AGE_MS else now

    def receive(self, timeout: float | None = None) -> Any:
        """The next message, or None if none came within ``timeout`` seconds;
        ConnectionClosed once the connection has ended and every message is read."""
        until = None if timeout is None else time.monotonic() + timeout
        while self.connected and not self.input_buffer:
            left = None if until is None else max(0.0, until - time.monotonic())
            if not self.pump(left):
                return None
        if self.input_buffer:
            return self.input_buffer.pop(0)
        raise ConnectionClosed(self.close_reason, self.close_message)

    def pump(self, timeout: float | None) -> bool:
        """Read once, waiting at most ``timeout`` seconds, and handle what came; False
        if nothing came in time (messages stay in ``input_buffer`` for ``receive``)."""
        if not self.connected:
            return True
        self.sock.settimeout(timeout)
        ancillary: list = []
        try:
            if self.stamped:
                data, ancillary, _, _ = self.sock.recvmsg(self.receive_bytes, ANCILLARY)
            else:
                data = self.sock.recv(self.receive_bytes)
        except (socket.timeout, BlockingIOError):
            return False
        except OSError:
            data = b""
        self.read.ms = self._dated(ancillary)
        if not data:
            self.ended_ms = self.read.ms
            self.connected = False
            return True
        self.ws.receive_data(data)
        self.connected = self._handle_events()
        return True

    def _handle_events(self) -> bool:
        """Handle the frames of the last read; False once the connection is over. Takes
        the place of simple-websocket's own, for the bounds (the module's docstring)."""
        out = b""
        for event in self.ws.events():
            self._frames.append(self.read.ms)
            if len(self._frames) > FLOOD_FRAMES and self.read.ms - self._frames[0] < FLOOD_MS:
                return self._refuse(out, CloseReason.POLICY_VIOLATION, "too many messages")
            if isinstance(event, CloseConnection):
                self.close_reason, self.close_message = event.code, event.reason
                self._reply(out, event.response())
                return False
            if isinstance(event, Ping):
                out += self.ws.send(event.response())
            elif isinstance(event, (TextMessage, BytesMessage)):
                self._gathered += len(event.data)
                if self.max_message_size and self._gathered > self.max_message_size:
                    return self._refuse(out, CloseReason.MESSAGE_TOO_BIG, "message too big")
                self._parts.append(event.data)
                if event.message_finished:
                    parts, self._parts, self._gathered = self._parts, [], 0
                    self.input_buffer.append(parts[0] if len(parts) == 1 else
                                             type(parts[0])().join(parts))
        if out:
            self.write(out)
        return self.connected

    def _refuse(self, out: bytes, code: int, reason: str) -> bool:
        """Close at once with ``code``, as if the client had closed at this read."""
        self.close_reason, self.close_message = code, reason
        self.ended_ms = self.read.ms
        self._reply(out, CloseConnection(code, reason))
        return False

    def _reply(self, out: bytes, closing: Any) -> None:
        try:
            out += self.ws.send(closing)
        except LocalProtocolError:      # the close was already sent
            pass
        self.write(out)

    def write(self, data: bytes) -> bool:
        """Write ``data`` whole within SEND_S; False (and ``lost``) if it could not go out."""
        if self.lost:
            return False
        self.sock.settimeout(SEND_S)
        try:
            self.sock.sendall(data)
            return True
        except OSError:     # a timeout, a reset, a broken pipe: the client is gone
            self.lost = True
            self.connected = False
            return False

    def send(self, data: Any) -> None:
        """Send a text message (bytes: binary); ConnectionClosed if the socket is over."""
        if not self.connected or self.lost:
            raise ConnectionClosed(self.close_reason, self.close_message)
        message = BytesMessage(data=data) if isinstance(data, bytes) else TextMessage(data=str(data))
        if not self.write(self.ws.send(message)):
            raise ConnectionClosed(self.close_reason, self.close_message)

    def close(self, reason: int | None = None, message: str | None = None) -> None:
        """Say goodbye with a close frame (if the socket is still open and writable)."""
        if not self.connected:
            raise ConnectionClosed(self.close_reason, self.close_message)
        self.connected = False
        try:
            self.write(self.ws.send(CloseConnection(reason or CloseReason.NORMAL_CLOSURE,
                                                    message)))
        except LocalProtocolError:
            pass

    def _dated(self, ancillary: list) -> int:
        now = self.now_ms()
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == STAMPS and len(data) >= 16:
                seconds, nanos = struct.unpack_from("qq", data)
                age_ms = (time.time() - seconds - nanos / 1e9) * 1000
                return now - round(age_ms) if 0 <= age_ms <= MAX_AGE_MS else now
        return now

    def finish(self) -> Response:
        """Close the connection (a close frame first, if still open); what the WSGI
        server is handed then, by how it lent the socket."""
        try:
            self.close()
        except (ConnectionClosed, OSError):
            pass
        self.sock.close()       # as simple-websocket's reader did when it ended
        return _Done(self.mode)


class _Done(Response):
    """The answer to an upgrade whose connection the socket has used up: nothing more
    to send (gunicorn stops at StopIteration; gevent takes an empty body)."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def __call__(self, environ, start_response):
        if self.mode == "gunicorn":
            raise StopIteration()
        if self.mode == "werkzeug":
            return super().__call__(environ, start_response)
        return []


def _upgrade_key(environ: dict) -> bytes:
    """The request's Sec-WebSocket-Key, if it is an upgrade this server takes (RFC 6455,
    4.2.1: version 13, a key of 16 bytes in base64); BadRequest if not."""
    key = environ.get("HTTP_SEC_WEBSOCKET_KEY", "").strip().encode()
    connection = {t.strip().lower() for t in environ.get("HTTP_CONNECTION", "").split(",")}
    try:
        sixteen = len(base64.b64decode(key, validate=True)) == 16
    except ValueError:
        sixteen = False
    if (environ.get("HTTP_UPGRADE", "").lower() != "websocket" or "upgrade" not in connection
            or environ.get("HTTP_SEC_WEBSOCKET_VERSION", "").strip() != "13" or not sixteen):
        raise BadRequest("not a WebSocket upgrade this server takes")
    return key


def _stamp(sock: Any) -> bool:
    """Ask the kernel to date this socket's reads; False where it cannot be asked."""
    tls = getattr(sock, "_sslobj", None) is not None    # reflect: ssl's own, not the server's
    if not hasattr(sock, "recvmsg") or tls:
        return False
    try:
        sock.setsockopt(socket.SOL_SOCKET, STAMPS, 1)
    except OSError:
        return False
    return True
