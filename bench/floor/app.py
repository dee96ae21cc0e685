"""The floor: what the wire of bench/load.py's games costs a gevent worker, and nothing else.

A bare WSGI app for ``gunicorn -k gevent`` that speaks just enough of the public protocol
(docs/protocol.md) for bench/load.py's players to play their whole games: rooms, seats,
the clock probe, the phone's event stream, one hold socket per press, the final table.
Everything else the game's server does is left out: no Flask, no Redis, no abuse limits,
no templates (each part is a few bytes formed by hand), no rules beyond "a bid is the time
held after go", no timers but one greenlet per room, no kernel stamps. The rooms live in
the worker's memory, so it serves with one worker only.

What it keeps is what the protocol makes every player-round cost a server on this stack
(Python, gevent, gunicorn), however its game is built: accepting a new connection for
each press and answering its upgrade, the hold's pings at the press, 150 and 300 ms and
then a ping and a beat every 500 ms, reading their answers and the release, the close
handshake, and the stream's writes at each change of phase (three a round; the game's
stream sends more). Its CPU per player-round is therefore a floor under any build of the
game on this stack: docs/scaling.md, "The floor".

    .venv/bin/python bench/load.py --root bench/floor --players 248 --workers 1

With ``--env FLOOR_PINGS_MS=0 FLOOR_BEAT_MS=1000`` it pings once at the press and then
beats once a second: a sparser schedule than the game's, for a lower floor still.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import os
import random
import socket
import string
import time

import gevent
from gevent.event import Event

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"     # RFC 6455's, for Sec-WebSocket-Accept
# As the game's hold socket pings, unless the environment says otherwise (see above).
EARLY_PINGS_MS = tuple(int(ms) for ms in os.environ.get("FLOOR_PINGS_MS", "0,150,300").split(","))
BEAT_MS = int(os.environ.get("FLOOR_BEAT_MS", "500"))
ENTRY_MS = 1200         # a round ends no sooner than this after go, as the game's entry grace
BANK_MS = 600_000
PING = b"\x89\x00"
BEAT = b"\x81\x10" + b'{"type": "beat"}'
CLOSE = b"\x88\x02\x03\xe8"

rooms: dict[str, Room] = {}
devices = itertools.count(1)


def now_ms() -> int:
    return int(time.time() * 1000)


def text_frame(text: str) -> bytes:
    data = text.encode()
    return bytes([0x81, len(data)]) + data     # every message here is under 126 bytes


class Room:
    def __init__(self, code: str) -> None:
        self.code = code
        self.seats: list[str] = []
        self.rounds = 3
        self.ready_ms = 2000
        self.result_ms = 2000
        self.phase, self.round, self.go_ms = "lobby", 0, 0
        self.holding: set[str] = set()
        self.bids: dict[int, dict[str, int]] = {}
        self.banks: dict[str, int] = {}
        self.changed = Event()      # replaced at each change: a stream waits on the one it saw
        self.wake = Event()         # a release: the round may end
        self.status = self.players = b""
        self.publish()

    def publish(self) -> None:
        at = self.go_ms if self.phase == "countdown" else ""
        left = max(0, self.go_ms - now_ms()) if self.phase == "countdown" else ""
        self.status = (f'event: status\ndata: <div id="status" data-phase="{self.phase}" '
                       f'data-round="{self.round}"><span class="timer" data-deadline-ms="{left}"'
                       f' data-deadline-at-ms="{at}"></span></div>\n\n').encode()
        self.players = (b"event: players\ndata: <ul>"
                        + b'<li class="player"></li>' * len(self.seats) + b"</ul>\n\n")
        changed, self.changed = self.changed, Event()
        changed.set()

    def play(self) -> None:
        for rnd in range(1, self.rounds + 1):
            self.round, self.phase = rnd, "countdown"
            self.go_ms = now_ms() + self.ready_ms
            self.bids[rnd] = {}
            self.publish()
            gevent.sleep(self.ready_ms / 1000)
            self.phase = "spending"
            self.publish()
            close = self.go_ms + ENTRY_MS
            while self.holding or now_ms() < close:
                left = close - now_ms()
                self.wake.wait(left / 1000 if left > 0 else None)
                self.wake.clear()
            self.phase = "result"
            self.publish()
            gevent.sleep(self.result_ms / 1000)
        self.phase = "ended"
        self.publish()

    def view(self, device: str) -> dict:
        played = [r for r in self.bids if r < self.round or self.phase in ("result", "ended")]
        return {"phase": self.phase, "round": self.round, "me": {"id": device},
                "players": [{"id": d} for d in self.seats],
                "history": [{"round": r} for r in played],
                "final": {"bids": [{"round": r, "bids": self.bids[r]} for r in played],
                          "standings": [{"id": d, "bank_ms": self.banks[d]} for d in self.seats]}}


def app(environ, start_response):
    path, method = environ.get("PATH_INFO", "/"), environ["REQUEST_METHOD"]
    device = _cookie(environ)
    parts = path.strip("/").split("/")
    if path == "/clock":
        return _json(start_response, {"now_ms": now_ms()})
    if path == "/rooms" and method == "POST":
        code = "".join(random.choices(string.ascii_uppercase, k=4))
        room = rooms[code] = Room(code)
        return _seat(start_response, room, 201, {"code": code})
    room = rooms.get(parts[1]) if len(parts) == 3 and parts[0] == "r" else None
    if room is None:
        start_response("200 OK" if path == "/" else "404 Not Found",
                       [("Content-Type", "text/plain")])
        return [b"the floor"]
    action = parts[2]
    if action == "join":
        return _seat(start_response, room, 200, {})
    if action == "settings":
        body = json.loads(environ["wsgi.input"].read() or b"{}")
        room.rounds = body.get("rounds", room.rounds)
        room.ready_ms, room.result_ms = body.get("ready_ms", 2000), body.get("result_ms", 2000)
        return _json(start_response, {})
    if action == "start":
        gevent.spawn(room.play)
        return _json(start_response, {})
    if action == "state":
        return _json(start_response, room.view(device))
    if action == "events":
        start_response("200 OK", [("Content-Type", "text/event-stream"),
                                  ("Cache-Control", "no-cache")])
        return _stream(room)
    if action == "hold":
        _hold(environ, room, device)
        raise StopIteration()   # gunicorn: the socket is used up, nothing more to send
    start_response("404 Not Found", [("Content-Type", "text/plain")])
    return [b""]


def _cookie(environ) -> str:
    for part in environ.get("HTTP_COOKIE", "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == "ta_device":
            return value
    return ""


def _json(start_response, body: dict, status: str = "200 OK", headers=()):
    data = json.dumps(body).encode()
    start_response(status, [("Content-Type", "application/json"), *headers])
    return [data]


def _seat(start_response, room: Room, status: int, body: dict):
    device = f"p{next(devices)}"
    room.seats.append(device)
    room.banks[device] = BANK_MS
    room.publish()
    return _json(start_response, body, f"{status} OK",
                 [("Set-Cookie", f"ta_device={device}; Path=/")])


def _stream(room: Room):
    yield b"retry: 1000\n\n"
    status = players = b""
    while True:
        changed = room.changed       # taken before reading: a change from here on wakes us
        out = (room.players if room.players != players else b"") + (
            room.status if room.status != status else b"")
        status, players = room.status, room.players
        yield out or b": still here\n\n"
        changed.wait(15)


def _hold(environ, room: Room, device: str) -> None:
    sock = environ["gunicorn.socket"]
    key = environ.get("HTTP_SEC_WEBSOCKET_KEY", "").encode()
    accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
    sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                 b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n")
    rnd = room.round
    if not (room.phase == "countdown" or (room.phase == "spending"
                                          and now_ms() <= room.go_ms + ENTRY_MS)):
        sock.sendall(text_frame('{"type": "refused", "reason": "too_late"}'))
        return _drain(sock, b"")
    room.holding.add(device)
    sock.sendall(text_frame('{"type": "in"}'))
    start = now_ms()
    pings = [start + ms for ms in EARLY_PINGS_MS]
    next_beat, buffer, released, closed = start + BEAT_MS, b"", None, False
    while released is None:
        now = now_ms()
        if now >= pings[0]:
            beat = now >= next_beat
            sock.sendall(PING + BEAT if beat else PING)
            pings.pop(0)
            if beat:
                next_beat = now + BEAT_MS
            if not pings:
                pings.append(next_beat)
            continue
        sock.settimeout((pings[0] - now) / 1000)
        try:
            data = sock.recv(4096)
        except socket.timeout:
            continue
        if not data:
            released, closed = now_ms(), True
            break
        buffer += data
        for opcode, payload, buffer in _frames(buffer):
            closed = closed or opcode == 0x8
            if opcode == 0x1 and b"release" in payload or closed:
                released = now_ms()
    bid = max(0, released - room.go_ms) if room.round == rnd else 0
    room.bids[rnd][device] = bid
    room.banks[device] -= bid
    room.holding.discard(device)
    room.wake.set()
    _drain(sock, buffer, closed)


def _drain(sock, buffer: bytes, closed: bool = False) -> None:
    """Wait (a second at most) for the client's close, answer it, and close."""
    until = time.monotonic() + 1
    while not closed and time.monotonic() < until:
        for opcode, _, buffer in _frames(buffer):
            closed = closed or opcode == 0x8
        if closed:
            break
        sock.settimeout(max(0.0, until - time.monotonic()))
        try:
            data = sock.recv(4096)
        except (socket.timeout, OSError):
            break
        if not data:
            break
        buffer += data
    try:
        sock.sendall(CLOSE)
    except OSError:
        pass
    sock.close()


def _frames(buffer: bytes):
    """Each whole client frame in ``buffer``: (opcode, unmasked payload, what is left)."""
    while len(buffer) >= 2:
        length, at = buffer[1] & 0x7F, 2
        if length == 126:
            length, at = int.from_bytes(buffer[2:4], "big"), 4
        elif length == 127:
            length, at = int.from_bytes(buffer[2:10], "big"), 10
        if len(buffer) < at + 4 + length:
            return
        opcode, mask = buffer[0] & 0x0F, buffer[at:at + 4]
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(buffer[at + 4:at + 4 + length]))
        buffer = buffer[at + 4 + length:]
        yield opcode, payload, buffer
