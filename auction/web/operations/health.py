"""Running a worker: health for a load balancer, metrics, and a drain before it exits.

``GET /healthz`` says the process answers; ``GET /readyz`` says it takes new
players: the store answers (one PING a second at most, however often it is asked)
and the worker is not draining. ``GET /metrics`` is metrics.py's. All three are
answered here, in front of the app: no cookie is set, no limit counts them, no
device is made; each is a few microseconds and a JSON or text body.

Draining (SIGTERM: gunicorn.conf.py's hook under gunicorn, app.py under ``python
app.py``): the worker at once answers new streams and hold sockets with 503 and
``Retry-After`` and ``/readyz`` with 503, so a load balancer and the clients turn
elsewhere; holds under way go on to their release, for up to ``DRAIN_S`` seconds
(a hold still pressed then is let go as if its line had dropped, at that moment);
then its streams are closed -- EventSource reconnects by itself, to a worker that
takes it -- and the worker exits. Every other request is served as usual meanwhile.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import gevent  # type: ignore[import-untyped]
from flask import Flask, current_app, g, request

from ...server import Watch
from . import metrics
from ..door.capacity import Capacity
from ..common import HOLD_ENDPOINT
from ..respond import error
from ..pages.words import N_

log = logging.getLogger(__name__)

RETRY_AFTER_S = 5
READY_EVERY_S = 1.0     # the store is pinged at most this often for /readyz
POLL_S = 0.05           # how often the drain looks whether the holds are done
LET_GO_S = 1.0          # past the grace, time for the last holds to be let go
# What a draining worker no longer takes: the long-lived answers.
DRAINED = {"stream.events", "screen.screen_events", HOLD_ENDPOINT}
MESSAGE = N_("this server is restarting; try again in a moment")


class Drain:
    """One worker's drain: whether it began, and the streams it must close."""

    def __init__(self, grace_s: float, load: Capacity) -> None:
        self.grace_s = grace_s
        self.load = load
        self.since: float | None = None
        self.closing = False                # streams end at their next wake
        self._streams: set[Watch] = set()   # the rooms of the streams open now

    @property
    def draining(self) -> bool:
        return self.since is not None

    def overdue(self) -> bool:
        """Past the grace: a hold still pressed is let go now."""
        return self.since is not None and time.monotonic() - self.since >= self.grace_s

    def begin(self, then: Callable[[], None] | None = None) -> None:
        """Start draining (once; a second signal changes nothing); ``then`` once done."""
        if self.since is not None:
            return
        self.since = time.monotonic()
        metrics.DRAINING.set(1)
        log.warning("draining: %d holds and %d streams open", self.load.holds,
                    self.load.streams)
        gevent.spawn(self._run, then)

    def _run(self, then: Callable[[], None] | None) -> None:
        assert self.since is not None
        until = self.since + self.grace_s + LET_GO_S
        while self.load.holds and time.monotonic() < until:
            gevent.sleep(POLL_S)
        log.warning("drained: %d holds left; closing %d streams", self.load.holds,
                    len(self._streams))
        # Each stream's loop ends and its response finishes whole (a killed greenlet
        # would leave gunicorn holding a half-sent response open on a kept-alive line).
        self.closing = True
        for watch in list(self._streams):
            watch.wake()
        gevent.sleep(POLL_S)        # the streams' last bytes go out
        if then is not None:
            then()

    @contextmanager
    def streaming(self, watch: Watch) -> Iterator[None]:
        """Around a stream's loop, which ends once ``closing`` (woken through ``watch``)."""
        self._streams.add(watch)
        try:
            yield
        finally:
            self._streams.discard(watch)


class Endpoints:
    """WSGI middleware: /healthz, /readyz and /metrics, before the app sees anything."""

    def __init__(self, app, drain: Drain, store_answers: Callable[[], bool],
                 token: str | None, metrics_dir: str | None) -> None:
        self.app = app
        self.drain = drain
        self._ping = store_answers      # Service.store_answers: never raises
        self.token = token
        self.metrics_dir = metrics_dir
        self._store_ok: tuple[float, bool] = (float("-inf"), False)
        self.paths = {"/healthz": self.health, "/readyz": self.ready, "/metrics": self.metrics}

    def __call__(self, environ, start_response):
        answer = self.paths.get(environ.get("PATH_INFO", ""))
        if answer is None:
            return self.app(environ, start_response)
        if environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            status, body, kind = "405 Method Not Allowed", _json(error="GET only"), JSON
        else:
            status, body, kind = answer(environ)
        headers = [("Content-Type", kind), ("Content-Length", str(len(body))),
                   ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")]
        if status.startswith("503"):
            headers.append(("Retry-After", str(RETRY_AFTER_S)))
        start_response(status, headers)
        return [b""] if environ.get("REQUEST_METHOD") == "HEAD" else [body]

    def health(self, environ) -> tuple[str, bytes, str]:
        return "200 OK", _json(status="alive"), JSON

    def ready(self, environ) -> tuple[str, bytes, str]:
        if self.drain.draining:
            return "503 Service Unavailable", _json(status="draining"), JSON
        if not self.store_answers():
            return "503 Service Unavailable", _json(status="store unavailable"), JSON
        return "200 OK", _json(status="ready"), JSON

    def store_answers(self) -> bool:
        at, ok = self._store_ok
        now = time.monotonic()
        if now - at >= READY_EVERY_S:
            ok = self._ping()        # any failure to answer is "not ready", never a 500
            self._store_ok = (time.monotonic(), ok)
        return ok

    def metrics(self, environ) -> tuple[str, bytes, str]:
        if not metrics.may_read(environ, self.token):
            return "403 Forbidden", _json(error="metrics are for the operator"), JSON
        body, kind = metrics.exposition(self.metrics_dir)
        return "200 OK", body, kind


JSON = "application/json"


def _json(**fields: str) -> bytes:
    return json.dumps(fields).encode()


def init(app: Flask, load: Capacity) -> Drain:
    """The worker's drain, its refusals while draining and its count of 503s; the
    endpoints are wrapped around the whole app by ``wrap`` once everything else is."""
    drain = Drain(app.config["DRAIN_S"], load)
    app.extensions["auction_drain"] = drain
    app.after_request(_count_unavailable)
    return drain


def refuse_while_draining():
    """A before-request hook, early: no new stream or hold on a draining worker."""
    if not current_app.extensions["auction_drain"].draining or request.endpoint not in DRAINED:
        return None
    g.unavailable = "draining"
    response = current_app.make_response(error(503, MESSAGE))
    response.headers["Retry-After"] = str(RETRY_AFTER_S)
    return response


def wrap(app: Flask, store_answers: Callable[[], bool]) -> None:
    """/healthz, /readyz (``store_answers``: the server's readiness) and /metrics."""
    app.wsgi_app = Endpoints(app.wsgi_app, app.extensions["auction_drain"],  # type: ignore[method-assign]
                             store_answers, app.config["METRICS_TOKEN"],
                             app.config["METRICS_DIR"])


def drain() -> Drain:
    return current_app.extensions["auction_drain"]


def _count_unavailable(response):
    if response.status_code == 503:
        metrics.UNAVAILABLE.labels(g.get("unavailable", "other")).inc()
    return response
