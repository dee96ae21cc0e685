"""Every connection of one address on this worker, counted, and every write bounded in time.

A worker holds a bounded number of connections: gunicorn's pool of
``worker_connections``, or, under `python app.py`, its file descriptors. A
client that opens connections and then reads nothing -- 300 sockets with a
one-byte receive buffer, each asking for a page eight times over -- kept every
one of them for ever: each answer waited on a full send buffer, the pool filled,
and everyone else's pages and new rooms timed out, while the accept queue the
door watches stayed short and nobody was told the server was busy. Streams
opened across many rooms did the same, each room a fresh allowance of the
per-room caps (limits.py). So:

- **One cap on an address's open connections of every kind** -- streams, hold
  sockets, pages being written, idle keep-alives, requests still arriving --
  counted as each connection is accepted, before it is handed to the app or
  read at all (the servers' hooks: http_server.py, gunicorn.conf.py). Past the
  cap the connection is answered ``429`` at once and closed. The cap is a share
  of the worker's own budget (ADDRESS_SHARE of its pool or its file
  descriptors, never fewer than ADDRESS_FLOOR), so no address can take the
  pool, while the phones and the TV of a party on one Wi-Fi (two or three
  connections each) and a carrier NAT's few players at once fit with room to
  spare. Behind a trusted proxy every connection comes from the proxy, so
  there the requests in progress are counted instead, by the address the proxy
  forwards (proxies.py), with the same cap.
- **Every write has a deadline.** A page or a JSON answer must be written
  whole within SEND_TIMEOUT_S of its first byte; each write of a stream within
  STREAM_SEND_TIMEOUT_S (a phone on a poor link takes a few seconds for a
  stream's few kilobytes; one whose write has not gone out in that long reads
  nothing, and reconnects by itself once it does: its first message is the
  whole view). A connection whose write is overdue is shut down by the
  worker's one watch over them, which fails the write as a broken pipe, the
  quiet way both servers end a connection whose client went away. The hold
  socket bounds its own writes (live/wire.py).
"""

from __future__ import annotations

import resource
import socket
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import gevent  # type: ignore[import-untyped]

from .identity import counted
from .proxies import networks, trusts

# The most of a worker's connections one address may hold, and never fewer than this
# many: a table of eight phones and a TV, each with its stream, its hold and a page or
# two loading, fit several times over.
ADDRESS_SHARE = 0.25
ADDRESS_FLOOR = 64
WATCH_S = 0.25          # how often the watch looks for overdue writes
RETRY_AFTER_S = 5

WORDS = "too many connections from your network; close a tab and try again\n"
REFUSED = (f"HTTP/1.1 429 Too Many Requests\r\nRetry-After: {RETRY_AFTER_S}\r\n"
           f"Content-Type: text/plain; charset=utf-8\r\nContent-Length: {len(WORDS)}\r\n"
           f"Connection: close\r\n\r\n{WORDS}").encode()


def cap_for(budget: int, setting: int) -> int:
    """The cap on one address's connections of a worker whose budget is ``budget``
    connections: ``setting`` (MAX_CONNECTIONS_PER_ADDRESS) when given, else a share."""
    return setting if setting > 0 else max(ADDRESS_FLOOR, int(budget * ADDRESS_SHARE))


def file_budget() -> int:
    """The connections a process without a pool can hold: its file descriptors."""
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Book:
    """How many connections each address has open on this worker, within ``cap``."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.open: Counter[str] = Counter()

    def take(self, address: str) -> Callable[[], None] | None:
        """One more of ``address``'s: a function that gives it back (once), or None
        when the address already has ``cap`` open."""
        if self.open[address] >= self.cap:
            return None
        self.open[address] += 1
        given: list[bool] = []

        def give_back() -> None:
            if not given:
                given.append(True)
                self.open[address] -= 1
                if self.open[address] <= 0:
                    del self.open[address]
        return give_back


class Deadlines:
    """The writes in progress and when each must be done; one greenlet shuts down
    the connection of any that is overdue."""

    def __init__(self) -> None:
        self._due: dict[int, tuple[float, Any]] = {}
        self._watch: Any = None
        self.dropped = 0            # connections shut down for an overdue write

    def writing(self, key: int, sock: Any, by: float) -> None:
        self._due[key] = (by, sock)
        if self._watch is None:
            self._watch = gevent.spawn(self._run)

    def done(self, key: int) -> None:
        self._due.pop(key, None)

    def _run(self) -> None:
        while True:
            gevent.sleep(WATCH_S)
            now = time.monotonic()
            for key, (by, sock) in list(self._due.items()):
                if now > by and self._due.get(key, (None,))[0] == by:
                    del self._due[key]
                    self.dropped += 1
                    _shut(sock)


def _shut(sock: Any) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class Door:
    """This worker's count of connections per address and its writes' deadlines."""

    def __init__(self, setting: int, send_s: float, stream_send_s: float, hops: int,
                 allowed: str) -> None:
        self.setting = setting
        self.send_s = send_s
        self.stream_send_s = stream_send_s
        self.hops = hops
        self.trusted = networks(allowed)     # the proxies (FORWARDED_ALLOW_IPS)
        self.book = Book(cap_for(file_budget(), setting))
        self.deadlines = Deadlines()

    def sized(self, budget: int) -> None:
        """The worker's budget of connections is ``budget`` (its server says: a pool)."""
        self.book.cap = cap_for(budget, self.setting)

    def counts_peer(self, peer: str) -> bool:
        """Whether a connection from ``peer`` is its own client's (counted as accepted),
        not a trusted proxy's, whose clients are counted by request (``Bounded``)."""
        return not (self.hops and trusts(self.trusted, peer))

    def accepting(self, sock: Any, peer: str) -> Callable[[], None] | None:
        """A connection just accepted from ``peer``: a function that gives its place back
        when it ends, or None -- it was over its address's cap, and has been answered
        429 and closed."""
        if not self.counts_peer(peer):
            return _nothing
        give_back = self.book.take(counted(peer))
        if give_back is None:
            _refuse(sock)
        return give_back


def _nothing() -> None:
    """What a connection not counted here gives back."""


def _refuse(sock: Any) -> None:
    """Answer a connection over its cap without reading it: one small write that never
    waits (a fresh socket's send buffer takes it whole), then the close."""
    try:
        sock.setblocking(False)
        sock.send(REFUSED)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


def peer_of(address: Any) -> str:
    """The host part of a server's client address (a tuple, or a string for a unix one)."""
    return address[0] if isinstance(address, tuple) and address else str(address)


def connection_socket(environ: dict) -> Any:
    """The connection a request came on, as its server hands it to the app: gunicorn's
    ``gunicorn.socket``, werkzeug's ``werkzeug.socket``, or ``ta.socket``, which
    `python app.py`'s handler adds (http_server.py)."""
    return (environ.get("ta.socket") or environ.get("gunicorn.socket")
            or environ.get("werkzeug.socket"))


class Bounded:
    """WSGI middleware, inside TrustedProxies: each answer's writes against their
    deadlines, and, behind a trusted proxy, each client address's requests in progress
    against the cap."""

    def __init__(self, app: Callable, door: Door) -> None:
        self.app = app
        self.door = door

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        door = self.door
        give_back = _nothing
        if environ.get("werkzeug.proxy_fix.orig") is not None:     # forwarded by a proxy
            taken = door.book.take(counted(environ.get("REMOTE_ADDR") or "unknown"))
            if taken is None:
                start_response("429 Too Many Requests",
                               [("Content-Type", "text/plain; charset=utf-8"),
                                ("Retry-After", str(RETRY_AFTER_S))])
                return [WORDS.encode()]
            give_back = taken
        sock = connection_socket(environ)
        streaming = [False]

        def starting(status: str, headers: list, exc_info: Any = None) -> Any:
            streaming[0] = any(name.lower() == "content-type"
                               and value.startswith("text/event-stream")
                               for name, value in headers)
            return start_response(status, headers, exc_info)

        try:
            body = self.app(environ, starting)
        except BaseException:
            give_back()
            raise
        if sock is None:        # a test's client: no connection to bound
            return _Closing(iter(body), body, give_back)
        return _Closing(self._timed(body, sock, streaming), body, give_back)

    def _timed(self, body: Iterable[bytes], sock: Any, streaming: list[bool]) -> Iterator[bytes]:
        deadlines, key = self.door.deadlines, id(sock)
        whole_by = None
        try:
            for chunk in body:
                now = time.monotonic()
                if streaming[0]:
                    by = now + self.door.stream_send_s
                else:
                    whole_by = now + self.door.send_s if whole_by is None else whole_by
                    by = whole_by
                deadlines.writing(key, sock, by)
                yield chunk         # the server writes it before it asks for the next
                deadlines.done(key)
        finally:
            deadlines.done(key)


class _Closing:
    """An answer's body that, when the server closes it, closes the app's body and gives
    the connection's place back."""

    def __init__(self, chunks: Iterator[bytes], body: Any, give_back: Callable[[], None]):
        self._chunks = chunks
        self._body = body
        self._give_back = give_back

    def __iter__(self) -> Iterator[bytes]:
        return self._chunks

    def close(self) -> None:
        try:
            close = getattr(self._chunks, "close", None)
            if close is not None:
                close()
            close = getattr(self._body, "close", None)
            if close is not None:
                close()
        finally:
            self._give_back()


def guard(worker: Any) -> None:
    """gunicorn's worker (gunicorn.conf.py's post_worker_init): its pool is its budget,
    and each connection it accepts is counted before it is served."""
    door: Door = worker.wsgi.extensions["auction_connections"]
    door.sized(worker.worker_connections)
    handle = worker.handle

    def counted_handle(listener: Any, client: Any, addr: Any) -> None:
        give_back = door.accepting(client, peer_of(addr))
        if give_back is None:
            return
        try:
            handle(listener, client, addr)
        finally:
            give_back()
    worker.handle = counted_handle
