"""A player's device speaking the public protocol: JSON posts, the SSE view stream, the hold socket."""

from __future__ import annotations

import base64
import json
import os
import socket
import threading
import time
from urllib.parse import urlparse

import requests
import websocket


# The server's liveness message on a hold socket, every beat (500 ms) while held: not news.
BEAT = '{"type": "beat"}'

# Every device made, so a fixture can close what a test left open.
OPEN: list = []


class Player:
    """One device: a cookie jar, a JSON view stream, and holds on demand."""

    def __init__(self, base_url: str):
        OPEN.append(self)
        self.base = base_url
        self.http = requests.Session()
        self.http.headers["Accept"] = "application/json"
        self.code: str | None = None
        self.views: list[dict] = []
        self.arrivals: list[float] = []     # monotonic time each view arrived
        self._changed = threading.Condition()
        self._stream = None
        self._following = False
        self._holds: list = []

    # -- requests ------------------------------------------------------------

    def post(self, path: str, body: dict | None = None, expect: int | None = 200):
        response = self.http.post(self.base + path, json=body or {}, timeout=10)
        if expect is not None:
            assert response.status_code == expect, (path, response.status_code, response.text)
        return response

    def create(self, name: str, preset: str = "quick") -> str:
        self.code = self.post("/rooms", {"name": name, "preset": preset}, 201).json()["code"]
        return self.code

    def join(self, code: str, name: str) -> dict:
        self.code = code
        return self.post(f"/r/{code}/join", {"name": name}).json()

    def state(self) -> dict:
        response = self.http.get(f"{self.base}/r/{self.code}/state", timeout=10)
        assert response.status_code == 200, response.text
        return response.json()

    @property
    def cookie(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.http.cookies)

    # -- the view stream -----------------------------------------------------

    def follow(self) -> None:
        """Read this device's JSON view stream in the background, reconnecting
        like a browser's EventSource if the server goes away."""
        self._following = True
        threading.Thread(target=self._follow, daemon=True).start()

    def _follow(self) -> None:
        while self._following:
            try:
                response = self.http.get(f"{self.base}/r/{self.code}/events?format=json",
                                         stream=True, timeout=(5, 60))
            except Exception:
                time.sleep(0.2)
                continue
            self._stream = response
            self._read(response)
            time.sleep(0.2)

    def _read(self, response) -> None:
        event, data = None, []
        try:
            for line in response.iter_lines(decode_unicode=True):
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].lstrip(" "))
                elif line == "" and data:
                    if event == "view":
                        with self._changed:
                            self.views.append(json.loads("\n".join(data)))
                            self.arrivals.append(time.monotonic())
                            self._changed.notify_all()
                    event, data = None, []
        except Exception:
            pass

    def stop(self) -> None:
        """Close everything this device opened."""
        self._following = False
        if self._stream is not None:
            # Unblock the reader at once (a plain close waits for the next byte).
            sock = getattr(self._stream.raw.connection, "sock", None)
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self._stream.close()
        for hold in self._holds:
            hold.close()
        self.http.close()

    def wait_view(self, test, timeout: float = 30) -> dict:
        """The first view (from now on, or the latest) for which ``test(view)`` is true."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                if self.views and test(self.views[-1]):
                    return self.views[-1]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no such view; last: {self.views[-1] if self.views else None}")
                self._changed.wait(left)

    def view_arrival(self, test) -> float:
        """When the first view satisfying ``test`` arrived (monotonic)."""
        with self._changed:
            for view, at in zip(self.views, self.arrivals):
                if test(view):
                    return at
        raise LookupError("no such view yet")

    # -- holds ---------------------------------------------------------------

    def open_hold(self, timeout: float = 10) -> websocket.WebSocket:
        url = self.base.replace("http", "ws", 1) + f"/r/{self.code}/hold"
        return websocket.create_connection(url, cookie=self.cookie, timeout=timeout,
                                           enable_multithread=True)

    def press(self) -> Hold:
        """Press: open the hold socket and wait for the server's first answer."""
        hold = Hold(self.open_hold())
        self._holds.append(hold)
        return hold

    def raw_press(self, **behaviour) -> RawHold:
        hold = RawHold(self, **behaviour)
        self._holds.append(hold)
        return hold


class Hold:
    """An open hold socket, read in the background so protocol pings get answered."""

    def __init__(self, ws: websocket.WebSocket):
        self.ws = ws
        self.messages: list[dict] = []
        self.closed = threading.Event()
        self._got = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        # The first message may be read before we get here (it can share a
        # read with the handshake's answer), so wait for message 0 itself.
        self.first = self.next_message(after=0)

    def _read(self) -> None:
        try:
            while True:
                text = self.ws.recv()   # answers pings as a side effect
                if not text:
                    break
                if text == BEAT:
                    continue
                with self._got:
                    self.messages.append(json.loads(text))
                    self._got.notify_all()
        except (websocket.WebSocketException, OSError, ValueError):
            pass
        finally:
            self.ws.shutdown()
            self.closed.set()
            with self._got:
                self._got.notify_all()

    def next_message(self, timeout: float = 10, after: int | None = None) -> dict | None:
        """The next message from now on (or the one at index ``after``)."""
        count = len(self.messages) if after is None else after
        with self._got:
            self._got.wait_for(lambda: len(self.messages) > count or self.closed.is_set(),
                               timeout)
        return self.messages[count] if len(self.messages) > count else (
            self.messages[-1] if self.messages else None)

    @property
    def accepted(self) -> bool:
        return bool(self.first) and self.first.get("type") == "in"

    def release(self) -> None:
        """Let go as a browser does: say so, then close (without waiting for the reply)."""
        try:
            self.ws.send(json.dumps({"type": "release"}))
        except (websocket.WebSocketException, OSError):
            pass
        threading.Thread(target=self._close, daemon=True).start()

    def _close(self) -> None:
        try:
            self.ws.close(timeout=2)
        except (websocket.WebSocketException, OSError):
            pass

    def close(self) -> None:
        self._close()
        self.ws.shutdown()


def hold_handshake(player: Player, extra: str = "") -> tuple[socket.socket, bytes, bytes]:
    """Open ``player``'s hold socket by hand (``extra``: more header lines, each ending in
    CRLF): the socket, the 101 answer's head, and whatever followed it."""
    url = urlparse(player.base)
    sock = socket.create_connection((url.hostname, url.port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((
        f"GET /r/{player.code}/hold HTTP/1.1\r\nHost: {url.netloc}\r\n"
        f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        f"Sec-WebSocket-Version: 13\r\nCookie: {player.cookie}\r\n{extra}\r\n").encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += sock.recv(4096)
    head, _, rest = buf.partition(b"\r\n\r\n")
    assert b" 101 " in head.split(b"\r\n")[0], head
    return sock, head, rest


class RawHold:
    """A hold over a bare socket that answers pings until told to fall silent:
    a phone that loses its signal mid-hold without closing anything.

    ``answering=False`` never answers a ping; ``forge_every`` (s) sends pongs
    nobody asked for, with made-up payloads: a dishonest client's attempts to
    look alive, or near, without answering the server."""

    def __init__(self, player: Player, answering: bool = True, forge_every: float | None = None):
        self.sock, _, self._buf = hold_handshake(player)
        self.answering = answering
        self.closed = threading.Event()
        if forge_every:
            threading.Thread(target=self._forge, args=(forge_every,), daemon=True).start()
        self.messages: list[dict] = []
        self.last_pong: float | None = None
        self._got = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        with self._got:
            self._got.wait_for(lambda: self.messages or self.closed.is_set(), 10)
        self.first = self.messages[0] if self.messages else None

    def _frame(self) -> tuple[int, bytes]:
        while True:
            if len(self._buf) >= 2:
                length, start = self._buf[1] & 0x7F, 2
                if length == 126 and len(self._buf) >= 4:
                    length, start = int.from_bytes(self._buf[2:4], "big"), 4
                if length < 126 and len(self._buf) >= start + length:
                    opcode = self._buf[0] & 0x0F
                    payload, self._buf = self._buf[start:start + length], self._buf[start + length:]
                    return opcode, payload
            chunk = self.sock.recv(4096)
            if not chunk:
                raise EOFError
            self._buf += chunk

    def _send(self, opcode: int, payload: bytes) -> None:
        """One masked frame from the client (payloads under 126 bytes)."""
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked)

    def _forge(self, every: float) -> None:
        while not self.closed.is_set():
            try:
                self._send(0xA, os.urandom(8))
            except OSError:
                return
            time.sleep(every)

    def _read(self) -> None:
        try:
            while True:
                opcode, payload = self._frame()
                if opcode == 0x9 and self.answering:        # ping -> masked pong
                    self._send(0xA, payload)
                    self.last_pong = time.monotonic()
                elif opcode == 0x1 and payload != BEAT.encode():
                    with self._got:
                        self.messages.append(json.loads(payload))
                        self._got.notify_all()
                elif opcode == 0x8:
                    return
        except (EOFError, OSError):
            return
        finally:
            self.closed.set()
            with self._got:
                self._got.notify_all()

    def release(self) -> None:
        """Let go as a browser does: the release message, then a close frame."""
        try:
            self._send(0x1, json.dumps({"type": "release"}).encode())
            self._send(0x8, b"\x03\xe8")
        except OSError:
            pass

    def close(self) -> None:
        self.closed.set()
        self.sock.close()

    def fall_silent(self) -> float:
        """Stop answering (the socket stays open); returns when the last answer went out."""
        self.answering = False
        return self.last_pong or time.monotonic()
