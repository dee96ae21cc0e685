"""Everything bounded, against a real server: no single client can 500, stall or grow a worker.

Each test is an attack a client could make with a short script (issue 26, items 8 and
9): an oversized hold-socket message, and JSON nested or numbers long enough to break
the parser. Connections that sit idle or crawl are in test_timeouts.py.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time

import psutil
import pytest

from client import Player, hold_handshake

JSON = {"Accept": "application/json"}
LONG = "9" * 5_000                       # past Python's 4,300-digit int() limit


def lobby(server) -> tuple[Player, Player]:
    host, guest = Player(server.url), Player(server.url)
    code = host.create("Ann", "stake")
    guest.join(code, "Bob")
    return host, guest


def unchanged(host: Player):
    """What a refused post must leave as it was: the host's whole view of the lobby."""
    view = host.state()
    view.pop("deadline_ms", None)
    return view


def assert_no_traceback(server, since: int) -> None:
    """Nothing in the server's log from offset ``since`` on (each test looks at its own)."""
    log = server.output()[since:]
    assert "Traceback" not in log, log[-3000:]


# -- 1. the hold socket takes only small messages -----------------------------------

class RawSocket:
    """A hold socket spoken by hand, to send one frame far larger than any client would."""

    def __init__(self, player: Player, extra: str = ""):
        self.sock, self.head, self.buf = hold_handshake(player, extra)
        self.sending = threading.Lock()

    def frame(self) -> tuple[int, bytes]:
        """The next frame from the server (answering its pings, so the hold stays alive)."""
        while True:
            if len(self.buf) >= 2:
                length, start = self.buf[1] & 0x7F, 2
                if length == 126 and len(self.buf) >= 4:
                    length, start = int.from_bytes(self.buf[2:4], "big"), 4
                if length < 126 and len(self.buf) >= start + length:
                    opcode = self.buf[0] & 0x0F
                    payload, self.buf = self.buf[start:start + length], self.buf[start + length:]
                    if opcode == 0x9:
                        try:
                            self.send_frame(0xA, payload)
                        except OSError:
                            pass        # the server has stopped reading: its close is next
                        continue
                    return opcode, payload
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk

    def text(self) -> dict:
        while True:
            opcode, payload = self.frame()
            if opcode == 0x1 and b'"beat"' not in payload:
                return json.loads(payload)

    def send_frame(self, opcode: int, payload: bytes, fin: bool = True) -> None:
        """One frame, mask 0 (the payload goes as is); pieces of a message and the
        pongs between them take turns, as the protocol allows."""
        size = len(payload)
        length = bytes([size]) if size < 126 else bytes([127]) + size.to_bytes(8, "big")
        head = bytes([(0x80 if fin else 0) | opcode, 0x80 | length[0]]) + length[1:]
        with self.sending:
            self.sock.sendall(head + b"\0\0\0\0" + payload)

    def send_huge(self, size: int) -> None:
        """One text message of ``size`` bytes in 64 KiB pieces, answering pings
        between them, until the server stops taking it."""
        piece = b"a" * 65536
        count = size // len(piece)
        try:
            for i in range(count):
                self.send_frame(0x1 if i == 0 else 0x0, piece, fin=i == count - 1)
        except OSError:
            pass

    def close_code(self, timeout: float = 10) -> int | None:
        """The code of the server's close frame; None if it never sent one."""
        self.sock.settimeout(timeout)
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:    # beats and pings go on while it is open
                opcode, payload = self.frame()
                if opcode == 0x8:
                    return int.from_bytes(payload[:2], "big")
        except (EOFError, OSError):
            return None
        return None


def peak_rss(pid: int) -> int:
    """The most memory the process has ever had resident (Linux's VmHWM), in bytes:
    a message held only for a moment still shows, where the RSS after would not."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return psutil.Process(pid).memory_info().rss


def test_an_oversized_hold_message_is_closed_with_1009_and_the_hold_released(server):
    mark = len(server.output())
    host, guest = lobby(server)
    host.post(f"/r/{host.code}/settings", {"ready_ms": 10_000})
    host.post(f"/r/{host.code}/start")
    ws = RawSocket(guest)
    assert ws.text() == {"type": "in"}
    assert guest.state()["me"]["holding"] is True
    before = peak_rss(server.proc.pid)
    size = 16 * 1024 * 1024
    sender = threading.Thread(target=ws.send_huge, args=(size,), daemon=True)
    sender.start()
    code = ws.close_code()
    sender.join(10)
    deadline = time.monotonic() + 5
    while guest.state()["me"]["holding"] and time.monotonic() < deadline:
        time.sleep(0.05)
    grown = peak_rss(server.proc.pid) - before
    holding = guest.state()["me"]["holding"]
    ws.sock.close()
    # Closed as too big, released (not left hanging), and the message never kept.
    assert (code, holding) == (1009, False), f"the worker grew by {grown:,} bytes"
    assert grown < size // 4, f"the worker grew by {grown:,} bytes"
    assert_no_traceback(server, mark)


def test_a_hold_socket_takes_no_compression(server):
    """A browser offers permessage-deflate; accepted, the 1 KiB bound would apply only after
    inflating, and one 4 KiB read could grow to megabytes. The offer is declined."""
    host, guest = lobby(server)
    host.post(f"/r/{host.code}/settings", {"ready_ms": 10_000})
    host.post(f"/r/{host.code}/start")
    ws = RawSocket(guest, "Sec-WebSocket-Extensions: permessage-deflate; "
                          "client_max_window_bits\r\n")
    assert b"sec-websocket-extensions" not in ws.head.lower(), ws.head
    assert ws.text() == {"type": "in"}
    ws.sock.close()


GOOD_KEY = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
BAD_UPGRADES = {"no key": "Sec-WebSocket-Version: 13\r\n",
                "short key": "Sec-WebSocket-Key: YWJj\r\nSec-WebSocket-Version: 13\r\n",
                "key not base64": "Sec-WebSocket-Key: !!!!!!!!!!!!!!!!!!!!!!!!\r\n"
                                  "Sec-WebSocket-Version: 13\r\n",
                "old version": GOOD_KEY + "Sec-WebSocket-Version: 8\r\n",
                "no version": GOOD_KEY}


@pytest.mark.parametrize("name", BAD_UPGRADES)
def test_an_upgrade_the_server_cannot_take_is_a_clear_400_and_no_hold(server, name):
    """A hold socket's upgrade without a usable key or the protocol's version 13 (a
    script's, not a browser's) is refused before anything is sent, never a 500."""
    mark = len(server.output())
    host, guest = lobby(server)
    host.post(f"/r/{host.code}/settings", {"ready_ms": 10_000})
    host.post(f"/r/{host.code}/start")
    url = server.url.removeprefix("http://")
    sock = socket.create_connection(url.split(":"), timeout=10)
    try:
        sock.sendall((f"GET /r/{guest.code}/hold HTTP/1.1\r\nHost: {url}\r\n"
                      f"Upgrade: websocket\r\nConnection: Upgrade\r\n{BAD_UPGRADES[name]}"
                      f"Cookie: {guest.cookie}\r\nAccept: application/json\r\n\r\n").encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    finally:
        sock.close()
    assert answer.split(b"\r\n")[0] == b"HTTP/1.1 400 BAD REQUEST", answer[:300]
    assert guest.state()["me"]["holding"] is False
    assert_no_traceback(server, mark)


# -- 2. JSON and numbers: a clear 400, nothing changed, no traceback ------------------

NASTY_BODIES = {"deep list": "[" * 5_000, "deep object": '{"a":' * 3_000,
                "deep but closed": "[" * 2_000 + "]" * 2_000,
                "long int": '{"players": ' + LONG + "}"}


@pytest.mark.parametrize("name", NASTY_BODIES)
@pytest.mark.parametrize("path", ["/rooms", "/solo", "/r/{code}/settings", "/r/{code}/join"])
def test_deep_or_long_json_is_a_clear_400(server, name, path):
    mark = len(server.output())
    host, _ = lobby(server)
    before = unchanged(host)
    response = host.http.post(server.url + path.format(code=host.code),
                              data=NASTY_BODIES[name], timeout=10,
                              headers={"Content-Type": "application/json"})
    assert response.status_code == 400, response.text
    assert response.json()["error"]
    assert unchanged(host) == before
    assert_no_traceback(server, mark)


@pytest.mark.parametrize("players", ["²", "٣", LONG, "+5", "5.0", 2**80])
def test_solo_players_must_be_ascii_digits_of_bounded_length(server, players):
    mark = len(server.output())
    device = Player(server.url)
    response = device.post("/solo", {"name": "Ann", "players": players}, expect=None)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert "players" in error or "at most 9 digits" in error     # a JSON int is read first
    assert_no_traceback(server, mark)


@pytest.mark.parametrize("rounds", ["²", "٣", LONG, "0" * 5_000 + "3", "-" + LONG])
@pytest.mark.parametrize("kind", ["json", "form"])
def test_a_setting_must_be_ascii_digits_of_bounded_length(server, rounds, kind):
    mark = len(server.output())
    host, _ = lobby(server)
    before = unchanged(host)
    url = f"{server.url}/r/{host.code}/settings"
    if kind == "json":
        response = host.http.post(url, json={"rounds": rounds}, timeout=10)
    else:
        page = host.http.get(f"{server.url}/r/{host.code}", headers={"Accept": "text/html"}).text
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        response = host.http.post(url, data={"rounds": rounds, "csrf_token": token},
                                  headers={"Accept": "application/json"}, timeout=10)
    assert response.status_code == 400, response.text
    assert "rounds" in response.json()["error"]
    assert unchanged(host) == before
    assert_no_traceback(server, mark)


def test_plain_numbers_still_work(server):
    host, _ = lobby(server)
    host.post(f"/r/{host.code}/settings", {"rounds": "7", "bank_ms": 60_000})
    assert host.state()["settings"]["rounds"] == 7
    device = Player(server.url)
    code = device.post("/solo", {"name": "Ann", "players": "4"}, 201).json()["code"]
    device.code = code
    assert len(device.state()["players"]) == 4
