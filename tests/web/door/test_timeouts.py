"""No connection can sit on a worker (issue 26, item 10), against real servers.

`python app.py` closes a keep-alive connection idle for 5 s and answers 408 to a
request whose head has not arrived in 10 s, without cutting the streams and hold
sockets that are answers in progress; it and gunicorn (gunicorn.conf.py) refuse
oversized request heads alike.
"""

from __future__ import annotations

import socket
import threading
import time

import pytest
import requests

from harness import AppServer
from test_bounds import assert_no_traceback, lobby


@pytest.fixture(scope="module")
def gunicorn(redis_url):
    """One gunicorn worker, started from the checkout so it reads gunicorn.conf.py."""
    srv = AppServer(redis_url, workers=1)
    yield srv
    srv.stop()


IDLE_S, HEAD_S = 5, 10      # app.py's keep-alive idle and request-head timeouts


def closed_after(sock: socket.socket, limit: float) -> float | None:
    """Seconds until the server closed ``sock`` (reading and dropping what it sends),
    or None if it was still open after ``limit``."""
    start = time.monotonic()
    sock.settimeout(0.5)
    while time.monotonic() - start < limit:
        try:
            if sock.recv(65536) == b"":
                return time.monotonic() - start
        except TimeoutError:
            continue
        except OSError:
            return time.monotonic() - start
    return None


def test_idle_and_half_sent_connections_are_closed_but_streams_and_holds_are_not(server):
    """All at once, to wait for the timeouts only once: a keep-alive connection
    that goes quiet after one answer, one whose request never finishes (a byte a
    second), a view stream and a hold, each left alone past both timeouts."""
    mark = len(server.output())
    port = server.port
    idle = socket.create_connection(("127.0.0.1", port))
    idle.sendall(b"GET /rules HTTP/1.1\r\nHost: x\r\n\r\n")
    slow = socket.create_connection(("127.0.0.1", port))
    slow.sendall(b"GET /rules HTTP/1.1\r\n")

    def drip():
        for _ in range(HEAD_S * 3):
            try:
                slow.sendall(b"X")
            except OSError:
                return
            time.sleep(1)
    threading.Thread(target=drip, daemon=True).start()

    host, guest = lobby(server)
    host.post(f"/r/{host.code}/settings", {"ready_ms": 10_000, "bank_ms": 60_000})
    guest.follow()
    guest.wait_view(lambda v: v["phase"] == "lobby")
    host.post(f"/r/{host.code}/start")
    hold = host.press()
    assert hold.accepted

    waited = {}

    def watch(name, sock):
        waited[name] = closed_after(sock, 3 * HEAD_S)
    watchers = [threading.Thread(target=watch, args=item) for item in
                (("idle", idle), ("slow", slow))]
    for watcher in watchers:
        watcher.start()
    for watcher in watchers:
        watcher.join()
    idle.close()
    slow.close()
    assert waited["idle"] is not None and waited["idle"] < IDLE_S + 3, waited
    assert waited["slow"] is not None and waited["slow"] < HEAD_S + 3, waited
    # Both timeouts have passed: the stream and the hold, quiet all along, still work.
    assert not hold.closed.is_set()
    assert host.state()["me"]["holding"] is True
    seen = len(guest.views)
    hold.release()
    guest.wait_view(lambda v: len(guest.views) > seen, timeout=10)
    assert_no_traceback(server, mark)


@pytest.mark.parametrize("head, status", [
    (b"GET /" + b"a" * 5_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", b"414"),
    (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9_000 + b"\r\n\r\n", b"431"),
    (b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(120))
     + b"\r\n", b"431"),
])
@pytest.mark.parametrize("serving", ["server", "gunicorn"])
def test_oversized_request_heads_are_refused(request, serving, head, status):
    server = request.getfixturevalue(serving)
    mark = len(server.output())
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head)
        answer = sock.recv(200)
    assert answer.split(b" ")[1] == status, answer
    assert requests.get(server.url + "/rules", timeout=5).status_code == 200
    assert_no_traceback(server, mark)
