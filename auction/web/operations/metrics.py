"""What this worker reports to Prometheus, and who may read it (``GET /metrics``).

The figures: hold sockets and event streams open now, how late the event loop
wakes (capacity.py's measure), how many connections wait in the kernel for a
worker to accept them, presses refused by reason (the closed set of
hold_messages.py) and holds ended by reason, 503 answers by cause (the worker
full, the store away, the worker draining), and how far each release was dated
back for the player's latency (the compensation, in milliseconds; fairness.py
caps it). There is no self-check of bid errors in the server: a bid's error is
measured against the client's own clock, which only the client (bench/loadgen.py)
knows.

Under gunicorn the workers share one port, so a scrape reaches one of them at
random: gunicorn.conf.py points ``PROMETHEUS_MULTIPROC_DIR`` at a fresh folder,
each worker writes its figures there, and any worker answers with the sum (open
counts and refusals summed over live workers, the loop's lag the worst of them).
Without that variable (``python app.py``) the one process answers for itself.

Who may read it: with ``METRICS_TOKEN`` set, a request carrying ``Authorization:
Bearer <token>``; without, only a request made on this machine to the worker
itself (a loopback peer with no proxy's ``X-Forwarded-*`` or ``Forwarded``
header: a proxy on the same machine relays the whole internet). A browser's
cross-site request (an Origin, or Fetch Metadata naming another site) never.
"""

from __future__ import annotations

import hmac
import ipaddress

from prometheus_client import (CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Gauge,
                               Histogram, generate_latest)
from prometheus_client.multiprocess import MultiProcessCollector

from ...server import ENDINGS, REFUSALS
from ..door.proxies import FORWARDED
from ..live.tap import TCPI_UNACKED, tcp_info

HOLDS_OPEN = Gauge("ta_holds_open", "Hold sockets open on this worker now",
                   multiprocess_mode="livesum")
STREAMS_OPEN = Gauge("ta_streams_open", "View streams open on this worker now",
                     multiprocess_mode="livesum")
LOOP_LAG = Gauge("ta_event_loop_lag_seconds",
                 "How late the event loop woke, 80th percentile of the last second",
                 multiprocess_mode="livemax")
DRAINING = Gauge("ta_draining", "1 while the worker drains before it exits",
                 multiprocess_mode="livemax")
# The loop's lag measures the work a worker took in, not what waits to be let in: under
# load a gunicorn gevent worker accepts one connection per turn of its loop, and presses
# (each a new connection) waited seconds in the kernel while the lag looked fine
# (docs/scaling.md). The workers share the listening socket, so any one reads the queue,
# at the scrape it answers.
ACCEPT_QUEUE = Gauge("ta_accept_queue",
                     "Connections the kernel has taken that no worker has accepted yet",
                     multiprocess_mode="livemostrecent")
HOLDS = Counter("ta_holds", "Presses the hold socket accepted")
REFUSED = Counter("ta_hold_refusals", "Presses refused, by reason", ["reason"])
ENDED = Counter("ta_hold_endings", "Holds the server ended, by reason", ["reason"])
UNAVAILABLE = Counter("ta_unavailable_responses", "503 answers, by cause", ["cause"])
# What the door did with each new room, join, solo game and rematch: let in, or turned
# away busy by which of its checks (web/door/capacity.py).
NEW_GAMES = Counter("ta_new_games", "New games and joins, let in or turned away by the check",
                    ["outcome"])
BUSY = ("lag", "queue", "holds", "streams")
COMPENSATION = Histogram("ta_release_compensation_ms",
                         "How far a release was dated back for the player's latency (ms)",
                         buckets=(0, 5, 10, 20, 40, 60, 80, 100, 150, 200, 300, 500))

OPEN = {"holds": HOLDS_OPEN, "streams": STREAMS_OPEN}
CAUSES = ("capacity", "store", "draining", "other")

# Every label shows from the start (at 0), so a rate() never misses its first event.
for _reason in sorted(REFUSALS):
    REFUSED.labels(_reason)
for _reason in sorted(ENDINGS):
    ENDED.labels(_reason)
for _cause in CAUSES:
    UNAVAILABLE.labels(_cause)
for _outcome in ("let_in", *(f"busy_{check}" for check in BUSY)):
    NEW_GAMES.labels(_outcome)


_listeners: list = []     # this process's listening sockets (watch_listeners)


def watch_listeners(sockets: list) -> None:
    """The listening sockets this process accepts on (gunicorn.conf.py, app.py): their
    queue is read at each scrape."""
    _listeners[:] = sockets


def accept_queue(sock) -> int | None:
    """Connections waiting on listening socket ``sock`` to be accepted (None: unknown)."""
    return tcp_info(sock, TCPI_UNACKED)


def waiting() -> int | None:
    """Connections waiting on this process's listening sockets (None: none known, or
    the kernel does not say): what capacity.py turns newcomers away on."""
    queues = [accept_queue(sock) for sock in _listeners]
    known = [queue for queue in queues if queue is not None]
    return sum(known) if known else None


def exposition(folder: str | None) -> tuple[bytes, str]:
    """The text a scrape gets: this process's figures, or all live workers' summed from
    ``folder`` (config METRICS_DIR, from PROMETHEUS_MULTIPROC_DIR)."""
    queue = waiting()
    if queue is not None:
        ACCEPT_QUEUE.set(queue)
    if not folder:
        return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=folder)
    return generate_latest(registry), CONTENT_TYPE_LATEST


def cross_site(environ: dict) -> bool:
    return "HTTP_ORIGIN" in environ or environ.get("HTTP_SEC_FETCH_SITE") in (
        "cross-site", "same-site")


def may_read(environ: dict, token: str | None) -> bool:
    """Whether this request may read the metrics (see the module's doc)."""
    if cross_site(environ):
        return False
    if token:
        sent = environ.get("HTTP_AUTHORIZATION", "")
        return hmac.compare_digest(sent.encode(), f"Bearer {token}".encode())
    if any(name in environ for name in FORWARDED):
        return False
    try:
        peer = ipaddress.ip_address(environ.get("REMOTE_ADDR") or "")
    except ValueError:
        return False
    if peer.version == 6 and peer.ipv4_mapped is not None:
        peer = peer.ipv4_mapped
    return peer.is_loopback
