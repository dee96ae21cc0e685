"""What a hold socket itself tells about its client: when each frame arrived.

``Tap`` wraps the socket's protocol object and timestamps every frame as it is
read, so a release or a sign of life is dated when it reached the server, not
when the hold's loop got round to it; ``kernel_rtt_ms`` reads the kernel's own
round-trip estimate of the connection. It only measures: each answer to one of
the socket's pings goes to ``answered`` as two plain moments (the ping's and
the answer's), and the server's hold makes of them what they mean.
"""

from __future__ import annotations

import socket
import struct
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from wsproto.events import CloseConnection, Pong


class Tap:
    """Wraps the socket's protocol object to timestamp each frame the client sends."""

    def __init__(self, conn: Any, now_ms: Callable[[], int]) -> None:
        self._conn = conn
        self._now_ms = now_ms
        self.text_ms: deque[int] = deque()
        self.closed_ms: int | None = None
        self.pings: dict[bytes, int] = {}  # unanswered pings: payload -> when sent
        self.ponged = False                 # an answer came since the socket last asked
        # Told of each answer to one of our pings: (when the ping went out, when the
        # answer arrived). The socket points it at its hold (server/holds.py).
        self.answered: Callable[[int, int], None] = _nobody

    def events(self) -> Iterator[Any]:
        for event in self._conn.events():
            now = self._now_ms()
            if isinstance(event, Pong):
                # Only an answer to one of our own pings is a sign of life (and a
                # round trip): a client cannot send it before the ping arrives, and
                # pongs nobody asked for prove nothing.
                sent = self.pings.pop(bytes(event.payload), None)
                if sent is not None:
                    self.ponged = True
                    # Pongs come in order, and a client may answer only the latest of
                    # several pings (RFC 6455 5.5.3): the earlier ones are answered too.
                    for payload, at in list(self.pings.items()):
                        if at <= sent:
                            del self.pings[payload]
                    self.answered(sent, now)
            elif isinstance(event, CloseConnection):
                self.closed_ms = now
            elif getattr(event, "message_finished", False):
                self.text_ms.append(now)
            yield event

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def _nobody(sent_ms: int, at_ms: int) -> None:
    """Where answers go before the socket has a hold to tell."""


def kernel_rtt_ms(sock: socket.socket) -> int | None:
    """The kernel's smoothed round trip of this TCP connection in ms (Linux), if known."""
    rtt_us = tcp_info(sock, TCPI_RTT)
    return None if rtt_us is None else rtt_us // 1000


TCPI_RTT = 68               # struct tcp_info's tcpi_rtt (µs)
TCPI_LAST_DATA_RECV = 52    # struct tcp_info's tcpi_last_data_recv (ms ago)
TCPI_UNACKED = 24           # struct tcp_info's tcpi_unacked: of a listening socket, its queue


def tcp_info(sock: socket.socket, offset: int) -> int | None:
    """One unsigned 32-bit field of the kernel's ``struct tcp_info`` for this connection
    (Linux), at its byte ``offset``; None where the kernel cannot say."""
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
        return struct.unpack_from("I", info, offset)[0]
    except (AttributeError, OSError, struct.error):
        return None
