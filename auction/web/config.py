"""The web layer's settings: Flask's, werkzeug's, the hold socket's, the door's and
operations', each environment variable read once here (typed by the server's ``Env``:
a bad value is an error at start-up). Pass a class, object or dict to create_app()
to override any of them; the server's own settings are auction/server/config.py's.
Every variable is in docs/deploy.md's table.
"""

from __future__ import annotations

import os
import secrets
import tempfile

from ..server import SERVER_CONFIG, Env

env = Env()

# Where the embedded Redis and the secret key live (Flask's instance folder); unset,
# Flask's default, ./instance beside the app.
INSTANCE_PATH = env.text("INSTANCE_PATH")
# The gettext catalogs; set, another folder (the tests' pseudo-English catalog: i18n.py).
TRANSLATIONS = env.text("TA_TRANSLATIONS")
# The port `python app.py` serves on (gunicorn: its -b, the Procfile's $PORT).
PORT = env.integer("PORT", 8000)


class Config:
    # None: create_app() uses <instance>/secret_key, so every worker signs alike.
    SECRET_KEY = env.text("SECRET_KEY")
    # The server's settings a test may override (the rest: auction/server/config.py).
    REDIS_URL = SERVER_CONFIG.redis_url
    HOLD_COMP_CAP_MS = SERVER_CONFIG.hold_comp_cap_ms
    # Each worker runs the timer loop; tests of single requests may switch it off.
    SCHEDULER = True
    # Tests of several workers need to know which one answered (X-Worker header,
    # and "worker" in the hold socket's "in" message). Off in production.
    EXPOSE_WORKER = env.flag("TA_EXPOSE_WORKER")
    # Every request body is a small form post; anything larger is refused.
    MAX_CONTENT_LENGTH = 16 * 1024
    # The hold socket's client only ever sends {"type": "release"} (19 bytes), so
    # 1 KiB is room to spare; a larger message closes the socket with 1009 as soon
    # as it passes the bound (simple_websocket counts it as it reads, 4 KiB at a
    # time), instead of being gathered whole in the worker's memory.
    SOCK_SERVER_OPTIONS = {"max_message_size": 1024}
    # Reverse proxies in front of the app whose X-Forwarded-For/-Proto/-Host/-Port
    # are trusted (werkzeug's ProxyFix): 0 when serving directly, 1 behind nginx,
    # Caddy or a platform's router. The client's address, the https scheme the
    # Origin check and cookies follow, and invite links all come from them.
    PROXY_HOPS = env.integer("PROXY_HOPS", 0)
    # ...and only from these peers (addresses or networks, comma-separated; "*" for
    # any, right behind a platform's router that nothing else can reach). The same
    # variable gunicorn reads for its own X-Forwarded-Proto (web/door/proxies.py).
    FORWARDED_ALLOW_IPS = env.text("FORWARDED_ALLOW_IPS", "127.0.0.1,::1", blank=True)
    # The site's public address for invite links and their QR codes, e.g.
    # https://play.example.com; unset, they follow the request's (checked) Host.
    PUBLIC_URL = (env.text("PUBLIC_URL") or "").rstrip("/") or None
    # Host names the site answers to (Flask refuses any other Host with 400);
    # unset, any well-formed Host of at most 255 characters (web/door/hosts.py).
    TRUSTED_HOSTS = env.names("TRUSTED_HOSTS") or None
    # Cookies get Secure when the request came over https; this forces it always.
    COOKIE_SECURE = env.flag("COOKIE_SECURE")
    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SAMESITE = "Lax"
    SESSION_COOKIE_SECURE = COOKIE_SECURE
    # Multiplies every abuse limit (web/door/limits.py); the test servers raise it,
    # since all their devices share one loopback address.
    RATE_LIMIT_SCALE = env.number("TA_RATE_LIMIT_SCALE", 1.0)
    # Connections open at once (web/door/limits.py): a seated (or invited) device's
    # streams of a room count per device and room (its phone page and a big screen,
    # a reload of each before the old stream is noticed gone); an invited visitor's
    # per address and room (a table of newcomers on one Wi-Fi); everyone else's per
    # address (a flood of strangers stops there); holds per device, counted only
    # once the socket has found its seat. No address takes more than a quarter of
    # a worker's MAX_*_PER_WORKER (web/door/capacity.py).
    MAX_STREAMS_PER_DEVICE = env.integer("MAX_STREAMS_PER_DEVICE", 4)
    MAX_STREAMS_PER_INVITATION = env.integer("MAX_STREAMS_PER_INVITATION", 16)
    MAX_STREAMS_PER_ADDRESS = env.integer("MAX_STREAMS_PER_ADDRESS", 40)
    MAX_HOLDS_PER_DEVICE = env.integer("MAX_HOLDS_PER_DEVICE", 4)
    # Connections of every kind one address may have open on a worker (web/door/
    # connections.py): 0, a quarter of the worker's pool or file descriptors, at least 64.
    MAX_CONNECTIONS_PER_ADDRESS = env.integer("MAX_CONNECTIONS_PER_ADDRESS", 0)
    # A page or JSON answer not written whole within this many seconds of its first
    # byte, or a stream's write not done within the second, drops its connection: its
    # client reads nothing (web/door/connections.py).
    SEND_TIMEOUT_S = env.number("SEND_TIMEOUT_S", 10.0)
    STREAM_SEND_TIMEOUT_S = env.number("STREAM_SEND_TIMEOUT_S", 20.0)
    # A stream's lease (limits.py) lives this long unless renewed; the worker renews the
    # leases of its open streams (a stream that stalled still holds its place).
    STREAM_LEASE_S = env.number("STREAM_LEASE_S", 60.0)
    # A worker this far behind (how late its event loop woke through most of
    # the last second), or serving this many holds or streams, turns new rooms
    # and joins away with 503 so running games keep their timing
    # (web/door/capacity.py; 0: off).
    OVERLOAD_LAG_MS = env.number("OVERLOAD_LAG_MS", 100.0)
    # ...or this many connections waiting in the kernel to be accepted (through most
    # of the last second).
    OVERLOAD_QUEUE = env.integer("OVERLOAD_QUEUE", 32)
    MAX_HOLDS_PER_WORKER = env.integer("MAX_HOLDS_PER_WORKER", 0)
    MAX_STREAMS_PER_WORKER = env.integer("MAX_STREAMS_PER_WORKER", 0)
    # On SIGTERM a worker takes no new stream or hold and lets the holds under way
    # finish, for at most this long, before it closes its streams and exits
    # (web/operations/health.py); gunicorn.conf.py gives gunicorn's graceful_timeout more.
    DRAIN_S = env.number("DRAIN_S", 10.0)
    # The cyclic garbage collector's full pass stops a worker for as long as it takes
    # to visit every live object: 100-200 ms with 500 players on it, a pause every
    # hold and stream of the worker feels (web/operations/collector.py). It runs after
    # this many passes of the middle generation (CPython's default: 10, every few
    # seconds under load); the young generations still run as often as ever.
    GC_FULL_EVERY = env.integer("GC_FULL_EVERY", 1000)
    # Unset: /metrics answers only requests made on this machine to the worker
    # itself; set: requests with "Authorization: Bearer <token>" (web/operations/metrics.py).
    METRICS_TOKEN = env.text("METRICS_TOKEN")
    # Where gunicorn's workers keep the figures /metrics sums (prometheus-client's
    # multiprocess mode; gunicorn.conf.py makes one when unset). None: this process's own.
    METRICS_DIR = env.text("PROMETHEUS_MULTIPROC_DIR")


def load_secret_key(instance_path: str) -> str:
    """Read <instance>/secret_key, creating it once.

    Several workers may start at the same moment: each writes a candidate to a
    temporary file and links it into place; the link is atomic and fails if the
    file exists, so all of them end up reading the same key.
    """
    path = os.path.join(instance_path, "secret_key")
    if not os.path.exists(path):
        fd, tmp = tempfile.mkstemp(dir=instance_path)
        try:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32))
            os.chmod(tmp, 0o600)
            try:
                os.link(tmp, path)
            except FileExistsError:
                pass
        finally:
            os.unlink(tmp)
    with open(path) as f:
        return f.read().strip()
