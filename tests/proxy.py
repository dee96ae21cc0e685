"""A delaying TCP proxy on loopback: a slow, jittery or lost mobile link, for tests and benches.

Each direction has a one-way delay and a jitter. A chunk read at t is written
at max(the previous chunk's time, t + delay + uniform(-jitter, +jitter)):
bytes are late by a varying amount but never reordered, as on TCP. A new
connection first waits out the handshake a real link would cost (SYN and
SYN-ACK: one round trip) before its first bytes travel, so a WebSocket
upgrade arrives 1.5 round trips after the client started connecting.
``stall()`` stops forwarding silently -- no FIN, no RST, nothing delivered
either way, including what was in flight -- as when a phone loses its signal.
``late`` makes some requests' answers late and no others: from a request whose
line names one of its paths on, its connection gets that path's way down -- say
an event stream 400 ms late on a link whose other requests are quick.

One asyncio loop in a daemon thread serves every proxy of the process; its
timing is accurate to about a millisecond.
"""

from __future__ import annotations

import asyncio
import random
import threading
from dataclasses import dataclass

_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def _shared_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _loop_lock:
        if _loop is None:
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="proxy-loop", daemon=True).start()
        return _loop


@dataclass(frozen=True)
class Way:
    """One direction of a link: one-way delay and jitter (uniform, +-), in ms."""

    delay_ms: float = 0.0
    jitter_ms: float = 0.0


class Connection:
    """One proxied TCP connection (client side and server side)."""

    def __init__(self, stalled: bool, down: Way):
        self.stalled = stalled
        self.down = down        # its way to the client: the proxy's, or a late path's
        self.writers: list[asyncio.StreamWriter] = []


class Proxy:
    """Listens on a loopback port and forwards every connection to ``target_port``."""

    def __init__(self, target_port: int, up: Way = Way(), down: Way = Way(),
                 handshake: bool = True, seed: int | None = None,
                 late: dict[str, Way] | None = None):
        self.target_port = target_port
        self.up, self.down = up, down           # up: client -> server
        self.late = {path.encode(): way for path, way in (late or {}).items()}
        self.handshake = handshake
        self.connections: list[Connection] = []
        self._stall_new = False
        self._rng = random.Random(seed)         # used on the loop thread only
        self._loop = _shared_loop()
        self._server = self._run(asyncio.start_server(self._accept, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"

    @classmethod
    def link(cls, target_port: int, rtt_ms: float, jitter_ms: float = 0.0, **kw) -> Proxy:
        """A symmetric link of ``rtt_ms`` round trip whose round trip varies by
        +-``jitter_ms``: half of each in each direction."""
        way = Way(rtt_ms / 2, jitter_ms / 2)
        return cls(target_port, way, way, **kw)

    def _run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    # -- control, from any thread -------------------------------------------

    def stall(self, connection: Connection | None = None) -> None:
        """Stop forwarding one connection, or all of them and any new one."""
        targets = [connection] if connection else list(self.connections)
        if connection is None:
            self._stall_new = True
        for conn in targets:
            conn.stalled = True

    def close(self) -> None:
        async def shut():
            self._server.close()
            for conn in self.connections:
                for writer in conn.writers:
                    writer.close()
            await self._server.wait_closed()
        self._run(shut())

    # -- forwarding, on the loop ----------------------------------------------

    async def _accept(self, client_r, client_w) -> None:
        conn = Connection(self._stall_new, self.down)
        self.connections.append(conn)
        conn.writers.append(client_w)
        opened = self._loop.time()
        try:
            server_r, server_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            client_w.close()
            return
        conn.writers.append(server_w)
        # The client's first bytes could leave only after SYN and SYN-ACK.
        ready = opened
        if self.handshake:
            ready += (self.up.delay_ms + self.down.delay_ms) / 1000
        await asyncio.gather(self._pump(client_r, server_w, lambda: self.up, conn, ready, True),
                             self._pump(server_r, client_w, lambda: conn.down, conn, opened))
        if not conn.stalled:
            for writer in conn.writers:
                writer.close()

    async def _pump(self, reader, writer, way_of, conn: Connection, ready: float,
                    request: bool = False) -> None:
        """Forward one direction; ``request``: the client's, whose request lines may
        make the other direction late (``late``)."""
        queue: asyncio.Queue = asyncio.Queue()
        sender = asyncio.create_task(self._send(queue, writer, conn))
        last = 0.0
        try:
            while True:
                data = await reader.read(65536)
                if request and self.late and data[:4] in (b"GET ", b"POST", b"HEAD"):
                    line = data.split(b"\r\n", 1)[0]      # a new request on this connection
                    conn.down = next((w for p, w in self.late.items() if p in line), self.down)
                way = way_of()
                jitter = self._rng.uniform(-way.jitter_ms, way.jitter_ms) if way.jitter_ms else 0.0
                at = max(last, max(self._loop.time(), ready) + (way.delay_ms + jitter) / 1000)
                last = at
                queue.put_nowait((at, data))    # b"" is the end of the stream
                if not data:
                    break
        except (ConnectionError, OSError):
            queue.put_nowait((last, b""))
        await sender

    async def _send(self, queue: asyncio.Queue, writer, conn: Connection) -> None:
        try:
            while True:
                at, data = await queue.get()
                wait = at - self._loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if conn.stalled:
                    if not data:
                        return
                    continue    # lost in the air; and no FIN will follow
                if not data:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            return
