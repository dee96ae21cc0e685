"""One address's connections on a worker, counted against one cap (web/door/connections.py):
as accepted from a direct client, and as requests in progress behind a trusted proxy.

The attacks themselves, each against both servers with a victim at another address,
are test_one_client.py's; these are the cap's own edges: who is counted where, what an
address over it is told, and that a household's phones and TV fit under it.
"""

from __future__ import annotations

import socket
import time

import pytest
import requests

from harness import AppServer, forget_counts

JSON = {"Accept": "application/json"}
CAP = 12


def stream(srv: AppServer, code: str, source: str, headers: str = "") -> socket.socket:
    """A raw JSON view stream of room ``code`` from loopback address ``source``."""
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=5,
                                    source_address=(source, 0))
    sock.sendall(f"GET /r/{code}/events?format=json HTTP/1.1\r\nHost: x\r\n{headers}\r\n"
                 .encode())
    return sock


def head(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def status(sock: socket.socket) -> int:
    return int(head(sock).split(b" ", 2)[1])


def new_room(srv: AppServer, source: str = "127.0.0.2", headers: dict | None = None) -> str:
    session = requests.Session()
    adapter = requests.adapters.HTTPAdapter()
    adapter.init_poolmanager(1, 1, source_address=(source, 0))
    session.mount("http://", adapter)
    with session:
        answer = session.post(f"{srv.url}/rooms", json={"name": "Ann"},
                              headers={**JSON, **(headers or {})}, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()["code"]


@pytest.fixture(scope="module")
def proxied(redis_url):
    """Behind one trusted proxy (127.0.0.5): every connection comes from it."""
    srv = AppServer(redis_url, env={"PROXY_HOPS": "1", "FORWARDED_ALLOW_IPS": "127.0.0.5",
                                    "MAX_CONNECTIONS_PER_ADDRESS": str(CAP),
                                    "MAX_STREAMS_PER_ADDRESS": "100"})
    yield srv
    srv.stop()


def test_behind_a_proxy_each_forwarded_address_has_its_own_cap(proxied, redis_url):
    """The proxy's own connections are everyone's, so they are not counted as accepted;
    the requests it forwards are, by the address it names: one client that opens streams
    past the cap gets 429 "too many connections", and another client behind the same
    proxy still gets its streams and its new room."""
    forget_counts(redis_url)
    code = new_room(proxied, "127.0.0.5", {"X-Forwarded-For": "198.51.100.9"})
    one = [stream(proxied, code, "127.0.0.5", "X-Forwarded-For: 198.51.100.7\r\n")
           for _ in range(CAP + 4)]
    try:
        statuses = [status(sock) for sock in one]
        assert statuses.count(200) == CAP and statuses.count(429) == 4, statuses
        other = [stream(proxied, code, "127.0.0.5", "X-Forwarded-For: 198.51.100.8\r\n")
                 for _ in range(CAP - 1)]
        try:
            assert [status(sock) for sock in other] == [200] * (CAP - 1)
            new_room(proxied, "127.0.0.5", {"X-Forwarded-For": "198.51.100.8"})
        finally:
            for sock in other:
                sock.close()
    finally:
        for sock in one:
            sock.close()


def test_a_direct_client_over_its_cap_is_told_at_once_and_others_are_not(redis_url):
    """Past its cap a direct client's connection is answered 429 unread, with the words
    and Retry-After, before the app sees it; one that ends gives its place back; another
    address is never refused for it."""
    srv = AppServer(redis_url, env={"MAX_CONNECTIONS_PER_ADDRESS": str(CAP),
                                    "MAX_STREAMS_PER_ADDRESS": "100"})
    held: list[socket.socket] = []
    try:
        code = new_room(srv)
        held = [stream(srv, code, "127.0.0.3") for _ in range(CAP - 1)]
        assert [status(sock) for sock in held] == [200] * (CAP - 1)
        idle = socket.create_connection(("127.0.0.1", srv.port), timeout=5,
                                        source_address=("127.0.0.3", 0))
        idle.sendall(b"GET /rules HTTP/1.1\r\nHost: x\r\n\r\n")
        assert status(idle) == 200      # and kept alive: its twelfth connection
        refused = socket.create_connection(("127.0.0.1", srv.port), timeout=5,
                                           source_address=("127.0.0.3", 0))
        answer = head(refused) + refused.recv(4096)
        refused.close()
        assert answer.startswith(b"HTTP/1.1 429 "), answer
        assert b"Retry-After: 5" in answer and b"too many connections from your network" in answer
        assert requests.get(srv.url + "/", timeout=5).status_code == 200       # 127.0.0.1
        # The kept-alive connection ends: the server, waiting for its next request, reads
        # the end at once, and its place is the address's again.
        idle.close()
        deadline = time.monotonic() + 5
        while True:
            again = socket.create_connection(("127.0.0.1", srv.port), timeout=5,
                                             source_address=("127.0.0.3", 0))
            again.sendall(b"GET /rules HTTP/1.1\r\nHost: x\r\n\r\n")
            got = status(again)
            held.append(again)
            if got == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert got == 200
    finally:
        for sock in held:
            sock.close()
        srv.stop()


def test_a_households_phones_and_tv_fit_under_the_default_cap(redis_url):
    """Eight phones and a TV behind one Wi-Fi, each with its stream and a page or two in
    flight and a keep-alive, are far under the default cap (64 at least): none refused."""
    srv = AppServer(redis_url, env={"MAX_STREAMS_PER_ADDRESS": "100"})
    socks: list[socket.socket] = []
    try:
        code = new_room(srv, "127.0.0.4")
        for _ in range(9):
            socks.append(stream(srv, code, "127.0.0.4"))
            for _ in range(3):      # pages loading, and a keep-alive left open
                sock = socket.create_connection(("127.0.0.1", srv.port), timeout=5,
                                                source_address=("127.0.0.4", 0))
                sock.sendall(b"GET /rules HTTP/1.1\r\nHost: x\r\n\r\n")
                socks.append(sock)
        assert [status(sock) for sock in socks] == [200] * 36
    finally:
        for sock in socks:
            sock.close()
        srv.stop()
